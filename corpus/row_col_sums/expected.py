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
def row_sum_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    row_sums_ptr,
    row_sums_shape0,
    row_sums_shape1,
    row_sums_stride0,
    row_sums_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    row_sums_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """row_sums (M, 1) = x.sum(axis=1, keepdims=True); a block owns TM rows and walks the columns."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    row_sums_stride0 = row_sums_stride0 // row_sums_div[0] * row_sums_div[0]
    row_sums_stride1 = row_sums_stride1 // row_sums_div[1] * row_sums_div[1]
    row_sums_shape0 = row_sums_shape0 // row_sums_div[2] * row_sums_div[2]
    row_sums_shape1 = row_sums_shape1 // row_sums_div[3] * row_sums_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    acc = tl.zeros((TM, 1), dtype=tl.float32)
    for j in range(tl.cdiv(x_shape1, TN)):
        offs_x0 = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_x1 = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        t = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=0.0,
        )
        acc = acc + tl.sum(t.to(tl.float32), axis=1, keep_dims=True)
    offs_row_sums0 = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_row_sums1 = tl.arange(0, 1).to(OFFSET_DTYPE)
    mask_row_sums = (offs_row_sums0[:, None] < row_sums_shape0) & (
        offs_row_sums1[None, :] < row_sums_shape1
    )
    tl.store(
        row_sums_ptr
        + offs_row_sums0[:, None] * row_sums_stride0
        + offs_row_sums1[None, :] * row_sums_stride1,
        acc.to(row_sums_ptr.dtype.element_ty),
        mask=mask_row_sums,
    )


def launch_row_sum_kernel(stream, grid, x, row_sums, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, row_sum_kernel, args)`; `hints`: cuTile kernel hints."""
    x, row_sums = _as_tensor(x), _as_tensor(row_sums)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), row_sums, *row_sums.shape, *row_sums.stride(), TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        row_sums.dtype,
        row_sums.data_ptr() & 15,
        row_sums.shape,
        row_sums.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(row_sum_kernel, known, stream, grid, args):
        return
    _check_ndim("row_sum_kernel", "x", x, 2)
    _check_ndim("row_sum_kernel", "row_sums", row_sums, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        row_sums_div=_multiples(row_sums.shape, row_sums.stride()),
        USE_INT64=_needs_int64(x, row_sums),
    )
    with _on_stream(stream):
        compiled = row_sum_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(row_sum_kernel, known, compiled, args, constexprs)


@triton.jit
def col_sum_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    col_sums_ptr,
    col_sums_shape0,
    col_sums_shape1,
    col_sums_stride0,
    col_sums_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    col_sums_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """col_sums (1, N) = x.sum(axis=0, keepdims=True); a block owns TN columns and walks the rows."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    col_sums_stride0 = col_sums_stride0 // col_sums_div[0] * col_sums_div[0]
    col_sums_stride1 = col_sums_stride1 // col_sums_div[1] * col_sums_div[1]
    col_sums_shape0 = col_sums_shape0 // col_sums_div[2] * col_sums_div[2]
    col_sums_shape1 = col_sums_shape1 // col_sums_div[3] * col_sums_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    num_row_tiles = tl.cdiv(x_shape0, TM)
    acc = tl.zeros((1, TN), dtype=tl.float32)
    i = 0
    while i < num_row_tiles:
        offs_x0 = tl.cast(i, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_x1 = tl.cast(pid, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        t = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=0.0,
        )
        acc = acc + tl.sum(t.to(tl.float32), axis=0, keep_dims=True)
        i += 1
    offs_col_sums0 = tl.arange(0, 1).to(OFFSET_DTYPE)
    offs_col_sums1 = tl.cast(pid, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_col_sums = (offs_col_sums0[:, None] < col_sums_shape0) & (
        offs_col_sums1[None, :] < col_sums_shape1
    )
    tl.store(
        col_sums_ptr
        + offs_col_sums0[:, None] * col_sums_stride0
        + offs_col_sums1[None, :] * col_sums_stride1,
        acc.to(col_sums_ptr.dtype.element_ty),
        mask=mask_col_sums,
    )


def launch_col_sum_kernel(stream, grid, x, col_sums, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, col_sum_kernel, args)`; `hints`: cuTile kernel hints."""
    x, col_sums = _as_tensor(x), _as_tensor(col_sums)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), col_sums, *col_sums.shape, *col_sums.stride(), TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        col_sums.dtype,
        col_sums.data_ptr() & 15,
        col_sums.shape,
        col_sums.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(col_sum_kernel, known, stream, grid, args):
        return
    _check_ndim("col_sum_kernel", "x", x, 2)
    _check_ndim("col_sum_kernel", "col_sums", col_sums, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        col_sums_div=_multiples(col_sums.shape, col_sums.stride()),
        USE_INT64=_needs_int64(x, col_sums),
    )
    with _on_stream(stream):
        compiled = col_sum_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(col_sum_kernel, known, compiled, args, constexprs)


def launch(stream, x, row_sums, col_sums):
    tm, tn = 16, 32
    m, n = x.shape
    launch_row_sum_kernel(stream, (triton.cdiv(m, tm),), x, row_sums, tm, tn)
    launch_col_sum_kernel(stream, (triton.cdiv(n, tn),), x, col_sums, tm, tn)
