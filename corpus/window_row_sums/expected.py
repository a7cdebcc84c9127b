# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Row sums over a column window x[:, start:start + length], written with an array slice and
tiled views instead of explicit ct.load / ct.store calls."""

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
def window_row_sums(
    x_ptr,
    x_shape0,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    start,
    length,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    window_ptr = x_ptr + start * x_stride1
    window_shape0 = x_shape0
    window_shape1 = start + length - start
    window_stride0 = x_stride0
    window_stride1 = x_stride1
    acc = tl.zeros((TM, 1), dtype=tl.float32)
    for j in range(tl.cdiv(window_shape1, TN)):
        offs_window0 = tl.cast(tl.program_id(0), OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_window1 = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_window = (offs_window0[:, None] < window_shape0) & (
            offs_window1[None, :] < window_shape1
        )
        t = tl.load(
            window_ptr
            + offs_window0[:, None] * window_stride0
            + offs_window1[None, :] * window_stride1,
            mask=mask_window,
            other=0.0,
        )
        acc += tl.sum(t.to(tl.float32), axis=1, keep_dims=True)
    offs_out0 = tl.cast(tl.program_id(0), OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_out1 = tl.arange(0, 1).to(OFFSET_DTYPE)
    mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
    tl.store(
        out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
        acc.to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )


def launch_window_row_sums(stream, grid, x, out, start, length, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, window_row_sums, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, x.shape[0], *x.stride(), out, *out.shape, *out.stride(), start, length, TM, TN)
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
        _scalar_key(start),
        _scalar_key(length),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(window_row_sums, known, stream, grid, args):
        return
    _check_ndim("window_row_sums", "x", x, 2)
    _check_ndim("window_row_sums", "out", out, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = window_row_sums[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(window_row_sums, known, compiled, args, constexprs)


def launch(stream, x, out, start, length):
    tm, tn = 16, 32
    launch_window_row_sums(stream, (triton.cdiv(x.shape[0], tm),), x, out, start, length, tm, tn)
