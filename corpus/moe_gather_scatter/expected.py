# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import torch
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
    _ptxas_target,
    _remember_launch,
)


@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


@triton.jit
def _gather_1d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0, CHECK_BOUNDS=True):
    """ct.gather: ptr[index], the index tiles broadcast together; PADDING where an index is out
    of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    ok = (i0 >= 0) & (i0 < shape[0]) & MASK if CHECK_BOUNDS else MASK
    return tl.load(ptr + offs, mask=ok, other=PADDING)


@triton.jit
def _gather_2d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0, CHECK_BOUNDS=True):
    """ct.gather: ptr[index], the index tiles broadcast together; PADDING where an index is out
    of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    i1 = _elem_index(index[1], USE_INT64)
    offs = i0 * stride[0] + i1 * stride[1]
    ok = (i0 >= 0) & (i0 < shape[0]) & (i1 >= 0) & (i1 < shape[1]) & MASK if CHECK_BOUNDS else MASK
    return tl.load(ptr + offs, mask=ok, other=PADDING)


@triton.jit
def _load_tile_3d(ptr, shape, stride, idx, BLOCK, USE_INT64, PADDING=None, CHECK_BOUNDS=True):
    """ct.load: tile `idx` of the array's tile space (elements idx * BLOCK + offset); out-of-bounds
    elements read as PADDING (None: undetermined, as cuTile's default)."""
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * BLOCK[0] + tl.arange(0, BLOCK[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * BLOCK[1] + tl.arange(0, BLOCK[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * BLOCK[2] + tl.arange(0, BLOCK[2])
    ptrs = (
        ptr
        + offs0[:, None, None] * stride[0]
        + offs1[None, :, None] * stride[1]
        + offs2[None, None, :] * stride[2]
    )
    mask = (
        (offs0[:, None, None] < shape[0])
        & (offs1[None, :, None] < shape[1])
        & (offs2[None, None, :] < shape[2])
        if CHECK_BOUNDS
        else True
    )
    return tl.load(ptrs, mask=mask, other=PADDING)


@triton.jit
def _dot_by_sum(x, y, ACC: tl.constexpr):
    # x @ y (2-D or 3-D) as a sum of products in ACC, for operands tl.dot does not take
    if len(x.shape) == 2:
        return tl.sum(x.to(ACC)[:, :, None] * y.to(ACC)[None, :, :], axis=1)
    else:
        return tl.sum(x.to(ACC)[:, :, :, None] * y.to(ACC)[:, None, :, :], axis=2)


@triton.jit
def _dot_any_size(x, y, acc, PREC: tl.constexpr):
    # tl.dot needs one dtype (not uint8), M, N >= 16 and K >= 16 (32 for 8 bits); cuTile's mma
    # does not: a small 2-D product is spread over the minimum, others summed elementwise
    M: tl.constexpr = x.shape[-2]
    K: tl.constexpr = x.shape[-1]
    N: tl.constexpr = y.shape[-1]
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    if M >= 16 and N >= 16 and K >= MIN_K and x.dtype == y.dtype and x.dtype != tl.uint8:
        return tl.dot(x, y, acc, input_precision=PREC, out_dtype=acc.dtype, max_num_imprecise_acc=K)
    elif x.dtype != y.dtype or x.dtype == tl.uint8 or len(x.shape) == 3:
        return acc + _dot_by_sum(x, y, acc.dtype)
    else:  # elements repeated (the depth's repeats zeroed), one of the equal results kept
        RM: tl.constexpr = 16 // M if M < 16 else 1
        RN: tl.constexpr = 16 // N if N < 16 else 1
        RK: tl.constexpr = MIN_K // K if K < MIN_K else 1
        xs = x  # (an operand large enough reaches tl.dot as it is, pipelined as usual)
        if RM > 1 or RK > 1:
            xs = tl.reshape(tl.broadcast_to(x[:, None, :, None], (M, RM, K, RK)), (M * RM, K * RK))
            if RK > 1:
                xs = tl.where((tl.arange(0, K * RK) % RK == 0)[None, :], xs, tl.zeros_like(xs))
        ys = y
        if RN > 1 or RK > 1:
            ys = tl.reshape(tl.broadcast_to(y[:, None, :, None], (K, RK, N, RN)), (K * RK, N * RN))
        prod = tl.dot(
            xs, ys, input_precision=PREC, out_dtype=acc.dtype, max_num_imprecise_acc=K * RK
        )
        if RM > 1 or RN > 1:
            prod = tl.max(tl.max(tl.reshape(prod, (M, RM, N, RN)), axis=3), axis=1)
        return acc + prod.to(acc.dtype)


@triton.jit
def _scatter_2d(ptr, shape, stride, index, value, USE_INT64, MASK=True, CHECK_BOUNDS=True):
    """ct.scatter: `value` (broadcast, cast to the array's dtype) to ptr[index], except where an
    index is out of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    i1 = _elem_index(index[1], USE_INT64)
    offs = i0 * stride[0] + i1 * stride[1]
    ok = (i0 >= 0) & (i0 < shape[0]) & (i1 >= 0) & (i1 < shape[1]) & MASK if CHECK_BOUNDS else MASK
    tl.store(ptr + offs, value, mask=ok)


@triton.jit
def moe_expert_matmul_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    w_ptr,
    w_shape0,
    w_shape1,
    w_shape2,
    w_stride0,
    w_stride1,
    w_stride2,
    order_ptr,
    order_shape0,
    order_stride0,
    offsets_ptr,
    offsets_shape0,
    offsets_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    x_div: tl.constexpr,
    w_div: tl.constexpr,
    order_div: tl.constexpr,
    offsets_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[t, :] = x[t, :] @ w[e] for every token t routed to expert e.

    `order` lists the tokens grouped by expert: expert e owns the tokens
    order[offsets[e]:offsets[e + 1]]. Block (e, i, j) gathers the rows of the i-th group
    of TM of those tokens, multiplies them by columns j*TN... of the expert's weight, and
    scatters the result back to the tokens' rows. Lanes past the end of the group get token
    -1: the gathers read zeros for it and the scatter drops it (negative indices are out of
    bounds).
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    w_stride0 = w_stride0 // w_div[0] * w_div[0]
    w_stride1 = w_stride1 // w_div[1] * w_div[1]
    w_stride2 = w_stride2 // w_div[2] * w_div[2]
    w_shape0 = w_shape0 // w_div[3] * w_div[3]
    w_shape1 = w_shape1 // w_div[4] * w_div[4]
    w_shape2 = w_shape2 // w_div[5] * w_div[5]
    order_stride0 = order_stride0 // order_div[0] * order_div[0]
    order_shape0 = order_shape0 // order_div[1] * order_div[1]
    offsets_stride0 = offsets_stride0 // offsets_div[0] * offsets_div[0]
    offsets_shape0 = offsets_shape0 // offsets_div[1] * offsets_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    num_tokens, d_out = (out_shape0, out_shape1)
    num_experts = offsets_shape0 - 1
    e = tl.program_id(0)
    start = _gather_1d(offsets_ptr, (offsets_shape0,), (offsets_stride0,), (e,), USE_INT64)
    count = (
        _gather_1d(offsets_ptr, (offsets_shape0,), (offsets_stride0,), (e + 1,), USE_INT64) - start
    )
    if tl.program_id(1) * TM < count:
        r = tl.program_id(1) * TM + tl.arange(0, TM)
        routed = (r < count) & (start + r < order_shape0)
        tok = _gather_1d(
            order_ptr,
            (order_shape0,),
            (order_stride0,),
            (start + r,),
            USE_INT64,
            MASK=routed,
            PADDING=-1,
        )
        acc = tl.zeros((TM, TN), dtype=tl.float32)
        for k in range(tl.cdiv(x_shape1, TK)):
            cols = k * TK + tl.arange(0, TK)
            a = _gather_2d(
                x_ptr,
                (x_shape0, x_shape1),
                (x_stride0, x_stride1),
                (tok[:, None], cols[None, :]),
                USE_INT64,
            )
            b = _load_tile_3d(
                w_ptr,
                (w_shape0, w_shape1, w_shape2),
                (w_stride0, w_stride1, w_stride2),
                (e, k, tl.program_id(2)),
                (1, TK, TN),
                USE_INT64,
                PADDING=0.0,
            )
            acc = _dot_any_size(a, tl.reshape(b, (TK, TN)), acc, "ieee")
        cols = tl.program_id(2) * TN + tl.arange(0, TN)
        _scatter_2d(
            out_ptr,
            (out_shape0, out_shape1),
            (out_stride0, out_stride1),
            (tok[:, None], cols[None, :]),
            acc,
            USE_INT64,
        )


def launch_moe_expert_matmul_kernel(
    stream, grid, x, w, order, offsets, out, TM, TN, TK, *, hints=None
):
    """`ct.launch(stream, grid, moe_expert_matmul_kernel, args)`; `hints`: cuTile kernel hints."""
    x, w, order, offsets = _as_tensor(x), _as_tensor(w), _as_tensor(order), _as_tensor(offsets)
    out = _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), w, *w.shape, *w.stride())
    args += (order, *order.shape, *order.stride(), offsets, *offsets.shape, *offsets.stride())
    args += (out, *out.shape, *out.stride(), TM, TN, TK)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        w.dtype,
        w.data_ptr() & 15,
        w.shape,
        w.stride(),
        order.dtype,
        order.data_ptr() & 15,
        order.shape,
        order.stride(),
        offsets.dtype,
        offsets.data_ptr() & 15,
        offsets.shape,
        offsets.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TM,
        TN,
        TK,
        num_ctas,
    )
    if _launch_known(moe_expert_matmul_kernel, known, stream, grid, args):
        return
    _check_ndim("moe_expert_matmul_kernel", "x", x, 2)
    _check_ndim("moe_expert_matmul_kernel", "w", w, 3)
    _check_ndim("moe_expert_matmul_kernel", "order", order, 1)
    _check_ndim("moe_expert_matmul_kernel", "offsets", offsets, 1)
    _check_ndim("moe_expert_matmul_kernel", "out", out, 2)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = 2 if TM < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [x, w, order, offsets, out] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        w_div=_multiples(w.shape, w.stride()),
        order_div=_multiples(order.shape, order.stride()),
        offsets_div=_multiples(offsets.shape, offsets.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, w, order, offsets, out),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = moe_expert_matmul_kernel[_grid(grid)](
                    *args,
                    **constexprs,
                    num_warps=num_warps,
                    num_stages=num_stages,
                    num_ctas=num_ctas,
                    **ptx_options,
                )
                break
            except triton.OutOfResources:  # large tiles: one stage fewer until they fit
                if num_stages <= 1:
                    raise
                num_stages -= 1
        _remember_launch(moe_expert_matmul_kernel, known, compiled, args, constexprs)


def launch(stream, x, w, order, offsets, out):
    tm, tn, tk = 16, 16, 16
    experts, _, d_out = w.shape
    grid = (experts, triton.cdiv(x.shape[0], tm), triton.cdiv(d_out, tn))
    launch_moe_expert_matmul_kernel(stream, grid, x, w, order, offsets, out, tm, tn, tk)
