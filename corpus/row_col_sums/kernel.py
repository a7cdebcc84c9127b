import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def row_sum_kernel(x, row_sums, TM: ConstInt, TN: ConstInt):
    """row_sums (M, 1) = x.sum(axis=1, keepdims=True); a block owns TM rows and walks the columns."""
    pid = ct.bid(0)
    acc = ct.zeros((TM, 1), dtype=ct.float32)
    for j in range(ct.num_tiles(x, 1, (TM, TN))):
        t = ct.load(x, (pid, j), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(t.astype(ct.float32), axis=1, keepdims=True)
    ct.store(row_sums, (pid, 0), acc.astype(row_sums.dtype))


@ct.kernel
def col_sum_kernel(x, col_sums, TM: ConstInt, TN: ConstInt):
    """col_sums (1, N) = x.sum(axis=0, keepdims=True); a block owns TN columns and walks the rows."""
    pid = ct.bid(0)
    num_row_tiles = ct.cdiv(x.shape[0], TM)
    acc = ct.zeros((1, TN), dtype=ct.float32)
    i = 0
    while i < num_row_tiles:
        t = ct.load(x, (i, pid), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(t.astype(ct.float32), axis=0, keepdims=True)
        i += 1
    ct.store(col_sums, (0, pid), acc.astype(col_sums.dtype))


def launch(stream, x, row_sums, col_sums):
    tm, tn = 16, 32
    m, n = x.shape
    ct.launch(stream, (ct.cdiv(m, tm),), row_sum_kernel, (x, row_sums, tm, tn))
    ct.launch(stream, (ct.cdiv(n, tn),), col_sum_kernel, (x, col_sums, tm, tn))
