import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def matmul_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C = A @ B with half-precision operands and a float32 accumulator.

    One (TM, TN) output tile per block, marching over K in TK steps. The K tail is
    zero-padded on both operands so the extra products are exactly zero.
    """
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    num_k = ct.num_tiles(a, axis=1, shape=(TM, TK))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(num_k):
        a_tile = ct.load(a, (pid_m, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, (k, pid_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a_tile, b_tile, acc)
    ct.store(c, (pid_m, pid_n), acc.astype(c.dtype))


def launch(stream, a, b, c):
    tm, tn, tk = 128, 128, 64
    m, _ = a.shape
    _, n = b.shape
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(stream, grid, matmul_kernel, (a, b, c, tm, tn, tk))
