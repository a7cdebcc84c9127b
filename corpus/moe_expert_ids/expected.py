# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Mixture-of-experts up-projection over tokens grouped by expert.

The host sorts the token rows by expert and pads every expert's group to a multiple of TILE_T
rows (padding rows hold an out-of-range token id), so each block of TILE_T sorted rows belongs to
one expert. Each block reads its expert id as a 0-d tile, gathers its token rows, multiplies by
that expert's weight matrix and scatters the rows back to token order.
"""

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
def expert_up_kernel(
    X_ptr,
    X_shape0,
    X_shape1,
    X_stride0,
    X_stride1,
    W_ptr,
    W_shape0,
    W_shape1,
    W_shape2,
    W_stride0,
    W_stride1,
    W_stride2,
    Y_ptr,
    Y_shape0,
    Y_shape1,
    Y_stride0,
    Y_stride1,
    row_token_ptr,
    row_token_shape0,
    row_token_stride0,
    block_expert_ptr,
    block_expert_shape0,
    block_expert_stride0,
    gate_ptr,
    gate_shape0,
    gate_shape1,
    gate_stride0,
    TILE_T: tl.constexpr,
    TILE_H: tl.constexpr,
    TILE_D: tl.constexpr,
    X_div: tl.constexpr,
    W_div: tl.constexpr,
    Y_div: tl.constexpr,
    row_token_div: tl.constexpr,
    block_expert_div: tl.constexpr,
    gate_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    X_stride0 = X_stride0 // X_div[0] * X_div[0]
    X_stride1 = X_stride1 // X_div[1] * X_div[1]
    X_shape0 = X_shape0 // X_div[2] * X_div[2]
    X_shape1 = X_shape1 // X_div[3] * X_div[3]
    W_stride0 = W_stride0 // W_div[0] * W_div[0]
    W_stride1 = W_stride1 // W_div[1] * W_div[1]
    W_stride2 = W_stride2 // W_div[2] * W_div[2]
    W_shape0 = W_shape0 // W_div[3] * W_div[3]
    W_shape1 = W_shape1 // W_div[4] * W_div[4]
    W_shape2 = W_shape2 // W_div[5] * W_div[5]
    Y_stride0 = Y_stride0 // Y_div[0] * Y_div[0]
    Y_stride1 = Y_stride1 // Y_div[1] * Y_div[1]
    Y_shape0 = Y_shape0 // Y_div[2] * Y_div[2]
    Y_shape1 = Y_shape1 // Y_div[3] * Y_div[3]
    row_token_stride0 = row_token_stride0 // row_token_div[0] * row_token_div[0]
    row_token_shape0 = row_token_shape0 // row_token_div[1] * row_token_div[1]
    block_expert_stride0 = block_expert_stride0 // block_expert_div[0] * block_expert_div[0]
    block_expert_shape0 = block_expert_shape0 // block_expert_div[1] * block_expert_div[1]
    gate_stride0 = gate_stride0 // gate_div[0] * gate_div[0]
    gate_shape0 = gate_shape0 // gate_div[2] * gate_div[2]
    gate_shape1 = gate_shape1 // gate_div[3] * gate_div[3]
    blk = tl.program_id(0)
    col = tl.program_id(1)
    d_model = X_shape1

    # one expert per block of sorted rows: a single element, read as a 0-d tile
    expert = tl.load(
        block_expert_ptr + tl.cast(blk, tl.int64) * block_expert_stride0,
        mask=(blk >= 0) & (blk < block_expert_shape0),
    )
    # the expert's gate scale, another 0-d load (2-D array, one element)
    scale = tl.load(
        gate_ptr + tl.cast(expert, tl.int64) * gate_stride0,
        mask=(expert >= 0) & (expert < gate_shape0) & (0 < gate_shape1),
    )

    rows = blk * TILE_T + tl.arange(0, TILE_T)
    tokens = _gather_1d(
        row_token_ptr, (row_token_shape0,), (row_token_stride0,), (rows,), USE_INT64
    )  # padding rows: out-of-range ids
    acc = tl.zeros((TILE_T, TILE_H), dtype=tl.float32)
    for kk in range(tl.cdiv(d_model, TILE_D)):
        cols = kk * TILE_D + tl.arange(0, TILE_D)
        x = _gather_2d(
            X_ptr,
            (X_shape0, X_shape1),
            (X_stride0, X_stride1),
            (tokens[:, None], cols[None, :]),
            USE_INT64,
        )  # out-of-range rows read 0
        w = _load_tile_3d(
            W_ptr,
            (W_shape0, W_shape1, W_shape2),
            (W_stride0, W_stride1, W_stride2),
            (expert, kk, col),
            (1, TILE_D, TILE_H),
            USE_INT64,
            PADDING=0.0,
        )
        acc = _dot_any_size(x, tl.reshape(w, (TILE_D, TILE_H)), acc, "ieee")

    out_cols = col * TILE_H + tl.arange(0, TILE_H)
    result = (acc * scale).to(Y_ptr.dtype.element_ty)
    _scatter_2d(
        Y_ptr,
        (Y_shape0, Y_shape1),
        (Y_stride0, Y_stride1),
        (tokens[:, None], out_cols[None, :]),
        result,
        USE_INT64,
    )  # padding rows are dropped


def launch_expert_up_kernel(
    stream, grid, X, W, Y, row_token, block_expert, gate, TILE_T, TILE_H, TILE_D, *, hints=None
):
    """`ct.launch(stream, grid, expert_up_kernel, args)`; `hints`: cuTile kernel hints."""
    X, W, Y, row_token = _as_tensor(X), _as_tensor(W), _as_tensor(Y), _as_tensor(row_token)
    block_expert, gate = _as_tensor(block_expert), _as_tensor(gate)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (X, *X.shape, *X.stride(), W, *W.shape, *W.stride(), Y, *Y.shape, *Y.stride())
    args += (
        row_token,
        *row_token.shape,
        *row_token.stride(),
    )
    args += (
        block_expert,
        *block_expert.shape,
        *block_expert.stride(),
    )
    args += (gate, *gate.shape, gate.stride(0), TILE_T, TILE_H, TILE_D)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        X.dtype,
        X.data_ptr() & 15,
        X.shape,
        X.stride(),
        W.dtype,
        W.data_ptr() & 15,
        W.shape,
        W.stride(),
        Y.dtype,
        Y.data_ptr() & 15,
        Y.shape,
        Y.stride(),
        row_token.dtype,
        row_token.data_ptr() & 15,
        row_token.shape,
        row_token.stride(),
        block_expert.dtype,
        block_expert.data_ptr() & 15,
        block_expert.shape,
        block_expert.stride(),
        gate.dtype,
        gate.data_ptr() & 15,
        gate.shape,
        gate.stride(),
        TILE_T,
        TILE_H,
        TILE_D,
        num_ctas,
    )
    if _launch_known(expert_up_kernel, known, stream, grid, args):
        return
    _check_ndim("expert_up_kernel", "X", X, 2)
    _check_ndim("expert_up_kernel", "W", W, 3)
    _check_ndim("expert_up_kernel", "Y", Y, 2)
    _check_ndim("expert_up_kernel", "row_token", row_token, 1)
    _check_ndim("expert_up_kernel", "block_expert", block_expert, 1)
    _check_ndim("expert_up_kernel", "gate", gate, 2)
    tile_elems = max(TILE_T * TILE_H, TILE_T * TILE_D, TILE_D * TILE_H)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = 2 if TILE_T < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {
        t.dtype for t in [X, W, Y, row_token, block_expert, gate] if t.dtype.is_floating_point
    }
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        X_div=_multiples(X.shape, X.stride()),
        W_div=_multiples(W.shape, W.stride()),
        Y_div=_multiples(Y.shape, Y.stride()),
        row_token_div=_multiples(row_token.shape, row_token.stride()),
        block_expert_div=_multiples(block_expert.shape, block_expert.stride()),
        gate_div=_multiples(gate.shape, gate.stride()),
        USE_INT64=_needs_int64(X, W, Y, row_token, block_expert, gate),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = expert_up_kernel[_grid(grid)](
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
        _remember_launch(expert_up_kernel, known, compiled, args, constexprs)


def launch(stream, x, w, y, row_token, block_expert, gate):
    tile_t, tile_h, tile_d = 16, 32, 32
    hidden = w.shape[2]
    grid = (block_expert.shape[0], triton.cdiv(hidden, tile_h), 1)
    launch_expert_up_kernel(
        stream, grid, x, w, y, row_token, block_expert, gate, tile_t, tile_h, tile_d
    )
