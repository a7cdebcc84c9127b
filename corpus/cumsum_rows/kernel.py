import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def cumsum_rows_kernel(x, out, TM: ConstInt, TN: ConstInt):
    """out[i, j] = x[i, 0] + x[i, 1] + ... + x[i, j], accumulated in float32.

    A block owns TM rows and walks their columns in TN-wide chunks: each chunk is scanned
    with ct.cumsum and shifted by the running total of the chunks before it, which is the
    last column of the previous scanned chunk. Zero padding past the last column leaves
    the sums alone.
    """
    pid = ct.bid(0)
    carry = ct.zeros((TM, 1), dtype=ct.float32)
    for j in range(ct.num_tiles(x, 1, (TM, TN))):
        t = ct.load(x, (pid, j), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
        s = ct.cumsum(t.astype(ct.float32), axis=1) + carry
        ct.store(out, (pid, j), s.astype(out.dtype))
        carry = ct.extract(s, (0, TN - 1), (TM, 1))


def launch(stream, x, out):
    tm, tn = 16, 32
    ct.launch(stream, (ct.cdiv(x.shape[0], tm),), cumsum_rows_kernel, (x, out, tm, tn))
