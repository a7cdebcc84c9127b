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
)


@triton.jit
def _argmax_combine_skipping_nan(v1, i1, v2, i2):
    n1 = v1 != v1
    n2 = v2 != v2
    first = (v1 > v2) | (n2 & ~n1) | (((v1 == v2) | (n1 & n2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


@triton.jit
def _argmax_2d_1_skipping(x, KEEP_DIMS: tl.constexpr):
    """ct.argmax along axis 1: NaN skipped."""
    idx = tl.broadcast_to(tl.arange(0, x.shape[1])[None, :], x.shape)
    _, i = tl.reduce((x, idx), 1, _argmax_combine_skipping_nan, keep_dims=KEEP_DIMS)
    return i


@triton.jit
def argmax_rows_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_stride0,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[i] = index of the largest element of row i (the first one on ties).

    A block owns TM rows and scans the columns in TN-wide chunks, keeping a running
    (best value, best index) pair per row. Padding with -inf keeps the padded lanes
    from ever being selected, and the strict '>' keeps the earlier chunk on ties, which
    together with ct.argmax's smallest-index rule gives the first maximal index overall.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_shape0 = out_shape0 // out_div[1] * out_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_x1 = tl.arange(0, TN).to(OFFSET_DTYPE)
    mask_x = (offs_pid[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
    first = tl.load(
        x_ptr + offs_pid[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
        mask=mask_x,
        other=float("-inf"),
    )
    best_val = tl.max(first, axis=1, keep_dims=True)  # (TM, 1)
    best_idx = _argmax_2d_1_skipping(first, True)  # (TM, 1), int32
    for j in range(1, tl.cdiv(x_shape1, TN)):
        offs_x0_2 = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_x1_2 = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_x_2 = (offs_x0_2[:, None] < x_shape0) & (offs_x1_2[None, :] < x_shape1)
        t = tl.load(
            x_ptr + offs_x0_2[:, None] * x_stride0 + offs_x1_2[None, :] * x_stride1,
            mask=mask_x_2,
            other=float("-inf"),
        )
        val = tl.max(t, axis=1, keep_dims=True)
        idx = _argmax_2d_1_skipping(t, True) + j * TN
        better = val > best_val
        best_val = tl.where(better, val, best_val)
        best_idx = tl.where(better, idx, best_idx)
    mask_out = offs_pid < out_shape0
    tl.store(
        out_ptr + offs_pid * out_stride0,
        tl.reshape(best_idx, (TM,)).to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )


def launch_argmax_rows_kernel(stream, grid, x, out, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, argmax_rows_kernel, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), TM, TN)
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
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(argmax_rows_kernel, known, stream, grid, args):
        return
    _check_ndim("argmax_rows_kernel", "x", x, 2)
    _check_ndim("argmax_rows_kernel", "out", out, 1)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = argmax_rows_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(argmax_rows_kernel, known, compiled, args, constexprs)


def launch(stream, x, out):
    tm, tn = 8, 32
    launch_argmax_rows_kernel(stream, (triton.cdiv(x.shape[0], tm),), x, out, tm, tn)
