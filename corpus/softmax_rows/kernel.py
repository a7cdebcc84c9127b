import cuda.tile as ct


@ct.kernel
def softmax_kernel(x, out, BLOCK_N: ct.Constant[int]):
    """Row-wise softmax; one block per row, the whole row held in a single tile.

    BLOCK_N is the row length rounded up to a power of two. Padding the tail with -inf
    makes the padded lanes vanish: they never win the max and exp(-inf) == 0 adds nothing
    to the denominator.
    """
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, BLOCK_N), padding_mode=ct.PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    row_max = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - row_max)
    denom = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, (row, 0), (e / denom).astype(out.dtype))


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def launch(stream, x, out):
    m, n = x.shape
    block_n = next_pow2(n)
    ct.launch(stream, (m,), softmax_kernel, (x, out, block_n))
