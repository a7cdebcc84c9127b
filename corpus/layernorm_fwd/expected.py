# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _as_tensor,
    _by_target,
    _check_ndim,
    _grid,
    _launch_known,
    _multiples,
    _needs_int64,
    _on_stream,
    _remember_launch,
    _row_tiles,
    _row_warps,
    _scalar_key,
)


@triton.jit
def layernorm_fwd_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    weight_ptr,
    weight_shape0,
    weight_stride0,
    bias_ptr,
    bias_shape0,
    bias_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    mean_out_ptr,
    mean_out_shape0,
    mean_out_stride0,
    rstd_out_ptr,
    rstd_out_shape0,
    rstd_out_stride0,
    eps,
    TILE_N: tl.constexpr,
    x_div: tl.constexpr,
    weight_div: tl.constexpr,
    bias_div: tl.constexpr,
    out_div: tl.constexpr,
    mean_out_div: tl.constexpr,
    rstd_out_div: tl.constexpr,
    ROW_TILES: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """LayerNorm over the last axis, one row per block, streaming the row in TILE_N chunks.

    Three passes over the row: mean, variance, then normalise + affine. Also writes the
    per-row mean and 1/std (float32) as a backward pass would need them.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    weight_stride0 = weight_stride0 // weight_div[0] * weight_div[0]
    weight_shape0 = weight_shape0 // weight_div[1] * weight_div[1]
    bias_stride0 = bias_stride0 // bias_div[0] * bias_div[0]
    bias_shape0 = bias_shape0 // bias_div[1] * bias_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    mean_out_stride0 = mean_out_stride0 // mean_out_div[0] * mean_out_div[0]
    mean_out_shape0 = mean_out_shape0 // mean_out_div[1] * mean_out_div[1]
    rstd_out_stride0 = rstd_out_stride0 // rstd_out_div[0] * rstd_out_div[0]
    rstd_out_shape0 = rstd_out_shape0 // rstd_out_div[1] * rstd_out_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    row = tl.program_id(0)
    n = x_shape1
    num_chunks = tl.cdiv(n, TILE_N)

    # Pass 1: mean. Zero padding keeps the tail out of the sum.
    acc = tl.zeros((1, TILE_N), dtype=tl.float32)
    if ROW_TILES:  # the row's tiles stay in registers (launcher)
        x_row = ()
        for j in tl.static_range(ROW_TILES):
            offs_x0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_x1 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
            x_tile = tl.load(
                x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
                mask=mask_x,
                other=0.0,
            )
            x_row = x_row + (x_tile,)
            xt = x_tile
            acc = acc + xt.to(tl.float32)
    else:
        for j in range(num_chunks):
            offs_x0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_x1 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
            x_tile = tl.load(
                x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
                mask=mask_x,
                other=0.0,
            )
            xt = x_tile
            acc = acc + xt.to(tl.float32)
    mean = tl.sum(acc, axis=1, keep_dims=True) / n  # (1, 1)

    # Pass 2: variance. (x - mean) is not zero on padded lanes, so mask them explicitly.
    acc = tl.zeros((1, TILE_N), dtype=tl.float32)
    if ROW_TILES:  # the row's tiles stay in registers (launcher)
        for j in tl.static_range(ROW_TILES):
            x_tile_2 = x_row[j]
            xt = x_tile_2
            cols = j * TILE_N + tl.arange(0, TILE_N)
            d = tl.where(cols[None, :] < n, xt.to(tl.float32) - mean, 0.0)
            acc = acc + d * d
    else:
        for j in range(num_chunks):
            offs_x0_2 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_x1_2 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_x_2 = (offs_x0_2[:, None] < x_shape0) & (offs_x1_2[None, :] < x_shape1)
            x_tile_2 = tl.load(
                x_ptr + offs_x0_2[:, None] * x_stride0 + offs_x1_2[None, :] * x_stride1,
                mask=mask_x_2,
                other=0.0,
            )
            xt = x_tile_2
            cols = j * TILE_N + tl.arange(0, TILE_N)
            d = tl.where(cols[None, :] < n, xt.to(tl.float32) - mean, 0.0)
            acc = acc + d * d
    var = tl.sum(acc, axis=1, keep_dims=True) / n
    rstd = tl.rsqrt(var + eps)

    # Pass 3: normalise and apply the affine transform.
    if ROW_TILES:  # the row's tiles stay in registers (launcher)
        for j in tl.static_range(ROW_TILES):
            x_tile_3 = x_row[j]
            xt = x_tile_3
            offs_weight0 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_weight = offs_weight0 < weight_shape0
            w = tl.load(weight_ptr + offs_weight0 * weight_stride0, mask=mask_weight, other=0.0)
            offs_bias0 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_bias = offs_bias0 < bias_shape0
            b = tl.load(bias_ptr + offs_bias0 * bias_stride0, mask=mask_bias, other=0.0)
            y = (xt.to(tl.float32) - mean) * rstd * w.to(tl.float32) + b.to(tl.float32)
            offs_out0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_out1 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
                y.to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )
    else:
        for j in range(num_chunks):
            offs_x0_3 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_x1_3 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_x_3 = (offs_x0_3[:, None] < x_shape0) & (offs_x1_3[None, :] < x_shape1)
            x_tile_3 = tl.load(
                x_ptr + offs_x0_3[:, None] * x_stride0 + offs_x1_3[None, :] * x_stride1,
                mask=mask_x_3,
                other=0.0,
            )
            xt = x_tile_3
            offs_weight0 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_weight = offs_weight0 < weight_shape0
            w = tl.load(weight_ptr + offs_weight0 * weight_stride0, mask=mask_weight, other=0.0)
            offs_bias0 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_bias = offs_bias0 < bias_shape0
            b = tl.load(bias_ptr + offs_bias0 * bias_stride0, mask=mask_bias, other=0.0)
            y = (xt.to(tl.float32) - mean) * rstd * w.to(tl.float32) + b.to(tl.float32)
            offs_out0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_out1 = tl.cast(j, OFFSET_DTYPE) * TILE_N + tl.arange(0, TILE_N)
            mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
                y.to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )

    offs_row = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
    mask_mean_out = offs_row < mean_out_shape0
    tl.store(
        mean_out_ptr + offs_row * mean_out_stride0,
        tl.reshape(mean, (1,)).to(mean_out_ptr.dtype.element_ty),
        mask=mask_mean_out,
    )
    mask_rstd_out = offs_row < rstd_out_shape0
    tl.store(
        rstd_out_ptr + offs_row * rstd_out_stride0,
        tl.reshape(rstd, (1,)).to(rstd_out_ptr.dtype.element_ty),
        mask=mask_rstd_out,
    )


def launch_layernorm_fwd_kernel(
    stream, grid, x, weight, bias, out, mean_out, rstd_out, eps, TILE_N, *, hints=None
):
    """`ct.launch(stream, grid, layernorm_fwd_kernel, args)`; `hints`: cuTile kernel hints."""
    x, weight, bias, out = _as_tensor(x), _as_tensor(weight), _as_tensor(bias), _as_tensor(out)
    mean_out, rstd_out = _as_tensor(mean_out), _as_tensor(rstd_out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # rows kept in registers where they fit: per group of loops, (tiles or 0, bytes kept)
    row_tiles = (
        _row_tiles(
            triton.cdiv(x.shape[1], TILE_N),
            x.element_size() * TILE_N,
            ((x, (weight, bias, out, mean_out, rstd_out)),),
        ),
    )
    args = (x, *x.shape, *x.stride(), weight, *weight.shape, *weight.stride())
    args += (bias, *bias.shape, *bias.stride(), out, *out.shape, *out.stride())
    args += (
        mean_out,
        *mean_out.shape,
        *mean_out.stride(),
    )
    args += (rstd_out, *rstd_out.shape, *rstd_out.stride(), eps, TILE_N)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        weight.dtype,
        weight.data_ptr() & 15,
        weight.shape,
        weight.stride(),
        bias.dtype,
        bias.data_ptr() & 15,
        bias.shape,
        bias.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        mean_out.dtype,
        mean_out.data_ptr() & 15,
        mean_out.shape,
        mean_out.stride(),
        rstd_out.dtype,
        rstd_out.data_ptr() & 15,
        rstd_out.shape,
        rstd_out.stride(),
        _scalar_key(eps),
        TILE_N,
        num_ctas,
        row_tiles,
    )
    if _launch_known(layernorm_fwd_kernel, known, stream, grid, args):
        return
    _check_ndim("layernorm_fwd_kernel", "x", x, 2)
    _check_ndim("layernorm_fwd_kernel", "weight", weight, 1)
    _check_ndim("layernorm_fwd_kernel", "bias", bias, 1)
    _check_ndim("layernorm_fwd_kernel", "out", out, 2)
    _check_ndim("layernorm_fwd_kernel", "mean_out", mean_out, 1)
    _check_ndim("layernorm_fwd_kernel", "rstd_out", rstd_out, 1)
    num_warps = min(max(TILE_N // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    num_warps = _row_warps(num_warps, row_tiles)
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        weight_div=_multiples(weight.shape, weight.stride()),
        bias_div=_multiples(bias.shape, bias.stride()),
        out_div=_multiples(out.shape, out.stride()),
        mean_out_div=_multiples(mean_out.shape, mean_out.stride()),
        rstd_out_div=_multiples(rstd_out.shape, rstd_out.stride()),
        ROW_TILES=row_tiles[0][0],
        USE_INT64=_needs_int64(x, weight, bias, out, mean_out, rstd_out),
    )
    with _on_stream(stream):
        compiled = layernorm_fwd_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(layernorm_fwd_kernel, known, compiled, args, constexprs)


def launch(stream, x, weight, bias, out, mean, rstd, eps):
    tile_n = 128
    launch_layernorm_fwd_kernel(
        stream, (x.shape[0],), x, weight, bias, out, mean, rstd, eps, tile_n
    )
