import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def bmm_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Batched C[i] = A[i] @ B[i] on 3-D arrays, with 3-D tiles and a 3-D mma.

    Grid: (M tiles, N tiles, batch). Every tile carries a leading batch axis of size 1,
    and ct.mma multiplies over the last two axes.
    """
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    batch = ct.bid(2)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 2, (1, TM, TK))):
        a_tile = ct.load(a, (batch, pid_m, k), (1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, (batch, k, pid_n), (1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a_tile, b_tile, acc)
    ct.store(c, (batch, pid_m, pid_n), acc.astype(c.dtype))


def launch(stream, a, b, c):
    tm, tn, tk = 16, 32, 32
    nb, m, _ = a.shape
    n = b.shape[2]
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), nb)
    ct.launch(stream, grid, bmm_kernel, (a, b, c, tm, tn, tk))
