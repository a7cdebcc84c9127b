# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Column statistics of a tall matrix, combined across blocks with tiled-view atomic stores:
every block reduces its (TM, TN) tile of `x` over the rows and adds the column sums into
`col_sum` (`TiledView.atomic_store_add`), takes the largest absolute value of its tile of
the integer matrix `q` into `col_absmax` (`atomic_store_max`), and its smallest value into
`col_min` (`atomic_store_min`). Blocks of the same column band race on the
same elements; the atomics make the result independent of their order (up to float rounding
of the sums)."""

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
def _atomic_store_add_1d(
    ptr, shape0, stride0, start0, update, BLOCK0: tl.constexpr, USE_INT64: tl.constexpr
):
    """TiledView.atomic_store_add: combine `update` (broadcast to BLOCK, cast to the array's
    dtype) into the BLOCK-shaped window whose first element is at `start`, one relaxed atomic
    per element at device scope (cuTile's order and scope for view atomics); out-of-bounds
    elements are left alone."""
    offs0 = (tl.cast(start0, tl.int64) if USE_INT64 else start0) + tl.arange(0, BLOCK0)
    ptrs = ptr + offs0 * stride0
    mask = offs0 < shape0
    # tl.where broadcasts the update to the window (lanes outside it are never written) and
    # gives a dense array: Triton's interpreter hands the value's buffer to its atomic as is,
    # and a (1, 1) tile broadcast by tl.broadcast_to alone reads as garbage there.
    value = tl.where(mask, tl.cast(update, ptr.dtype.element_ty), 0)
    tl.atomic_add(ptrs, value, mask=mask, sem="relaxed", scope="gpu")


@triton.jit
def _atomic_store_max_1d(
    ptr, shape0, stride0, start0, update, BLOCK0: tl.constexpr, USE_INT64: tl.constexpr
):
    """TiledView.atomic_store_max: combine `update` (broadcast to BLOCK, cast to the array's
    dtype) into the BLOCK-shaped window whose first element is at `start`, one relaxed atomic
    per element at device scope (cuTile's order and scope for view atomics); out-of-bounds
    elements are left alone."""
    offs0 = (tl.cast(start0, tl.int64) if USE_INT64 else start0) + tl.arange(0, BLOCK0)
    ptrs = ptr + offs0 * stride0
    mask = offs0 < shape0
    # tl.where broadcasts the update to the window (lanes outside it are never written) and
    # gives a dense array: Triton's interpreter hands the value's buffer to its atomic as is,
    # and a (1, 1) tile broadcast by tl.broadcast_to alone reads as garbage there.
    value = tl.where(mask, tl.cast(update, ptr.dtype.element_ty), 0)
    tl.atomic_max(ptrs, value, mask=mask, sem="relaxed", scope="gpu")


@triton.jit
def _atomic_store_min_1d(
    ptr, shape0, stride0, start0, update, BLOCK0: tl.constexpr, USE_INT64: tl.constexpr
):
    """TiledView.atomic_store_min: combine `update` (broadcast to BLOCK, cast to the array's
    dtype) into the BLOCK-shaped window whose first element is at `start`, one relaxed atomic
    per element at device scope (cuTile's order and scope for view atomics); out-of-bounds
    elements are left alone."""
    offs0 = (tl.cast(start0, tl.int64) if USE_INT64 else start0) + tl.arange(0, BLOCK0)
    ptrs = ptr + offs0 * stride0
    mask = offs0 < shape0
    # tl.where broadcasts the update to the window (lanes outside it are never written) and
    # gives a dense array: Triton's interpreter hands the value's buffer to its atomic as is,
    # and a (1, 1) tile broadcast by tl.broadcast_to alone reads as garbage there.
    value = tl.where(mask, tl.cast(update, ptr.dtype.element_ty), 0)
    tl.atomic_min(ptrs, value, mask=mask, sem="relaxed", scope="gpu")


@triton.jit
def col_stats(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    q_ptr,
    q_shape0,
    q_shape1,
    q_stride0,
    q_stride1,
    col_sum_ptr,
    col_sum_shape0,
    col_sum_stride0,
    col_absmax_ptr,
    col_absmax_shape0,
    col_absmax_stride0,
    col_min_ptr,
    col_min_shape0,
    col_min_stride0,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    q_div: tl.constexpr,
    col_sum_div: tl.constexpr,
    col_absmax_div: tl.constexpr,
    col_min_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    q_stride0 = q_stride0 // q_div[0] * q_div[0]
    q_stride1 = q_stride1 // q_div[1] * q_div[1]
    q_shape0 = q_shape0 // q_div[2] * q_div[2]
    q_shape1 = q_shape1 // q_div[3] * q_div[3]
    col_sum_stride0 = col_sum_stride0 // col_sum_div[0] * col_sum_div[0]
    col_sum_shape0 = col_sum_shape0 // col_sum_div[1] * col_sum_div[1]
    col_absmax_stride0 = col_absmax_stride0 // col_absmax_div[0] * col_absmax_div[0]
    col_absmax_shape0 = col_absmax_shape0 // col_absmax_div[1] * col_absmax_div[1]
    col_min_stride0 = col_min_stride0 // col_min_div[0] * col_min_div[0]
    col_min_shape0 = col_min_shape0 // col_min_div[1] * col_min_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    bm = tl.program_id(0)
    bn = tl.program_id(1)
    offs_bm = tl.cast(bm, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_bn = tl.cast(bn, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_x = (offs_bm[:, None] < x_shape0) & (offs_bn[None, :] < x_shape1)
    xt = tl.load(
        x_ptr + offs_bm[:, None] * x_stride0 + offs_bn[None, :] * x_stride1, mask=mask_x, other=0.0
    )
    mask_q = (offs_bm[:, None] < q_shape0) & (offs_bn[None, :] < q_shape1)
    qt = tl.load(
        q_ptr + offs_bm[:, None] * q_stride0 + offs_bn[None, :] * q_stride1, mask=mask_q, other=0.0
    )

    _atomic_store_add_1d(
        col_sum_ptr,
        col_sum_shape0,
        col_sum_stride0,
        bn * TN,
        tl.sum(xt.to(tl.float32), axis=0),
        TN,
        USE_INT64,
    )
    _atomic_store_max_1d(
        col_absmax_ptr,
        col_absmax_shape0,
        col_absmax_stride0,
        bn * TN,
        tl.max(tl.abs(qt), axis=0),
        TN,
        USE_INT64,
    )
    # the padding of q's view is 0, which must not win the minimum: mask it out first
    rows = bm * TM + tl.arange(0, TM)[:, None]
    cols = bn * TN + tl.arange(0, TN)[None, :]
    live = (rows < q_shape0) & (cols < q_shape1)
    _atomic_store_min_1d(
        col_min_ptr,
        col_min_shape0,
        col_min_stride0,
        bn * TN,
        tl.min(tl.where(live, qt, 2**31 - 1), axis=0),
        TN,
        USE_INT64,
    )


def launch_col_stats(stream, grid, x, q, col_sum, col_absmax, col_min, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, col_stats, args)`; `hints`: cuTile kernel hints."""
    x, q, col_sum = _as_tensor(x), _as_tensor(q), _as_tensor(col_sum)
    col_absmax, col_min = _as_tensor(col_absmax), _as_tensor(col_min)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), q, *q.shape, *q.stride())
    args += (
        col_sum,
        *col_sum.shape,
        *col_sum.stride(),
    )
    args += (
        col_absmax,
        *col_absmax.shape,
        *col_absmax.stride(),
    )
    args += (col_min, *col_min.shape, *col_min.stride(), TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        q.dtype,
        q.data_ptr() & 15,
        q.shape,
        q.stride(),
        col_sum.dtype,
        col_sum.data_ptr() & 15,
        col_sum.shape,
        col_sum.stride(),
        col_absmax.dtype,
        col_absmax.data_ptr() & 15,
        col_absmax.shape,
        col_absmax.stride(),
        col_min.dtype,
        col_min.data_ptr() & 15,
        col_min.shape,
        col_min.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(col_stats, known, stream, grid, args):
        return
    _check_ndim("col_stats", "x", x, 2)
    _check_ndim("col_stats", "q", q, 2)
    _check_ndim("col_stats", "col_sum", col_sum, 1)
    _check_ndim("col_stats", "col_absmax", col_absmax, 1)
    _check_ndim("col_stats", "col_min", col_min, 1)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        q_div=_multiples(q.shape, q.stride()),
        col_sum_div=_multiples(col_sum.shape, col_sum.stride()),
        col_absmax_div=_multiples(col_absmax.shape, col_absmax.stride()),
        col_min_div=_multiples(col_min.shape, col_min.stride()),
        USE_INT64=_needs_int64(x, q, col_sum, col_absmax, col_min),
    )
    with _on_stream(stream):
        compiled = col_stats[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(col_stats, known, compiled, args, constexprs)


def launch(stream, x, q, col_sum, col_absmax, col_min):
    tm, tn = 32, 64
    col_sum.zero_()
    col_absmax.zero_()
    col_min.fill_(2**31 - 1)
    grid = (triton.cdiv(x.shape[0], tm), triton.cdiv(x.shape[1], tn), 1)
    launch_col_stats(stream, grid, x, q, col_sum, col_absmax, col_min, tm, tn)
