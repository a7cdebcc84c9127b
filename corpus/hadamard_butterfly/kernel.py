import math

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def hadamard_kernel(x, out, scale, TM: ConstInt, N: ConstInt, LOG_N: ConstInt):
    """out[i, :] = scale * H_N @ x[i, :], the (Sylvester-ordered) Walsh-Hadamard transform of
    each row, N = 2**LOG_N.

    Each of the LOG_N butterfly stages pairs element i with element i + N/2 and writes their
    sum and difference to positions 2i and 2i + 1: the row is split into halves (reshape +
    extract), the butterflies are stacked (cat) and interleaved (permute + reshape). Every
    stage has the same shape, so the stages are a plain loop.
    """
    pid = ct.bid(0)
    v = ct.load(x, (pid, 0), (TM, N), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    for stage in range(LOG_N):
        halves = ct.reshape(v, (TM, 2, N // 2))
        lo = ct.extract(halves, (0, 0, 0), (TM, 1, N // 2))
        hi = ct.extract(halves, (0, 1, 0), (TM, 1, N // 2))
        pairs = ct.cat((lo + hi, lo - hi), 1)
        v = ct.reshape(ct.permute(pairs, (0, 2, 1)), (TM, N))
    ct.store(out, (pid, 0), (v * scale).astype(out.dtype))


def launch(stream, x, out):
    rows, n = x.shape
    log_n = n.bit_length() - 1
    assert n == 1 << log_n, "the transform length must be a power of two"
    tm = 8
    ct.launch(
        stream, (ct.cdiv(rows, tm),), hadamard_kernel, (x, out, 1.0 / math.sqrt(n), tm, n, log_n)
    )
