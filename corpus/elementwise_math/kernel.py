import cuda.tile as ct


@ct.kernel
def math_kernel(x, y, out_explog, out_trig, out_round, out_misc, TILE: ct.Constant[int]):
    """A tour of the unary/binary math functions on float32 data.

    x is strictly positive (so log, sqrt and rsqrt are defined); y has both signs.
    """
    pid = ct.bid(0)
    xt = ct.load(x, (pid,), (TILE,))
    yt = ct.load(y, (pid,), (TILE,))

    explog = ct.exp(-xt) + ct.log(xt) + ct.sqrt(xt) + ct.rsqrt(xt)
    ct.store(out_explog, (pid,), explog)

    trig = ct.sin(yt) * ct.cos(xt) + ct.tanh(yt) + ct.atan2(yt, xt - 1.0)
    ct.store(out_trig, (pid,), trig)

    rounded = ct.floor(yt) * 10.0 + ct.ceil(xt) + ct.abs(yt)
    ct.store(out_round, (pid,), rounded)

    # sqrt of a negative number is NaN; isnan + where turns those lanes into -1.
    root = ct.sqrt(yt)
    safe_root = ct.where(ct.isnan(root), -1.0, root)
    misc = (
        ct.exp2(yt) + ct.log2(xt) + safe_root + ct.maximum(xt, yt) * 0.5 - ct.minimum(xt, yt) * 0.25
    )
    ct.store(out_misc, (pid,), misc)


def launch(stream, x, y, out_explog, out_trig, out_round, out_misc):
    tile = 256
    grid = (ct.cdiv(x.shape[0], tile),)
    ct.launch(stream, grid, math_kernel, (x, y, out_explog, out_trig, out_round, out_misc, tile))
