import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def rope_bshd(x, cos, sin, out, TS: ConstInt, HALF: ConstInt):
    """Rotary embedding, rotate-half form, of x shaped (batch, seq, heads, head_dim).

    Block (s, b * H + h) rotates TS positions of one head: the first and second halves of the
    head dimension are loaded as two tiles (tile index 0 and 1 of width HALF along the last
    axis), so the pair (x1, x2) becomes (x1 cos - x2 sin, x2 cos + x1 sin). Sequence lengths
    need not be multiples of TS: the last tile is partial and its stores are masked.
    """
    s = ct.bid(0)
    heads = x.shape[2]
    b = ct.bid(1) // heads
    h = ct.bid(1) % heads
    x1 = ct.load(x, (b, s, h, 0), (1, TS, 1, HALF), padding_mode=ct.PaddingMode.ZERO)
    x2 = ct.load(x, (b, s, h, 1), (1, TS, 1, HALF), padding_mode=ct.PaddingMode.ZERO)
    c = ct.load(cos, (s, 0), (TS, HALF), padding_mode=ct.PaddingMode.ZERO).reshape((1, TS, 1, HALF))
    sn = ct.load(sin, (s, 0), (TS, HALF), padding_mode=ct.PaddingMode.ZERO).reshape(
        (1, TS, 1, HALF)
    )
    a = x1.astype(ct.float32)
    bb = x2.astype(ct.float32)
    ct.store(out, (b, s, h, 0), (a * c - bb * sn).astype(out.dtype))
    ct.store(out, (b, s, h, 1), (bb * c + a * sn).astype(out.dtype))


def launch(stream, x, cos, sin, out):
    batch, seq, heads, d = x.shape
    ts = 16
    grid = (ct.cdiv(seq, ts), batch * heads, 1)
    ct.launch(stream, grid, rope_bshd, (x, cos, sin, out, ts, d // 2))
