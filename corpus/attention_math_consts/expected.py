# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Attention forward with the softmax computed in base 2, as cuTile's own attention sample is
written: module constants computed with `math` (1 / ln 2), `-math.inf` for masked scores, the
padding mode held in a local alias. q, k, v, out are (batch * heads, seq, head_dim)."""

import math

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
    _scalar_key,
)


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
def _exp2(x):
    """ct.exp2: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.exp2(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _sum(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.sum keeps the input dtype; tl.sum accumulates small types in a wider one.
    Booleans are summed as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.sum(x, axis=AXIS, keep_dims=KEEP_DIMS).to(x.dtype)


@triton.jit
def _store_tile_3d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * TILE[1] + tl.arange(0, TILE[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * TILE[2] + tl.arange(0, TILE[2])
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
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


LOG2_E = 1.0 / math.log(2)  # exp(x) == exp2(x * LOG2_E)
MASKED = -math.inf


@triton.jit
def attention_exp2_kernel(
    Q_ptr,
    Q_shape0,
    Q_shape1,
    Q_shape2,
    Q_stride0,
    Q_stride1,
    Q_stride2,
    K_ptr,
    K_shape0,
    K_shape1,
    K_shape2,
    K_stride0,
    K_stride1,
    K_stride2,
    V_ptr,
    V_shape0,
    V_shape1,
    V_shape2,
    V_stride0,
    V_stride1,
    V_stride2,
    O_ptr,
    O_shape0,
    O_shape1,
    O_shape2,
    O_stride0,
    O_stride1,
    O_stride2,
    scale,
    BQ: tl.constexpr,
    BK: tl.constexpr,
    HD: tl.constexpr,
    Q_div: tl.constexpr,
    K_div: tl.constexpr,
    V_div: tl.constexpr,
    O_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    Q_stride0 = Q_stride0 // Q_div[0] * Q_div[0]
    Q_stride1 = Q_stride1 // Q_div[1] * Q_div[1]
    Q_stride2 = Q_stride2 // Q_div[2] * Q_div[2]
    Q_shape0 = Q_shape0 // Q_div[3] * Q_div[3]
    Q_shape1 = Q_shape1 // Q_div[4] * Q_div[4]
    Q_shape2 = Q_shape2 // Q_div[5] * Q_div[5]
    K_stride0 = K_stride0 // K_div[0] * K_div[0]
    K_stride1 = K_stride1 // K_div[1] * K_div[1]
    K_stride2 = K_stride2 // K_div[2] * K_div[2]
    K_shape0 = K_shape0 // K_div[3] * K_div[3]
    K_shape1 = K_shape1 // K_div[4] * K_div[4]
    K_shape2 = K_shape2 // K_div[5] * K_div[5]
    V_stride0 = V_stride0 // V_div[0] * V_div[0]
    V_stride1 = V_stride1 // V_div[1] * V_div[1]
    V_stride2 = V_stride2 // V_div[2] * V_div[2]
    V_shape0 = V_shape0 // V_div[3] * V_div[3]
    V_shape1 = V_shape1 // V_div[4] * V_div[4]
    V_shape2 = V_shape2 // V_div[5] * V_div[5]
    O_stride0 = O_stride0 // O_div[0] * O_div[0]
    O_stride1 = O_stride1 // O_div[1] * O_div[1]
    O_stride2 = O_stride2 // O_div[2] * O_div[2]
    O_shape0 = O_shape0 // O_div[3] * O_div[3]
    O_shape1 = O_shape1 // O_div[4] * O_div[4]
    O_shape2 = O_shape2 // O_div[5] * O_div[5]
    LOG2_E: tl.constexpr = 1.4426950408889634
    MASKED: tl.constexpr = float("-inf")
    qb = tl.program_id(0)
    head = tl.program_id(1)
    n_keys = K_shape1
    scale2 = scale * LOG2_E  # folded into the scores once, so the loop uses exp2 only

    q = tl.reshape(
        _load_tile_3d(
            Q_ptr,
            (Q_shape0, Q_shape1, Q_shape2),
            (Q_stride0, Q_stride1, Q_stride2),
            (head, qb, 0),
            (1, BQ, HD),
            USE_INT64,
            PADDING=0.0,
        ),
        (BQ, HD),
    )
    row_max = tl.full((BQ, 1), MASKED, tl.float32)
    row_sum = tl.full((BQ, 1), 0.0, tl.float32)
    acc = tl.full((BQ, HD), 0.0, tl.float32)

    for kb in range(tl.cdiv(n_keys, BK)):
        k = _load_tile_3d(
            K_ptr,
            (K_shape0, K_shape1, K_shape2),
            (K_stride0, K_stride1, K_stride2),
            (head, kb, 0),
            (1, BK, HD),
            USE_INT64,
            PADDING=0.0,
        )
        v = _load_tile_3d(
            V_ptr,
            (V_shape0, V_shape1, V_shape2),
            (V_stride0, V_stride1, V_stride2),
            (head, kb, 0),
            (1, BK, HD),
            USE_INT64,
            PADDING=0.0,
        )
        k = tl.reshape(k, (BK, HD))
        v = tl.reshape(v, (BK, HD))
        s = _dot_any_size(q, tl.trans(k), tl.full((BQ, BK), 0.0, tl.float32), "ieee") * scale2
        key_pos = kb * BK + tl.arange(0, BK)
        s = tl.where(key_pos[None, :] < n_keys, s, MASKED)
        new_max = tl.maximum(row_max, tl.max(s, axis=1, keep_dims=True))
        p = _exp2(s - new_max)
        correction = _exp2(row_max - new_max)
        row_sum = row_sum * correction + _sum(p, 1, True)
        acc = _dot_any_size(p.to(V_ptr.dtype.element_ty), v, acc * correction, "ieee")
        row_max = new_max

    out = tl.reshape(acc / row_sum, (1, BQ, HD)).to(O_ptr.dtype.element_ty)
    _store_tile_3d(
        O_ptr,
        (O_shape0, O_shape1, O_shape2),
        (O_stride0, O_stride1, O_stride2),
        (head, qb, 0),
        out,
        USE_INT64,
    )


def launch_attention_exp2_kernel(stream, grid, Q, K, V, O, scale, BQ, BK, HD, *, hints=None):
    """`ct.launch(stream, grid, attention_exp2_kernel, args)`; `hints`: cuTile kernel hints."""
    Q, K, V, O = _as_tensor(Q), _as_tensor(K), _as_tensor(V), _as_tensor(O)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (Q, *Q.shape, *Q.stride(), K, *K.shape, *K.stride(), V, *V.shape, *V.stride())
    args += (O, *O.shape, *O.stride(), scale, BQ, BK, HD)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        Q.dtype,
        Q.data_ptr() & 15,
        Q.shape,
        Q.stride(),
        K.dtype,
        K.data_ptr() & 15,
        K.shape,
        K.stride(),
        V.dtype,
        V.data_ptr() & 15,
        V.shape,
        V.stride(),
        O.dtype,
        O.data_ptr() & 15,
        O.shape,
        O.stride(),
        _scalar_key(scale),
        BQ,
        BK,
        HD,
        num_ctas,
    )
    if _launch_known(attention_exp2_kernel, known, stream, grid, args):
        return
    _check_ndim("attention_exp2_kernel", "Q", Q, 3)
    _check_ndim("attention_exp2_kernel", "K", K, 3)
    _check_ndim("attention_exp2_kernel", "V", V, 3)
    _check_ndim("attention_exp2_kernel", "O", O, 3)
    tile_elems = max(BQ * HD, BK * HD, BQ * BK)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = 2 if BQ < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [Q, K, V, O] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        Q_div=_multiples(Q.shape, Q.stride()),
        K_div=_multiples(K.shape, K.stride()),
        V_div=_multiples(V.shape, V.stride()),
        O_div=_multiples(O.shape, O.stride()),
        USE_INT64=_needs_int64(Q, K, V, O),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = attention_exp2_kernel[_grid(grid)](
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
        _remember_launch(attention_exp2_kernel, known, compiled, args, constexprs)


def launch(stream, q, k, v, out):
    heads, seq_q, head_dim = q.shape
    bq, bk = 32, 32
    scale = 1.0 / math.sqrt(head_dim)
    launch_attention_exp2_kernel(
        stream, (triton.cdiv(seq_q, bq), heads, 1), q, k, v, out, scale, bq, bk, head_dim
    )
