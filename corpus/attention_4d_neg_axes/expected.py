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
def _load_tile_4d(ptr, shape, stride, idx, BLOCK, USE_INT64, PADDING=None, CHECK_BOUNDS=True):
    """ct.load: tile `idx` of the array's tile space (elements idx * BLOCK + offset); out-of-bounds
    elements read as PADDING (None: undetermined, as cuTile's default)."""
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * BLOCK[0] + tl.arange(0, BLOCK[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * BLOCK[1] + tl.arange(0, BLOCK[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * BLOCK[2] + tl.arange(0, BLOCK[2])
    offs3 = (tl.cast(idx[3], tl.int64) if USE_INT64 else idx[3]) * BLOCK[3] + tl.arange(0, BLOCK[3])
    ptrs = (
        ptr
        + offs0[:, None, None, None] * stride[0]
        + offs1[None, :, None, None] * stride[1]
        + offs2[None, None, :, None] * stride[2]
        + offs3[None, None, None, :] * stride[3]
    )
    mask = (
        (offs0[:, None, None, None] < shape[0])
        & (offs1[None, :, None, None] < shape[1])
        & (offs2[None, None, :, None] < shape[2])
        & (offs3[None, None, None, :] < shape[3])
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
def _exp(x):
    """ct.exp: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.exp(xf)
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
def _store_tile_4d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * TILE[1] + tl.arange(0, TILE[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * TILE[2] + tl.arange(0, TILE[2])
    offs3 = (tl.cast(idx[3], tl.int64) if USE_INT64 else idx[3]) * TILE[3] + tl.arange(0, TILE[3])
    ptrs = (
        ptr
        + offs0[:, None, None, None] * stride[0]
        + offs1[None, :, None, None] * stride[1]
        + offs2[None, None, :, None] * stride[2]
        + offs3[None, None, None, :] * stride[3]
    )
    mask = (
        (offs0[:, None, None, None] < shape[0])
        & (offs1[None, :, None, None] < shape[1])
        & (offs2[None, None, :, None] < shape[2])
        & (offs3[None, None, None, :] < shape[3])
        if CHECK_BOUNDS
        else True
    )
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def scaled_scores(q, k, scale):
    """q @ k^T * scale for one (TQ, D) query tile and one (TK, D) key tile, in float32."""
    s = _dot_any_size(q, tl.trans(k), tl.zeros((q.shape[0], k.shape[0]), dtype=tl.float32), "ieee")
    return s * scale


@triton.jit
def online_update(s, m_prev, l_prev):
    """One step of the streaming softmax along the last axis: new running max, the factor
    rescaling what was accumulated, the probabilities and the new running sum."""
    m_new = tl.maximum(m_prev, tl.max(s, axis=1, keep_dims=True))
    alpha = _exp(m_prev - m_new)
    p = _exp(s - m_new)
    return (m_new, alpha, p, l_prev * alpha + _sum(p, 1, True))


@triton.jit
def attention_bhsd(
    q_ptr,
    q_shape0,
    q_shape1,
    q_shape2,
    q_shape3,
    q_stride0,
    q_stride1,
    q_stride2,
    q_stride3,
    k_ptr,
    k_shape0,
    k_shape1,
    k_shape2,
    k_shape3,
    k_stride0,
    k_stride1,
    k_stride2,
    k_stride3,
    v_ptr,
    v_shape0,
    v_shape1,
    v_shape2,
    v_shape3,
    v_stride0,
    v_stride1,
    v_stride2,
    v_stride3,
    out_ptr,
    out_shape0,
    out_shape1,
    out_shape2,
    out_shape3,
    out_stride0,
    out_stride1,
    out_stride2,
    out_stride3,
    scale,
    TQ: tl.constexpr,
    TK: tl.constexpr,
    D: tl.constexpr,
    q_div: tl.constexpr,
    k_div: tl.constexpr,
    v_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Attention over (batch, heads, seq, head_dim) tensors; block (qi, b * H + h)."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    q_stride0 = q_stride0 // q_div[0] * q_div[0]
    q_stride1 = q_stride1 // q_div[1] * q_div[1]
    q_stride2 = q_stride2 // q_div[2] * q_div[2]
    q_stride3 = q_stride3 // q_div[3] * q_div[3]
    q_shape0 = q_shape0 // q_div[4] * q_div[4]
    q_shape1 = q_shape1 // q_div[5] * q_div[5]
    q_shape2 = q_shape2 // q_div[6] * q_div[6]
    q_shape3 = q_shape3 // q_div[7] * q_div[7]
    k_stride0 = k_stride0 // k_div[0] * k_div[0]
    k_stride1 = k_stride1 // k_div[1] * k_div[1]
    k_stride2 = k_stride2 // k_div[2] * k_div[2]
    k_stride3 = k_stride3 // k_div[3] * k_div[3]
    k_shape0 = k_shape0 // k_div[4] * k_div[4]
    k_shape1 = k_shape1 // k_div[5] * k_div[5]
    k_shape2 = k_shape2 // k_div[6] * k_div[6]
    k_shape3 = k_shape3 // k_div[7] * k_div[7]
    v_stride0 = v_stride0 // v_div[0] * v_div[0]
    v_stride1 = v_stride1 // v_div[1] * v_div[1]
    v_stride2 = v_stride2 // v_div[2] * v_div[2]
    v_stride3 = v_stride3 // v_div[3] * v_div[3]
    v_shape0 = v_shape0 // v_div[4] * v_div[4]
    v_shape1 = v_shape1 // v_div[5] * v_div[5]
    v_shape2 = v_shape2 // v_div[6] * v_div[6]
    v_shape3 = v_shape3 // v_div[7] * v_div[7]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_stride2 = out_stride2 // out_div[2] * out_div[2]
    out_stride3 = out_stride3 // out_div[3] * out_div[3]
    out_shape0 = out_shape0 // out_div[4] * out_div[4]
    out_shape1 = out_shape1 // out_div[5] * out_div[5]
    out_shape2 = out_shape2 // out_div[6] * out_div[6]
    out_shape3 = out_shape3 // out_div[7] * out_div[7]
    qi = tl.program_id(0)
    heads = q_shape1
    b = tl.program_id(1) // heads
    h = tl.program_id(1) % heads
    seq_k = k_shape2
    qt = _load_tile_4d(
        q_ptr,
        (q_shape0, q_shape1, q_shape2, q_shape3),
        (q_stride0, q_stride1, q_stride2, q_stride3),
        (b, h, qi, 0),
        (1, 1, TQ, D),
        USE_INT64,
        PADDING=0.0,
    )
    qt = tl.reshape(qt, (TQ, D))
    m_i = tl.full((TQ, 1), float("-inf"), tl.float32)
    l_i = tl.zeros((TQ, 1), dtype=tl.float32)
    acc = tl.zeros((TQ, D), dtype=tl.float32)
    for j in range(tl.cdiv(seq_k, TK)):
        kt = _load_tile_4d(
            k_ptr,
            (k_shape0, k_shape1, k_shape2, k_shape3),
            (k_stride0, k_stride1, k_stride2, k_stride3),
            (b, h, j, 0),
            (1, 1, TK, D),
            USE_INT64,
            PADDING=0.0,
        )
        vt = _load_tile_4d(
            v_ptr,
            (v_shape0, v_shape1, v_shape2, v_shape3),
            (v_stride0, v_stride1, v_stride2, v_stride3),
            (b, h, j, 0),
            (1, 1, TK, D),
            USE_INT64,
            PADDING=0.0,
        )
        s = scaled_scores(qt, tl.reshape(kt, (TK, D)), scale)
        cols = j * TK + tl.arange(0, TK)
        s = tl.where(cols[None, :] < seq_k, s, float("-inf"))
        m_i, alpha, p, l_i = online_update(s, m_i, l_i)
        acc = tl.dot(
            p.to(vt.dtype),
            tl.reshape(vt, (TK, D)),
            acc * alpha,
            input_precision="ieee",
            max_num_imprecise_acc=0,
        )
    o = tl.reshape(acc / l_i, (1, 1, TQ, D))
    _store_tile_4d(
        out_ptr,
        (out_shape0, out_shape1, out_shape2, out_shape3),
        (out_stride0, out_stride1, out_stride2, out_stride3),
        (b, h, qi, 0),
        o.to(out_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_attention_bhsd(stream, grid, q, k, v, out, scale, TQ, TK, D, *, hints=None):
    """`ct.launch(stream, grid, attention_bhsd, args)`; `hints`: cuTile kernel hints."""
    q, k, v, out = _as_tensor(q), _as_tensor(k), _as_tensor(v), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (q, *q.shape, *q.stride(), k, *k.shape, *k.stride(), v, *v.shape, *v.stride())
    args += (out, *out.shape, *out.stride(), scale, TQ, TK, D)
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
        _scalar_key(scale),
        TQ,
        TK,
        D,
        num_ctas,
    )
    if _launch_known(attention_bhsd, known, stream, grid, args):
        return
    _check_ndim("attention_bhsd", "q", q, 4)
    _check_ndim("attention_bhsd", "k", k, 4)
    _check_ndim("attention_bhsd", "v", v, 4)
    _check_ndim("attention_bhsd", "out", out, 4)
    tile_elems = max(TQ * D, TK * D)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
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
                compiled = attention_bhsd[_grid(grid)](
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
        _remember_launch(attention_bhsd, known, compiled, args, constexprs)


def launch(stream, q, k, v, out):
    batch, heads, seq_q, d = q.shape
    tq, tk = 32, 32
    grid = (triton.cdiv(seq_q, tq), batch * heads, 1)
    launch_attention_bhsd(stream, grid, q, k, v, out, 1.0 / math.sqrt(d), tq, tk, d)
