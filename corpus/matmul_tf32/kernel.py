import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def matmul_tf32_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C = A @ B for float32 inputs, opting in to TF32 tensor-core math.

    Converting both operands with astype(ct.tfloat32) rounds them to a 10-bit mantissa;
    the accumulator stays float32.
    """
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(b, 0, (TK, TN))):
        a_tile = ct.load(a, (pid_m, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, (k, pid_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a_tile.astype(ct.tfloat32), b_tile.astype(ct.tfloat32), acc)
    ct.store(c, (pid_m, pid_n), acc)


def launch(stream, a, b, c):
    tm, tn, tk = 32, 32, 16
    m, n = c.shape
    ct.launch(stream, (ct.cdiv(m, tm), ct.cdiv(n, tn)), matmul_tf32_kernel, (a, b, c, tm, tn, tk))
