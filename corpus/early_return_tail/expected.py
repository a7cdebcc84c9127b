# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Scale the rows of a matrix, but only the first `n_valid` of them: blocks past the end return
early, and a loop over column tiles stops early once it leaves the row's live length."""

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
def scale_live_rows(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    lengths_ptr,
    lengths_shape0,
    lengths_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    n_valid,
    scale,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    lengths_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    lengths_stride0 = lengths_stride0 // lengths_div[0] * lengths_div[0]
    lengths_shape0 = lengths_shape0 // lengths_div[1] * lengths_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    _returned = 0
    row = tl.program_id(0)
    if row >= n_valid:
        _returned = 1  # rows past n_valid keep their old contents
    if _returned == 0:
        length = tl.load(
            lengths_ptr + tl.cast(row, tl.int64) * lengths_stride0,
            mask=(row >= 0) & (row < lengths_shape0),
        )
        j = 0
        while (j < tl.cdiv(x_shape1, TN)) & (_returned == 0):
            if j * TN >= length:
                _returned = 1
            if _returned == 0:
                offs_row = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
                offs_j = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
                mask_x = (offs_row[:, None] < x_shape0) & (offs_j[None, :] < x_shape1)
                v = tl.load(
                    x_ptr + offs_row[:, None] * x_stride0 + offs_j[None, :] * x_stride1,
                    mask=mask_x,
                    other=0.0,
                )
                cols = tl.arange(0, TN)[None, :] + j * TN
                v = tl.where(cols < length, v * scale, 0.0)
                mask_out = (offs_row[:, None] < out_shape0) & (offs_j[None, :] < out_shape1)
                tl.store(
                    out_ptr + offs_row[:, None] * out_stride0 + offs_j[None, :] * out_stride1,
                    v.to(out_ptr.dtype.element_ty),
                    mask=mask_out,
                )
            j += 1


def launch_scale_live_rows(stream, grid, x, lengths, out, n_valid, scale, TN, *, hints=None):
    """`ct.launch(stream, grid, scale_live_rows, args)`; `hints`: cuTile kernel hints."""
    x, lengths, out = _as_tensor(x), _as_tensor(lengths), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), lengths, *lengths.shape, *lengths.stride())
    args += (out, *out.shape, *out.stride(), n_valid, scale, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        lengths.dtype,
        lengths.data_ptr() & 15,
        lengths.shape,
        lengths.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        _scalar_key(n_valid),
        _scalar_key(scale),
        TN,
        num_ctas,
    )
    if _launch_known(scale_live_rows, known, stream, grid, args):
        return
    _check_ndim("scale_live_rows", "x", x, 2)
    _check_ndim("scale_live_rows", "lengths", lengths, 1)
    _check_ndim("scale_live_rows", "out", out, 2)
    num_warps = min(max(TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        lengths_div=_multiples(lengths.shape, lengths.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, lengths, out),
    )
    with _on_stream(stream):
        compiled = scale_live_rows[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(scale_live_rows, known, compiled, args, constexprs)


def launch(stream, x, lengths, out, n_valid, scale):
    launch_scale_live_rows(stream, (x.shape[0],), x, lengths, out, n_valid, scale, 16)
