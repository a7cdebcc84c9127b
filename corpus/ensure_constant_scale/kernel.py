import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def pow2_scale_kernel(x, y, TILE: ConstInt, SHIFT: ConstInt):
    """y = x * 2**SHIFT, then nudged toward zero by one unit when the scale is large.

    ct.ensure_constant documents (and checks) that the scale and the branch condition are
    compile-time values, so only one branch is compiled per SHIFT.
    """
    scale = ct.ensure_constant(2**SHIFT)
    t = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    if ct.ensure_constant(SHIFT > 2):
        r = t * scale - ct.where(t > 0, 1.0, -1.0)
    else:
        r = t * scale
    ct.store(y, (ct.bid(0),), r.astype(y.dtype))


def launch(stream, x, y, shift):
    tile = 128
    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), pow2_scale_kernel, (x, y, tile, shift))
