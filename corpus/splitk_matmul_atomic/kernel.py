import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def splitk_matmul_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt, SPLIT_K: ConstInt):
    """C += A @ B with K split SPLIT_K ways: block (m, n, s) multiplies the K tiles
    s, s + SPLIT_K, s + 2 * SPLIT_K, ... and adds its partial (TM, TN) product into C with
    atomic adds, so C must hold zeros before the launch. Elements of the partial tile
    that fall outside C are out of bounds for the atomic and are dropped.
    """
    pid_m, pid_n, pid_k = ct.bid(0), ct.bid(1), ct.bid(2)
    m, n = c.shape
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(pid_k, ct.cdiv(a.shape[1], TK), SPLIT_K):
        a_tile = ct.load(a, (pid_m, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, (k, pid_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a_tile, b_tile, acc)
    rows = pid_m * TM + ct.arange(TM, dtype=ct.int32)
    cols = pid_n * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(c, (rows[:, None], cols[None, :]), acc, memory_order=ct.MemoryOrder.RELAXED)


def launch(stream, a, b, c):
    tm, tn, tk, split_k = 16, 16, 16, 4
    m, n = c.shape
    c.zero_()
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), split_k)
    ct.launch(stream, grid, splitk_matmul_kernel, (a, b, c, tm, tn, tk, split_k))
