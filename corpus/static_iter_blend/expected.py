# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Blend three stacked signals with per-signal weights, the way cuTile's own tests use
`ct.static_iter`: the tiles of one column block are gathered into a tuple by a comprehension,
a weighted sum runs over `zip(weights, tiles)` and each output row over `enumerate`. cuTile
unrolls these loops while compiling; so does the translation. x and out are (3, n)."""

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
)

WEIGHTS = (0.25, -1.0, 2.0)


@triton.jit(do_not_specialize=["grid_x"])
def blend_signals(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    T: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            b = block_x
            offs0 = tl.arange(0, 1).to(OFFSET_DTYPE)
            offs_b = tl.cast(b, OFFSET_DTYPE) * T + tl.arange(0, T)
            mask_x = (offs0[:, None] < x_shape0) & (offs_b[None, :] < x_shape1)
            offs0_2 = 1 + tl.arange(0, 1).to(OFFSET_DTYPE)
            mask_x_2 = (offs0_2[:, None] < x_shape0) & (offs_b[None, :] < x_shape1)
            offs0_3 = 2 * 1 + tl.arange(0, 1).to(OFFSET_DTYPE)
            mask_x_3 = (offs0_3[:, None] < x_shape0) & (offs_b[None, :] < x_shape1)
            rows = (
                tl.load(
                    x_ptr + offs0[:, None] * x_stride0 + offs_b[None, :] * x_stride1,
                    mask=mask_x,
                    other=0.0,
                ),
                tl.load(
                    x_ptr + offs0_2[:, None] * x_stride0 + offs_b[None, :] * x_stride1,
                    mask=mask_x_2,
                    other=0.0,
                ),
                tl.load(
                    x_ptr + offs0_3[:, None] * x_stride0 + offs_b[None, :] * x_stride1,
                    mask=mask_x_3,
                    other=0.0,
                ),
            )
            mixed = tl.full((1, T), 0.0, tl.float32)
            # ct.static_iter: 3 iterations, unrolled
            r = rows[0]
            mixed = mixed + r.to(tl.float32) * 0.25
            r = rows[1]
            mixed = mixed + r.to(tl.float32) * -1.0
            r = rows[2]
            mixed = mixed + r.to(tl.float32) * 2.0
            # ct.static_iter: 3 iterations, unrolled
            r = rows[0]
            # row k: the blend, minus what signal k alone contributed
            mask_out = (offs0[:, None] < out_shape0) & (offs_b[None, :] < out_shape1)
            tl.store(
                out_ptr + offs0[:, None] * out_stride0 + offs_b[None, :] * out_stride1,
                (mixed - r.to(tl.float32) * 0.25).to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )
            r = rows[1]
            # row k: the blend, minus what signal k alone contributed
            mask_out_2 = (offs0_2[:, None] < out_shape0) & (offs_b[None, :] < out_shape1)
            tl.store(
                out_ptr + offs0_2[:, None] * out_stride0 + offs_b[None, :] * out_stride1,
                (mixed - r.to(tl.float32) * -1.0).to(out_ptr.dtype.element_ty),
                mask=mask_out_2,
            )
            r = rows[2]
            # row k: the blend, minus what signal k alone contributed
            mask_out_3 = (offs0_3[:, None] < out_shape0) & (offs_b[None, :] < out_shape1)
            tl.store(
                out_ptr + offs0_3[:, None] * out_stride0 + offs_b[None, :] * out_stride1,
                (mixed - r.to(tl.float32) * 2.0).to(out_ptr.dtype.element_ty),
                mask=mask_out_3,
            )


def launch_blend_signals(stream, grid, x, out, T, *, hints=None):
    """`ct.launch(stream, grid, blend_signals, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // T))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), T, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        T,
        num_ctas,
    )
    if _launch_known(blend_signals, known, stream, grid, args):
        return
    _check_ndim("blend_signals", "x", x, 2)
    _check_ndim("blend_signals", "out", out, 2)
    num_warps = min(max(T // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = blend_signals[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(blend_signals, known, compiled, args, constexprs)


def launch(stream, x, out):
    launch_blend_signals(stream, (triton.cdiv(x.shape[1], 64),), x, out, 64)
