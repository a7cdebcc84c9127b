import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def scale_rows_kernel(x, scale, bias, out, HAS_BIAS: ConstBool, TM: ConstInt, TN: ConstInt):
    """out = x * scale[:, None] (+ bias[None, :] when HAS_BIAS; `bias` is not read otherwise)."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    s = ct.load(scale, index=(bm,), shape=(TM,), padding_mode=ZERO)
    t = t * ct.reshape(s, (TM, 1))
    if HAS_BIAS:
        b = ct.load(bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
        t = t + ct.reshape(b, (1, TN))
    ct.store(out, index=(bm, bn), tile=t)


@ct.kernel
def row_sums_simple(x, out, TM: ConstInt, TN: ConstInt):
    """out[i] = sum of row i; one block per TM rows."""
    bm = ct.bid(0)
    acc = ct.zeros((TM,), dtype=ct.float32)
    for j in range(ct.cdiv(x.shape[1], TN)):
        t = ct.load(x, index=(bm, j), shape=(TM, TN), padding_mode=ZERO)
        acc = acc + ct.sum(ct.astype(t, ct.float32), axis=1)
    ct.store(out, index=(bm,), tile=acc)


@ct.kernel
def row_sums_persistent(x, out, TM: ConstInt, TN: ConstInt):
    """The same sums, each block walking row tiles bid, bid + num_blocks, ..."""
    n_row_tiles = ct.cdiv(x.shape[0], TM)
    for bm in range(ct.bid(0), n_row_tiles, ct.num_blocks(0)):
        acc = ct.zeros((TM,), dtype=ct.float32)
        for j in range(ct.cdiv(x.shape[1], TN)):
            t = ct.load(x, index=(bm, j), shape=(TM, TN), padding_mode=ZERO)
            acc = acc + ct.sum(ct.astype(t, ct.float32), axis=1)
        ct.store(out, index=(bm,), tile=acc)
