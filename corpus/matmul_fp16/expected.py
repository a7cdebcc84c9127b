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
    _tma_descriptor,
    _walk_programs,
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


@triton.jit(do_not_specialize=["grid_x", "grid_y"])
def matmul_kernel(
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
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    a_desc,
    b_desc,
    grid_x,
    grid_y,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    c_div: tl.constexpr,
    FLATTEN: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """C = A @ B with half-precision operands and a float32 accumulator.

    One (TM, TN) output tile per block, marching over K in TK steps. The K tail is
    zero-padded on both operands so the extra products are exactly zero.
    """
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
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # the grid's blocks in a loop, in the order the GPU starts them: with TMA operands
    # the launcher runs one program per SM, pipelined across output tiles
    for block in tl.range(tl.program_id(0), grid_x * grid_y, tl.num_programs(0), flatten=FLATTEN):
        block_x = block % grid_x
        block_y = block // grid_x
        pid_m = block_x
        pid_n = block_y
        num_k = tl.cdiv(a_shape1, TK)
        acc = tl.zeros((TM, TN), dtype=tl.float32)
        for k in range(num_k):
            offs_a0 = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs_k = tl.cast(k, OFFSET_DTYPE) * TK + tl.arange(0, TK)
            mask_a = (offs_a0[:, None] < a_shape0) & (offs_k[None, :] < a_shape1)
            a_tile = (
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
            b_tile = (
                b_desc.load([k * TK, pid_n * TN])
                if b_desc is not None
                else tl.load(
                    b_ptr + offs_k[:, None] * b_stride0 + offs_b1[None, :] * b_stride1,
                    mask=mask_b,
                    other=0.0,
                )
            )
            acc = _dot_any_size(a_tile, b_tile, acc, "ieee")
        offs_c0 = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
        offs_c1 = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
        mask_c = (offs_c0[:, None] < c_shape0) & (offs_c1[None, :] < c_shape1)
        tl.store(
            c_ptr + offs_c0[:, None] * c_stride0 + offs_c1[None, :] * c_stride1,
            acc.to(c_ptr.dtype.element_ty),
            mask=mask_c,
        )


def launch_matmul_kernel(stream, grid, a, b, c, TM, TN, TK, *, hints=None):
    """`ct.launch(stream, grid, matmul_kernel, args)`; `hints`: cuTile kernel hints."""
    a, b, c = _as_tensor(a), _as_tensor(b), _as_tensor(c)
    # TMA descriptors for the matrix products' tiles where the arrays allow (None: pointers)
    a_desc = _tma_descriptor(a, (TM, TK))
    b_desc = _tma_descriptor(b, (TK, TN))
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    grid_x, grid_y, *grid_rest = (*_grid(grid), 1)[:3]
    blocks = grid_x * grid_y
    if blocks >= 2**31:
        raise ValueError(f"matmul_kernel: {blocks} blocks, more than 2**31 - 1")
    # TMA products in tiles that fill an SM: a program per SM walks the blocks (pipelined)
    walked = bool(
        (a_desc is not None or b_desc is not None)
        and tile_elems >= 128 * 128
        and all(g == 1 for g in grid_rest)
    )
    grid = (_walk_programs(blocks, a),) if walked else (blocks, *grid_rest)
    args = (a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), c, *c.shape, *c.stride(), TM, TN)
    args += (TK, a_desc, b_desc, grid_x, grid_y)
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
        TM,
        TN,
        TK,
        num_ctas,
        walked,
    )
    if _launch_known(matmul_kernel, known, stream, grid, args):
        return
    _check_ndim("matmul_kernel", "a", a, 2)
    _check_ndim("matmul_kernel", "b", b, 2)
    _check_ndim("matmul_kernel", "c", c, 2)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    if tile_elems < 128 * 256 and (a_desc is not None or b_desc is not None):
        num_warps, num_stages = 4, 4  # TMA operands: best of 8/3, 8/4, 4/4 on the H200
    num_stages = 2 if TM < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [a, b, c] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        a_div=_multiples(a.shape, a.stride()),
        b_div=_multiples(b.shape, b.stride()),
        c_div=_multiples(c.shape, c.stride()),
        FLATTEN=walked,
        USE_INT64=_needs_int64(a, b, c),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = matmul_kernel[_grid(grid)](
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
        _remember_launch(matmul_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, c):
    tm, tn, tk = 32, 32, 32
    m, _ = a.shape
    _, n = b.shape
    grid = (triton.cdiv(m, tm), triton.cdiv(n, tn), 1)
    launch_matmul_kernel(stream, grid, a, b, c, tm, tn, tk)
