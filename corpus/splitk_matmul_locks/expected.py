# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Split-K matmul whose partial products are combined under a per-tile spin lock: the first
block to take the lock of an output tile writes its partial product, later ones add theirs.
A counter per tile (read and bumped inside the lock) says which case applies, so C need not
be zeroed first."""

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
    _tma_descriptor,
)


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
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


@triton.jit
def _atomic_cas_1d(
    ptr, shape, stride, index, expected, desired, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None
):
    """ct.atomic_cas: where ptr[index] == expected, store desired; return the old values.
    Out-of-bounds elements (negative indices included) are untouched and return `expected`."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    # tl.atomic_cas neither broadcasts nor casts: the operands take offs's shape, ptr's dtype
    offs, cmp = tl.broadcast(offs, tl.cast(expected, ptr.dtype.element_ty))
    offs, val = tl.broadcast(offs, tl.cast(desired, ptr.dtype.element_ty))
    if CHECK_BOUNDS:
        # (no mask) out-of-bounds lanes swap element 0 for itself, which never changes memory;
        # an empty array has no element 0: no swap, every lane returns `expected`
        ok = (i0 >= 0) & (i0 < shape[0])
        if shape[0] > 0:
            old = tl.atomic_cas(
                ptr + tl.where(ok, offs, 0), cmp, tl.where(ok, val, cmp), sem=SEM, scope=SCOPE
            )
        else:
            old = cmp
        return tl.where(ok, old, cmp)
    else:
        return tl.atomic_cas(ptr + offs, cmp, val, sem=SEM, scope=SCOPE)


@triton.jit
def _store_tile_1d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    ptrs = ptr + offs0 * stride[0]
    mask = offs0 < shape[0] if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def _atomic_xchg_1d(
    ptr, shape, stride, index, update, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None
):
    """ct.atomic_xchg: combine `update` into ptr[index] atomically, returning the old values;
    out-of-bounds elements (negative indices included) are untouched."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    ok = (i0 >= 0) & (i0 < shape[0]) if CHECK_BOUNDS else True  # (True: Triton's mask when none)
    return tl.atomic_xchg(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)


@triton.jit
def splitk_matmul_locked(
    a_ptr,
    a_shape0,
    a_shape1,
    a_stride0,
    a_stride1,
    b_ptr,
    b_shape0,
    b_shape1,
    b_stride0,
    b_stride1,
    c_ptr,
    c_shape0,
    c_shape1,
    c_stride0,
    c_stride1,
    locks_ptr,
    locks_shape0,
    locks_stride0,
    counts_ptr,
    counts_shape0,
    counts_stride0,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    SPLIT_K: tl.constexpr,
    a_desc,
    b_desc,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    c_div: tl.constexpr,
    locks_div: tl.constexpr,
    counts_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_stride1 = a_stride1 // a_div[1] * a_div[1]
    a_shape0 = a_shape0 // a_div[2] * a_div[2]
    a_shape1 = a_shape1 // a_div[3] * a_div[3]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_stride1 = b_stride1 // b_div[1] * b_div[1]
    b_shape0 = b_shape0 // b_div[2] * b_div[2]
    b_shape1 = b_shape1 // b_div[3] * b_div[3]
    c_stride0 = c_stride0 // c_div[0] * c_div[0]
    c_stride1 = c_stride1 // c_div[1] * c_div[1]
    c_shape0 = c_shape0 // c_div[2] * c_div[2]
    c_shape1 = c_shape1 // c_div[3] * c_div[3]
    locks_stride0 = locks_stride0 // locks_div[0] * locks_div[0]
    locks_shape0 = locks_shape0 // locks_div[1] * locks_div[1]
    counts_stride0 = counts_stride0 // counts_div[0] * counts_div[0]
    counts_shape0 = counts_shape0 // counts_div[1] * counts_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid_m, pid_n, pid_k = (tl.program_id(0), tl.program_id(1), tl.program_id(2))
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k in range(pid_k, tl.cdiv(a_shape1, TK), SPLIT_K):
        offs_a0 = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_k = tl.cast(k, OFFSET_DTYPE) * TK + tl.arange(0, TK)
        mask_a = (offs_a0[:, None] < a_shape0) & (offs_k[None, :] < a_shape1)
        x = (
            a_desc.load([pid_m * TM, k * TK])
            if a_desc is not None
            else tl.load(
                a_ptr + offs_a0[:, None] * a_stride0 + offs_k[None, :] * a_stride1,
                mask=mask_a,
                other=0.0,
            )
        )
        offs_b1 = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_b = (offs_k[:, None] < b_shape0) & (offs_b1[None, :] < b_shape1)
        y = (
            b_desc.load([k * TK, pid_n * TN])
            if b_desc is not None
            else tl.load(
                b_ptr + offs_k[:, None] * b_stride0 + offs_b1[None, :] * b_stride1,
                mask=mask_b,
                other=0.0,
            )
        )
        acc = _dot_any_size(x, y, acc, "ieee")
    tile_id = pid_m * tl.num_programs(1) + pid_n
    while (
        _atomic_cas_1d(
            locks_ptr, (locks_shape0,), (locks_stride0,), (tile_id,), 0, 1, USE_INT64, SEM="acquire"
        )
        == 1
    ):
        pass
    seen = tl.load(
        counts_ptr + tl.cast(tile_id, tl.int64) * counts_stride0,
        mask=(tile_id >= 0) & (tile_id < counts_shape0),
    )
    if seen > 0:
        offs_c0 = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_c1 = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_c = (offs_c0[:, None] < c_shape0) & (offs_c1[None, :] < c_shape1)
        acc += tl.load(
            c_ptr + offs_c0[:, None] * c_stride0 + offs_c1[None, :] * c_stride1,
            mask=mask_c,
            other=0.0,
        )
    offs_c0_2 = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_c1_2 = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_c_2 = (offs_c0_2[:, None] < c_shape0) & (offs_c1_2[None, :] < c_shape1)
    tl.store(
        c_ptr + offs_c0_2[:, None] * c_stride0 + offs_c1_2[None, :] * c_stride1,
        acc.to(c_ptr.dtype.element_ty),
        mask=mask_c_2,
    )
    _store_tile_1d(
        counts_ptr,
        (counts_shape0,),
        (counts_stride0,),
        (tile_id,),
        tl.full((1,), seen + 1, counts_ptr.dtype.element_ty),
        USE_INT64,
    )
    _atomic_xchg_1d(
        locks_ptr, (locks_shape0,), (locks_stride0,), (tile_id,), 0, USE_INT64, SEM="release"
    )


def launch_splitk_matmul_locked(
    stream, grid, a, b, c, locks, counts, TM, TN, TK, SPLIT_K, *, hints=None
):
    """`ct.launch(stream, grid, splitk_matmul_locked, args)`; `hints`: cuTile kernel hints."""
    a, b, c, locks = _as_tensor(a), _as_tensor(b), _as_tensor(c), _as_tensor(locks)
    counts = _as_tensor(counts)
    # TMA descriptors for the matrix products' tiles where the arrays allow (None: pointers)
    a_desc = _tma_descriptor(a, (TM, TK))
    b_desc = _tma_descriptor(b, (TK, TN))
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), c, *c.shape, *c.stride())
    args += (locks, *locks.shape, *locks.stride(), counts, *counts.shape, *counts.stride(), TM, TN)
    args += (TK, SPLIT_K, a_desc, b_desc)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        a.dtype,
        a.data_ptr() & 15,
        a.shape,
        a.stride(),
        b.dtype,
        b.data_ptr() & 15,
        b.shape,
        b.stride(),
        c.dtype,
        c.data_ptr() & 15,
        c.shape,
        c.stride(),
        locks.dtype,
        locks.data_ptr() & 15,
        locks.shape,
        locks.stride(),
        counts.dtype,
        counts.data_ptr() & 15,
        counts.shape,
        counts.stride(),
        TM,
        TN,
        TK,
        SPLIT_K,
        num_ctas,
    )
    if _launch_known(splitk_matmul_locked, known, stream, grid, args):
        return
    _check_ndim("splitk_matmul_locked", "a", a, 2)
    _check_ndim("splitk_matmul_locked", "b", b, 2)
    _check_ndim("splitk_matmul_locked", "c", c, 2)
    _check_ndim("splitk_matmul_locked", "locks", locks, 1)
    _check_ndim("splitk_matmul_locked", "counts", counts, 1)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    if tile_elems < 128 * 256 and (a_desc is not None or b_desc is not None):
        num_warps, num_stages = 4, 4  # TMA operands: best of 8/3, 8/4, 4/4 on the H200
    num_stages = 2 if TM < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [a, b, c, locks, counts] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        a_div=_multiples(a.shape, a.stride()),
        b_div=_multiples(b.shape, b.stride()),
        c_div=_multiples(c.shape, c.stride()),
        locks_div=_multiples(locks.shape, locks.stride()),
        counts_div=_multiples(counts.shape, counts.stride()),
        USE_INT64=_needs_int64(a, b, c, locks, counts),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = splitk_matmul_locked[_grid(grid)](
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
        _remember_launch(splitk_matmul_locked, known, compiled, args, constexprs)


def launch(stream, a, b, c):
    tm, tn, tk, split_k = 32, 32, 32, 3
    m, n = c.shape
    grid = (triton.cdiv(m, tm), triton.cdiv(n, tn), split_k)
    locks = torch.zeros(grid[0] * grid[1], dtype=torch.int32, device=c.device)
    counts = torch.zeros(grid[0] * grid[1], dtype=torch.int32, device=c.device)
    launch_splitk_matmul_locked(stream, grid, a, b, c, locks, counts, tm, tn, tk, split_k)
