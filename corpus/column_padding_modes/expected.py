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
def column_stats_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    col_max_ptr,
    col_max_shape0,
    col_max_stride0,
    col_min_ptr,
    col_min_shape0,
    col_min_stride0,
    col_sum_ptr,
    col_sum_shape0,
    col_sum_stride0,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    col_max_div: tl.constexpr,
    col_min_div: tl.constexpr,
    col_sum_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Per-column max, min and sum of a 2-D array; one block per TN columns.

    The rows are walked in TM-high tiles, and the last one usually overhangs the array.
    Each statistic loads the tile with the padding value that is the identity of its
    reduction: -inf for max, +inf for min, 0 for sum, so no explicit masking is needed.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    col_max_stride0 = col_max_stride0 // col_max_div[0] * col_max_div[0]
    col_max_shape0 = col_max_shape0 // col_max_div[1] * col_max_div[1]
    col_min_stride0 = col_min_stride0 // col_min_div[0] * col_min_div[0]
    col_min_shape0 = col_min_shape0 // col_min_div[1] * col_min_div[1]
    col_sum_stride0 = col_sum_stride0 // col_sum_div[0] * col_sum_div[0]
    col_sum_shape0 = col_sum_shape0 // col_sum_div[1] * col_sum_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    offs_x0 = tl.arange(0, TM).to(OFFSET_DTYPE)
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_x = (offs_x0[:, None] < x_shape0) & (offs_pid[None, :] < x_shape1)
    run_max = tl.max(
        tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_pid[None, :] * x_stride1,
            mask=mask_x,
            other=float("-inf"),
        ),
        axis=0,
    )
    run_min = tl.min(
        tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_pid[None, :] * x_stride1,
            mask=mask_x,
            other=float("inf"),
        ),
        axis=0,
    )
    run_sum = tl.sum(
        tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_pid[None, :] * x_stride1,
            mask=mask_x,
            other=0.0,
        ).to(tl.float32),
        axis=0,
    )
    for i in range(1, tl.cdiv(x_shape0, TM)):
        offs_x0_4 = tl.cast(i, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_x1_4 = tl.cast(pid, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_x_4 = (offs_x0_4[:, None] < x_shape0) & (offs_x1_4[None, :] < x_shape1)
        hi = tl.load(
            x_ptr + offs_x0_4[:, None] * x_stride0 + offs_x1_4[None, :] * x_stride1,
            mask=mask_x_4,
            other=float("-inf"),
        )
        lo = tl.load(
            x_ptr + offs_x0_4[:, None] * x_stride0 + offs_x1_4[None, :] * x_stride1,
            mask=mask_x_4,
            other=float("inf"),
        )
        zs = tl.load(
            x_ptr + offs_x0_4[:, None] * x_stride0 + offs_x1_4[None, :] * x_stride1,
            mask=mask_x_4,
            other=0.0,
        )
        run_max = tl.maximum(run_max, tl.max(hi, axis=0))
        run_min = tl.minimum(run_min, tl.min(lo, axis=0))
        run_sum = run_sum + tl.sum(zs.to(tl.float32), axis=0)
    mask_col_max = offs_pid < col_max_shape0
    tl.store(
        col_max_ptr + offs_pid * col_max_stride0,
        run_max.to(col_max_ptr.dtype.element_ty),
        mask=mask_col_max,
    )
    mask_col_min = offs_pid < col_min_shape0
    tl.store(
        col_min_ptr + offs_pid * col_min_stride0,
        run_min.to(col_min_ptr.dtype.element_ty),
        mask=mask_col_min,
    )
    mask_col_sum = offs_pid < col_sum_shape0
    tl.store(
        col_sum_ptr + offs_pid * col_sum_stride0,
        run_sum.to(col_sum_ptr.dtype.element_ty),
        mask=mask_col_sum,
    )


def launch_column_stats_kernel(stream, grid, x, col_max, col_min, col_sum, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, column_stats_kernel, args)`; `hints`: cuTile kernel hints."""
    x, col_max, col_min = _as_tensor(x), _as_tensor(col_max), _as_tensor(col_min)
    col_sum = _as_tensor(col_sum)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), col_max, *col_max.shape, *col_max.stride())
    args += (col_min, *col_min.shape, *col_min.stride(), col_sum, *col_sum.shape, *col_sum.stride())
    args += (TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        col_max.dtype,
        col_max.data_ptr() & 15,
        col_max.shape,
        col_max.stride(),
        col_min.dtype,
        col_min.data_ptr() & 15,
        col_min.shape,
        col_min.stride(),
        col_sum.dtype,
        col_sum.data_ptr() & 15,
        col_sum.shape,
        col_sum.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(column_stats_kernel, known, stream, grid, args):
        return
    _check_ndim("column_stats_kernel", "x", x, 2)
    _check_ndim("column_stats_kernel", "col_max", col_max, 1)
    _check_ndim("column_stats_kernel", "col_min", col_min, 1)
    _check_ndim("column_stats_kernel", "col_sum", col_sum, 1)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        col_max_div=_multiples(col_max.shape, col_max.stride()),
        col_min_div=_multiples(col_min.shape, col_min.stride()),
        col_sum_div=_multiples(col_sum.shape, col_sum.stride()),
        USE_INT64=_needs_int64(x, col_max, col_min, col_sum),
    )
    with _on_stream(stream):
        compiled = column_stats_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(column_stats_kernel, known, compiled, args, constexprs)


def launch(stream, x, col_max, col_min, col_sum):
    tm, tn = 32, 16
    launch_column_stats_kernel(
        stream, (triton.cdiv(x.shape[1], tn),), x, col_max, col_min, col_sum, tm, tn
    )
