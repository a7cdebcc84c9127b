# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Sliding-window maxima over each row, with overlapping windows described by a tiled view with
traversal steps: window j of a row covers columns [j*STEP, j*STEP + W), for every origin j*STEP
inside the row (`out` has one column per window)."""

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


@triton.jit
def _load_window_2d(
    ptr,
    shape0,
    shape1,
    stride0,
    stride1,
    start0,
    start1,
    BLOCK0: tl.constexpr,
    BLOCK1: tl.constexpr,
    USE_INT64: tl.constexpr,
    PADDING: tl.constexpr = None,
    CHECK_BOUNDS: tl.constexpr = True,
):
    """TiledView.load with traversal steps: the BLOCK-shaped window whose first element is at
    `start` (index * step: tiles may overlap or leave gaps)."""
    offs0 = (tl.cast(start0, tl.int64) if USE_INT64 else start0) + tl.arange(0, BLOCK0)
    offs1 = (tl.cast(start1, tl.int64) if USE_INT64 else start1) + tl.arange(0, BLOCK1)
    ptrs = ptr + offs0[:, None] * stride0 + offs1[None, :] * stride1
    if CHECK_BOUNDS:
        return tl.load(
            ptrs, mask=(offs0[:, None] < shape0) & (offs1[None, :] < shape1), other=PADDING
        )
    else:
        return tl.load(ptrs)


@triton.jit
def _store_tile_1d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    ptrs = ptr + offs0 * stride[0]
    mask = offs0 < shape[0] if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def window_max(
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
    counts_ptr,
    counts_shape0,
    counts_stride0,
    W: tl.constexpr,
    STEP: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    counts_div: tl.constexpr,
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
    counts_stride0 = counts_stride0 // counts_div[0] * counts_div[0]
    counts_shape0 = counts_shape0 // counts_div[1] * counts_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    row = tl.program_id(0)
    n = tl.cdiv(x_shape1, STEP)
    for j in range(n):
        m = tl.max(
            _load_window_2d(
                x_ptr,
                x_shape0,
                x_shape1,
                x_stride0,
                x_stride1,
                row,
                j * STEP,
                1,
                W,
                USE_INT64,
                PADDING=float("-inf"),
            ),
            axis=1,
            keep_dims=True,
        )
        offs_out0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
        offs_out1 = tl.cast(j, OFFSET_DTYPE) + tl.arange(0, 1)
        mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
        tl.store(
            out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
            m.to(out_ptr.dtype.element_ty),
            mask=mask_out,
        )
    _store_tile_1d(
        counts_ptr,
        (counts_shape0,),
        (counts_stride0,),
        (row,),
        tl.full((1,), n, counts_ptr.dtype.element_ty),
        USE_INT64,
    )  # how many windows the view has (checks num_tiles too)


def launch_window_max(stream, grid, x, out, counts, W, STEP, *, hints=None):
    """`ct.launch(stream, grid, window_max, args)`; `hints`: cuTile kernel hints."""
    x, out, counts = _as_tensor(x), _as_tensor(out), _as_tensor(counts)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride())
    args += (counts, *counts.shape, *counts.stride(), W, STEP)
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
        counts.dtype,
        counts.data_ptr() & 15,
        counts.shape,
        counts.stride(),
        W,
        STEP,
        num_ctas,
    )
    if _launch_known(window_max, known, stream, grid, args):
        return
    _check_ndim("window_max", "x", x, 2)
    _check_ndim("window_max", "out", out, 2)
    _check_ndim("window_max", "counts", counts, 1)
    num_warps = min(max(W // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        counts_div=_multiples(counts.shape, counts.stride()),
        USE_INT64=_needs_int64(x, out, counts),
    )
    with _on_stream(stream):
        compiled = window_max[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(window_max, known, compiled, args, constexprs)


def launch(stream, x, out, counts):
    w, step = 16, 5
    launch_window_max(stream, (x.shape[0],), x, out, counts, w, step)
