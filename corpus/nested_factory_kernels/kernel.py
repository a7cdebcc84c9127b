import cuda.tile as ct

ConstInt = ct.Constant[int]


def make_residual_kernel(tile_n, alpha):
    """A kernel factory: `tile_n` and `alpha` are closure constants of the kernel it returns."""
    zero_pad = ct.PaddingMode.ZERO

    @ct.kernel
    def residual(x, y, out, TM: ConstInt):
        """out = x + alpha * y, accumulated in float32."""
        row, col = ct.bid(0), ct.bid(1)
        xt = ct.load(x, index=(row, col), shape=(TM, tile_n), padding_mode=zero_pad)
        yt = ct.load(y, index=(row, col), shape=(TM, tile_n), padding_mode=zero_pad)
        acc = xt.astype(ct.float32) + alpha * yt.astype(ct.float32)
        ct.store(out, index=(row, col), tile=acc.astype(out.dtype))

    return residual


def launch(stream, x, y, out, clipped):
    tm, tn = 16, 32
    residual = make_residual_kernel(tn, 0.5)
    grid = (ct.cdiv(x.shape[0], tm), ct.cdiv(x.shape[1], tn))
    ct.launch(stream, grid, residual, (x, y, out, tm))

    limit = 1.25
    block = 64

    # a kernel defined inside the host function, the way a test defines one
    @ct.kernel
    def clip_rows(src, dst):
        i, j = ct.bid(0), ct.bid(1)
        t = ct.load(src, index=(i, j), shape=(1, block))
        t = ct.where(t > limit, limit, t)
        t = ct.where(t < -limit, -limit, t)
        ct.store(dst, index=(i, j), tile=t)

    ct.launch(stream, (out.shape[0], ct.cdiv(out.shape[1], block)), clip_rows, (out, clipped))
