import cuda.tile as ct


@ct.kernel
def rmsnorm_kernel(x, weight, out, eps, TM: ct.Constant[int], TILE_N: ct.Constant[int]):
    """RMSNorm: out = x / sqrt(mean(x^2) + eps) * weight.

    Each block normalises TM rows at once; TILE_N >= row length, so a row is one tile.
    Zero padding makes the padded lanes contribute nothing to the sum of squares.
    """
    pid = ct.bid(0)
    n = x.shape[1]
    xt = ct.load(x, (pid, 0), (TM, TILE_N), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    w = ct.load(weight, (0,), (TILE_N,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    mean_sq = ct.sum(xt * xt, axis=1, keepdims=True) / n  # (TM, 1)
    y = xt * ct.rsqrt(mean_sq + eps) * w
    ct.store(out, (pid, 0), y.astype(out.dtype))


def launch(stream, x, weight, out, eps):
    m, n = x.shape
    tm = 8
    tile_n = 1 << (n - 1).bit_length()
    ct.launch(stream, (ct.cdiv(m, tm),), rmsnorm_kernel, (x, weight, out, eps, tm, tile_n))
