# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""For each row, the column of the first value above a threshold (or -1): a search loop that
stops with `break` and skips empty tiles with `continue`."""

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
    _scalar_key,
)


@triton.jit
def _store_tile_1d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    ptrs = ptr + offs0 * stride[0]
    mask = offs0 < shape[0] if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def first_match(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_stride0,
    threshold,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_shape0 = out_shape0 // out_div[1] * out_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    row = tl.program_id(0)
    found = -1
    j = 0
    _broke_0 = 0
    while (j < tl.cdiv(x_shape1, TN)) & (_broke_0 == 0):
        _skip_0 = 0
        offs_x0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
        offs_x1 = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        v = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=float("-inf"),
        )
        hit = v > threshold
        if tl.max(hit.to(tl.int32)) == 0:
            _skip_0 = 1  # nothing in this tile
        if _skip_0 == 0:
            cols = tl.arange(0, TN)[None, :] + j * TN
            # smallest matching column: non-matching lanes get a huge value
            found = tl.min(tl.where(hit, cols, 2**30))
            _broke_0 = 1
        j += 1
    _store_tile_1d(
        out_ptr,
        (out_shape0,),
        (out_stride0,),
        (row,),
        tl.full((1,), found, out_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_first_match(stream, grid, x, out, threshold, TN, *, hints=None):
    """`ct.launch(stream, grid, first_match, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), threshold, TN)
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
        _scalar_key(threshold),
        TN,
        num_ctas,
    )
    if _launch_known(first_match, known, stream, grid, args):
        return
    _check_ndim("first_match", "x", x, 2)
    _check_ndim("first_match", "out", out, 1)
    num_warps = min(max(TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = first_match[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(first_match, known, compiled, args, constexprs)


def launch(stream, x, out, threshold):
    launch_first_match(stream, (x.shape[0],), x, out, threshold, 32)
