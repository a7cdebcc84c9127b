import cuda.tile as ct

from .helpers import row_scale

ConstInt = ct.Constant[int]


@ct.kernel
def scaled_add_rows(x, y, w, out, alpha: float, TM: ConstInt, TN: ConstInt):
    """out[i, :] = x[i, :] * row_scale(w[i]) + y[i, :], on one (TM, TN) block."""
    i, j = ct.bid(0), ct.bid(1)
    pad = ct.PaddingMode.ZERO
    xt = ct.load(x, (i, j), (TM, TN), padding_mode=pad).astype(ct.float32)
    yt = ct.load(y, (i, j), (TM, TN), padding_mode=pad).astype(ct.float32)
    wt = ct.load(w, (i,), (TM,), padding_mode=pad)
    ct.store(out, (i, j), (xt * row_scale(wt, alpha, TM) + yt).astype(out.dtype))
