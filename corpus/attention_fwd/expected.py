# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
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


NEG_INF = float("-inf")


@triton.jit
def flash_attn_fwd_kernel(
    q_ptr,
    q_shape0,
    q_shape1,
    q_shape2,
    q_stride0,
    q_stride1,
    q_stride2,
    k_ptr,
    k_shape0,
    k_shape1,
    k_shape2,
    k_stride0,
    k_stride1,
    k_stride2,
    v_ptr,
    v_shape0,
    v_shape1,
    v_shape2,
    v_stride0,
    v_stride1,
    v_stride2,
    out_ptr,
    out_shape0,
    out_shape1,
    out_shape2,
    out_stride0,
    out_stride1,
    out_stride2,
    sm_scale,
    TQ: tl.constexpr,
    TK: tl.constexpr,
    D: tl.constexpr,
    CAUSAL: tl.constexpr,
    q_div: tl.constexpr,
    k_div: tl.constexpr,
    v_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Flash-attention forward (online softmax) for q, k, v, out of shape (B*H, S, D).

    Block (qi, bh) computes TQ query rows of one (batch, head). It streams over the keys
    in TK-wide tiles, keeping the running row max m_i, the running softmax denominator
    l_i and the unnormalised output acc, all in float32. Scores of keys past the sequence
    end (and, when CAUSAL, of keys after the query) are set to -inf before the softmax.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    q_stride0 = q_stride0 // q_div[0] * q_div[0]
    q_stride1 = q_stride1 // q_div[1] * q_div[1]
    q_stride2 = q_stride2 // q_div[2] * q_div[2]
    q_shape0 = q_shape0 // q_div[3] * q_div[3]
    q_shape1 = q_shape1 // q_div[4] * q_div[4]
    q_shape2 = q_shape2 // q_div[5] * q_div[5]
    k_stride0 = k_stride0 // k_div[0] * k_div[0]
    k_stride1 = k_stride1 // k_div[1] * k_div[1]
    k_stride2 = k_stride2 // k_div[2] * k_div[2]
    k_shape0 = k_shape0 // k_div[3] * k_div[3]
    k_shape1 = k_shape1 // k_div[4] * k_div[4]
    k_shape2 = k_shape2 // k_div[5] * k_div[5]
    v_stride0 = v_stride0 // v_div[0] * v_div[0]
    v_stride1 = v_stride1 // v_div[1] * v_div[1]
    v_stride2 = v_stride2 // v_div[2] * v_div[2]
    v_shape0 = v_shape0 // v_div[3] * v_div[3]
    v_shape1 = v_shape1 // v_div[4] * v_div[4]
    v_shape2 = v_shape2 // v_div[5] * v_div[5]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_stride2 = out_stride2 // out_div[2] * out_div[2]
    out_shape0 = out_shape0 // out_div[3] * out_div[3]
    out_shape1 = out_shape1 // out_div[4] * out_div[4]
    out_shape2 = out_shape2 // out_div[5] * out_div[5]
    NEG_INF: tl.constexpr = float("-inf")
    qi = tl.program_id(0)
    bh = tl.program_id(1)
    seq_len = q_shape1

    qt = tl.reshape(
        _load_tile_3d(
            q_ptr,
            (q_shape0, q_shape1, q_shape2),
            (q_stride0, q_stride1, q_stride2),
            (bh, qi, 0),
            (1, TQ, D),
            USE_INT64,
            PADDING=0.0,
        ),
        (TQ, D),
    )
    q_pos = qi * TQ + tl.arange(0, TQ)

    m_i = tl.full((TQ, 1), NEG_INF, tl.float32)
    l_i = tl.zeros((TQ, 1), dtype=tl.float32)
    acc = tl.zeros((TQ, D), dtype=tl.float32)

    num_kv = tl.cdiv(seq_len, TK)
    if CAUSAL:
        # Key tiles entirely after the last query row of this block are fully masked.
        num_kv = tl.minimum(num_kv, tl.cdiv((qi + 1) * TQ, TK))

    for j in range(num_kv):
        kt = tl.reshape(
            _load_tile_3d(
                k_ptr,
                (k_shape0, k_shape1, k_shape2),
                (k_stride0, k_stride1, k_stride2),
                (bh, j, 0),
                (1, TK, D),
                USE_INT64,
                PADDING=0.0,
            ),
            (TK, D),
        )
        vt = tl.reshape(
            _load_tile_3d(
                v_ptr,
                (v_shape0, v_shape1, v_shape2),
                (v_stride0, v_stride1, v_stride2),
                (bh, j, 0),
                (1, TK, D),
                USE_INT64,
                PADDING=0.0,
            ),
            (TK, D),
        )

        s = _dot_any_size(qt, tl.trans(kt), tl.zeros((TQ, TK), dtype=tl.float32), "ieee") * sm_scale
        k_pos = j * TK + tl.arange(0, TK)
        valid = k_pos[None, :] < seq_len  # (1, TK)
        if CAUSAL:
            valid = valid & (k_pos[None, :] <= q_pos[:, None])  # (TQ, TK)
        s = tl.where(valid, s, NEG_INF)

        m_new = tl.maximum(m_i, tl.max(s, axis=1, keep_dims=True))
        alpha = tl.exp(m_i - m_new)  # rescales what was accumulated so far
        p = tl.exp(s - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1, keep_dims=True)
        acc = _dot_any_size(p.to(vt.dtype), vt, acc * alpha, "ieee")
        m_i = m_new

    o = tl.reshape(acc / l_i, (1, TQ, D))
    _store_tile_3d(
        out_ptr,
        (out_shape0, out_shape1, out_shape2),
        (out_stride0, out_stride1, out_stride2),
        (bh, qi, 0),
        o.to(out_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_flash_attn_fwd_kernel(
    stream, grid, q, k, v, out, sm_scale, TQ, TK, D, CAUSAL, *, hints=None
):
    """`ct.launch(stream, grid, flash_attn_fwd_kernel, args)`; `hints`: cuTile kernel hints."""
    q, k, v, out = _as_tensor(q), _as_tensor(k), _as_tensor(v), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (q, *q.shape, *q.stride(), k, *k.shape, *k.stride(), v, *v.shape, *v.stride())
    args += (out, *out.shape, *out.stride(), sm_scale, TQ, TK, D, CAUSAL)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        q.dtype,
        q.data_ptr() & 15,
        q.shape,
        q.stride(),
        k.dtype,
        k.data_ptr() & 15,
        k.shape,
        k.stride(),
        v.dtype,
        v.data_ptr() & 15,
        v.shape,
        v.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        _scalar_key(sm_scale),
        TQ,
        TK,
        D,
        CAUSAL,
        num_ctas,
    )
    if _launch_known(flash_attn_fwd_kernel, known, stream, grid, args):
        return
    _check_ndim("flash_attn_fwd_kernel", "q", q, 3)
    _check_ndim("flash_attn_fwd_kernel", "k", k, 3)
    _check_ndim("flash_attn_fwd_kernel", "v", v, 3)
    _check_ndim("flash_attn_fwd_kernel", "out", out, 3)
    tile_elems = max(
        TQ * D,
        TK * D,
        TQ * TK,
        (TQ if TQ != 1 else (TQ if CAUSAL else 1) if (TQ if CAUSAL else 1) != 1 else TQ) * D,
    )
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = (
        2
        if min(
            TQ,
            (
                ((TQ if CAUSAL else 1) if (TQ if CAUSAL else 1) != 1 else TQ)
                if ((TQ if CAUSAL else 1) if (TQ if CAUSAL else 1) != 1 else TQ) != 1
                else (
                    TQ if TQ != 1 else ((TQ if CAUSAL else 1) if (TQ if CAUSAL else 1) != 1 else TQ)
                )
            ),
        )
        < 16
        else num_stages
    )  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [q, k, v, out] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        q_div=_multiples(q.shape, q.stride()),
        k_div=_multiples(k.shape, k.stride()),
        v_div=_multiples(v.shape, v.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(q, k, v, out),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = flash_attn_fwd_kernel[_grid(grid)](
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
        _remember_launch(flash_attn_fwd_kernel, known, compiled, args, constexprs)


def launch(stream, q, k, v, out, causal):
    bh, seq_len, head_dim = q.shape
    tq, tk = 32, 16
    sm_scale = 1.0 / math.sqrt(head_dim)
    grid = (triton.cdiv(seq_len, tq), bh, 1)
    launch_flash_attn_fwd_kernel(stream, grid, q, k, v, out, sm_scale, tq, tk, head_dim, causal)
