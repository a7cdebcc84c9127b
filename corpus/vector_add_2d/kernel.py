import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def add_2d_kernel(a, b, out, TM: ConstInt, TN: ConstInt):
    """out = a + b for 2-D arrays, one (TM, TN) tile per block on a 2-D grid."""
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    a_tile = ct.load(a, (pid_m, pid_n), (TM, TN))
    b_tile = ct.load(b, (pid_m, pid_n), (TM, TN))
    ct.store(out, (pid_m, pid_n), a_tile + b_tile)


def launch(stream, a, b, out):
    tm, tn = 32, 64
    m, n = a.shape
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(stream, grid, add_2d_kernel, (a, b, out, tm, tn))
