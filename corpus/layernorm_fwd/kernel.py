import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def layernorm_fwd_kernel(x, weight, bias, out, mean_out, rstd_out, eps, TILE_N: ConstInt):
    """LayerNorm over the last axis, one row per block, streaming the row in TILE_N chunks.

    Three passes over the row: mean, variance, then normalise + affine. Also writes the
    per-row mean and 1/std (float32) as a backward pass would need them.
    """
    row = ct.bid(0)
    n = x.shape[1]
    num_chunks = ct.cdiv(n, TILE_N)

    # Pass 1: mean. Zero padding keeps the tail out of the sum.
    acc = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(num_chunks):
        xt = ct.load(x, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + xt.astype(ct.float32)
    mean = ct.sum(acc, axis=1, keepdims=True) / n  # (1, 1)

    # Pass 2: variance. (x - mean) is not zero on padded lanes, so mask them explicitly.
    acc = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(num_chunks):
        xt = ct.load(x, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        cols = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
        d = ct.where(cols[None, :] < n, xt.astype(ct.float32) - mean, 0.0)
        acc = acc + d * d
    var = ct.sum(acc, axis=1, keepdims=True) / n
    rstd = ct.rsqrt(var + eps)

    # Pass 3: normalise and apply the affine transform.
    for j in range(num_chunks):
        xt = ct.load(x, (row, j), (1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(weight, (j,), (TILE_N,), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(bias, (j,), (TILE_N,), padding_mode=ct.PaddingMode.ZERO)
        y = (xt.astype(ct.float32) - mean) * rstd * w.astype(ct.float32) + b.astype(ct.float32)
        ct.store(out, (row, j), y.astype(out.dtype))

    ct.store(mean_out, (row,), mean.reshape((1,)))
    ct.store(rstd_out, (row,), rstd.reshape((1,)))


def launch(stream, x, weight, bias, out, mean, rstd, eps):
    tile_n = 128
    ct.launch(
        stream, (x.shape[0],), layernorm_fwd_kernel, (x, weight, bias, out, mean, rstd, eps, tile_n)
    )
