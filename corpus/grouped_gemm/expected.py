# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Grouped GEMM: C[g] = A[g] @ B[g] for a list of problems of different sizes, scheduled by a
persistent `while` loop over one flat tile index space shared by all groups."""

import torch
import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _array_tables,
    _as_tensor,
    _by_target,
    _grid,
    _needs_int64,
    _on_stream,
    _ptxas_target,
)


@triton.jit
def _floordiv(a, b):
    """cuTile's `//` floors, as Python's; Triton's integer `//` truncates toward zero."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        q = a // b
    elif (a + b).dtype.is_floating():  # the IEEE quotient rounded to the dtype, then floored
        dt = (a + b).dtype
        ft = dt if dt == tl.float64 else tl.float32  # (fp32's `/` is approximate: div_rn)
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        q = tl.floor((x / y if dt == tl.float64 else tl.div_rn(x, y)).to(dt).to(ft)).to(dt)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) != (b < 0)), q - 1, q)
    return q


@triton.jit
def _mod(a, b):
    """cuTile's `%` takes the sign of the divisor; Triton's integer `%` that of the dividend."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        r = a % b
    else:  # (floats: C's exact fmod, 16-bit ones in fp32, rounded once at the end)
        dt = (a + b).dtype
        ft = tl.float32 if dt.is_floating() and dt.primitive_bitwidth < 32 else dt
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        r = x % y
        r = tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).to(dt)
    return r


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
def grouped_gemm(
    As_ptrs,
    As_shapes,
    As_strides,
    As_count,
    AS_DTYPE: tl.constexpr,
    AS_UNIT: tl.constexpr,
    AS_DIV: tl.constexpr,
    Bs_ptrs,
    Bs_shapes,
    Bs_strides,
    Bs_count,
    BS_DTYPE: tl.constexpr,
    BS_UNIT: tl.constexpr,
    BS_DIV: tl.constexpr,
    Cs_ptrs,
    Cs_shapes,
    Cs_strides,
    Cs_count,
    CS_DTYPE: tl.constexpr,
    CS_UNIT: tl.constexpr,
    CS_DIV: tl.constexpr,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    tile = tl.program_id(0)
    step = tl.num_programs(0)
    first = 0  # flat index of the first tile of group g
    for g in range(As_count):
        A_ptr = tl.multiple_of(
            tl.load(As_ptrs + g).to(tl.pointer_type(AS_DTYPE)), tl.constexpr(AS_DIV[0])
        )
        A_shape0 = tl.multiple_of(
            tl.load(As_shapes + g * 2 + 0).to(tl.int32), tl.constexpr(AS_DIV[3])
        )
        A_shape1 = tl.multiple_of(
            tl.load(As_shapes + g * 2 + 1).to(tl.int32), tl.constexpr(AS_DIV[4])
        )
        A_stride0 = (
            1
            if AS_UNIT[0]
            else tl.multiple_of(tl.load(As_strides + g * 2 + 0), tl.constexpr(AS_DIV[1]))
        )
        A_stride1 = (
            1
            if AS_UNIT[1]
            else tl.multiple_of(tl.load(As_strides + g * 2 + 1), tl.constexpr(AS_DIV[2]))
        )
        B_ptr = tl.multiple_of(
            tl.load(Bs_ptrs + g).to(tl.pointer_type(BS_DTYPE)), tl.constexpr(BS_DIV[0])
        )
        B_shape0 = tl.multiple_of(
            tl.load(Bs_shapes + g * 2 + 0).to(tl.int32), tl.constexpr(BS_DIV[3])
        )
        B_shape1 = tl.multiple_of(
            tl.load(Bs_shapes + g * 2 + 1).to(tl.int32), tl.constexpr(BS_DIV[4])
        )
        B_stride0 = (
            1
            if BS_UNIT[0]
            else tl.multiple_of(tl.load(Bs_strides + g * 2 + 0), tl.constexpr(BS_DIV[1]))
        )
        B_stride1 = (
            1
            if BS_UNIT[1]
            else tl.multiple_of(tl.load(Bs_strides + g * 2 + 1), tl.constexpr(BS_DIV[2]))
        )
        C_ptr = tl.multiple_of(
            tl.load(Cs_ptrs + g).to(tl.pointer_type(CS_DTYPE)), tl.constexpr(CS_DIV[0])
        )
        C_shape0 = tl.multiple_of(
            tl.load(Cs_shapes + g * 2 + 0).to(tl.int32), tl.constexpr(CS_DIV[3])
        )
        C_shape1 = tl.multiple_of(
            tl.load(Cs_shapes + g * 2 + 1).to(tl.int32), tl.constexpr(CS_DIV[4])
        )
        C_stride0 = (
            1
            if CS_UNIT[0]
            else tl.multiple_of(tl.load(Cs_strides + g * 2 + 0), tl.constexpr(CS_DIV[1]))
        )
        C_stride1 = (
            1
            if CS_UNIT[1]
            else tl.multiple_of(tl.load(Cs_strides + g * 2 + 1), tl.constexpr(CS_DIV[2]))
        )
        tiles_m = tl.cdiv(A_shape0, TM)
        tiles_n = tl.cdiv(B_shape1, TN)
        last = first + tiles_m * tiles_n
        while tile < last:
            local = tile - first
            bm = _floordiv(local, tiles_n)
            bn = _mod(local, tiles_n)
            acc = tl.zeros((TM, TN), dtype=tl.float32)
            for k in range(tl.cdiv(A_shape1, TK)):
                offs_A0 = tl.cast(bm, OFFSET_DTYPE) * TM + tl.arange(0, TM)
                offs_k = tl.cast(k, OFFSET_DTYPE) * TK + tl.arange(0, TK)
                mask_A = (offs_A0[:, None] < A_shape0) & (offs_k[None, :] < A_shape1)
                a = tl.load(
                    A_ptr + offs_A0[:, None] * A_stride0 + offs_k[None, :] * A_stride1,
                    mask=mask_A,
                    other=0.0,
                )
                offs_B1 = tl.cast(bn, OFFSET_DTYPE) * TN + tl.arange(0, TN)
                mask_B = (offs_k[:, None] < B_shape0) & (offs_B1[None, :] < B_shape1)
                b = tl.load(
                    B_ptr + offs_k[:, None] * B_stride0 + offs_B1[None, :] * B_stride1,
                    mask=mask_B,
                    other=0.0,
                )
                acc = _dot_any_size(a, b, acc, "ieee")
            offs_C0 = tl.cast(bm, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs_C1 = tl.cast(bn, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            mask_C = (offs_C0[:, None] < C_shape0) & (offs_C1[None, :] < C_shape1)
            tl.store(
                C_ptr + offs_C0[:, None] * C_stride0 + offs_C1[None, :] * C_stride1,
                acc.to(C_ptr.dtype.element_ty),
                mask=mask_C,
            )
            tile += step
        first = last


def launch_grouped_gemm(stream, grid, As, Bs, Cs, TM, TN, TK, *, hints=None):
    """`ct.launch(stream, grid, grouped_gemm, args)`; `hints`: cuTile kernel hints."""
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    As = [_as_tensor(t) for t in As]
    As_tables = _array_tables("grouped_gemm", "As", As, 2)
    Bs = [_as_tensor(t) for t in Bs]
    Bs_tables = _array_tables("grouped_gemm", "Bs", Bs, 2)
    Cs = [_as_tensor(t) for t in Cs]
    Cs_tables = _array_tables("grouped_gemm", "Cs", Cs, 2)
    args = (*As_tables, *Bs_tables, *Cs_tables, TM, TN, TK)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = 2 if TM < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [*As, *Bs, *Cs] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(USE_INT64=_needs_int64(*As, *Bs, *Cs))
    with _on_stream(stream):
        while True:
            try:
                grouped_gemm[_grid(grid)](
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


def launch(stream, As, Bs, Cs):
    tm, tn, tk = 32, 32, 32
    launch_grouped_gemm(stream, (6,), As, Bs, Cs, tm, tn, tk)
