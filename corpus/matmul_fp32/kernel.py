import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def matmul_fp32_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C = A @ B entirely in float32 (true fp32 products: no TF32 shortcut).

    A 1-D grid is unfolded row-major into (pid_m, pid_n) output tiles.
    """
    pid = ct.bid(0)
    n_tiles_n = ct.cdiv(c.shape[1], TN)
    pid_m = pid // n_tiles_n
    pid_n = pid % n_tiles_n
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(a.shape[1], TK)):
        a_tile = ct.load(a, (pid_m, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, (k, pid_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a_tile, b_tile, acc)
    ct.store(c, (pid_m, pid_n), acc)


def launch(stream, a, b, c):
    tm, tn, tk = 16, 32, 16
    m, n = c.shape
    grid = (ct.cdiv(m, tm) * ct.cdiv(n, tn),)
    ct.launch(stream, grid, matmul_fp32_kernel, (a, b, c, tm, tn, tk))
