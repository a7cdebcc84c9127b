# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""A matmul in the style cuTile's own samples use: a local alias of the padding mode and the
operand dtype chosen from the input dtype (tf32 tensor cores for fp32 inputs, the inputs' own
dtype otherwise). Both are compile-time Python inside the kernel."""

import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _as_tensor,
    _by_target,
    _check_ndim,
    _grid,
    _k_major_tf32,
    _launch_known,
    _multiples,
    _needs_int64,
    _on_stream,
    _remember_launch,
    _tf32_operand,
    _tf32_options,
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
def gemm_select_kernel(
    X_ptr,
    X_shape0,
    X_shape1,
    X_stride0,
    X_stride1,
    W_ptr,
    W_shape0,
    W_shape1,
    W_stride0,
    W_stride1,
    Y_ptr,
    Y_shape0,
    Y_shape1,
    Y_stride0,
    Y_stride1,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    X_desc,
    W_desc,
    grid_x,
    grid_y,
    X_div: tl.constexpr,
    W_div: tl.constexpr,
    Y_div: tl.constexpr,
    FLATTEN: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    X_stride0 = X_stride0 // X_div[0] * X_div[0]
    X_stride1 = X_stride1 // X_div[1] * X_div[1]
    X_shape0 = X_shape0 // X_div[2] * X_div[2]
    X_shape1 = X_shape1 // X_div[3] * X_div[3]
    W_stride0 = W_stride0 // W_div[0] * W_div[0]
    W_stride1 = W_stride1 // W_div[1] * W_div[1]
    W_shape0 = W_shape0 // W_div[2] * W_div[2]
    W_shape1 = W_shape1 // W_div[3] * W_div[3]
    Y_stride0 = Y_stride0 // Y_div[0] * Y_div[0]
    Y_stride1 = Y_stride1 // Y_div[1] * Y_div[1]
    Y_shape0 = Y_shape0 // Y_div[2] * Y_div[2]
    Y_shape1 = Y_shape1 // Y_div[3] * Y_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # the grid's blocks in a loop, in the order the GPU starts them: with TMA operands
    # the launcher runs one program per SM, pipelined across output tiles
    for block in tl.range(tl.program_id(0), grid_x * grid_y, tl.num_programs(0), flatten=FLATTEN):
        block_x = block % grid_x
        block_y = block // grid_x
        row_block = block_x
        col_block = block_y
        # an alias: only the translation-time value matters
        # fp32 inputs multiply on tf32 tensor cores; fp16/bf16 inputs keep their dtype
        compute = tl.float32 if X_ptr.dtype.element_ty == tl.float32 else X_ptr.dtype.element_ty
        k_steps = tl.cdiv(X_shape1, BK)
        total = tl.full((BM, BN), 0.0, tl.float32)
        for kk in range(k_steps):
            offs_X0 = tl.cast(row_block, OFFSET_DTYPE) * BM + tl.arange(0, BM)
            offs_kk = tl.cast(kk, OFFSET_DTYPE) * BK + tl.arange(0, BK)
            mask_X = (offs_X0[:, None] < X_shape0) & (offs_kk[None, :] < X_shape1)
            x = (
                X_desc.load([row_block * BM, kk * BK])
                if X_desc is not None
                else tl.load(
                    X_ptr + offs_X0[:, None] * X_stride0 + offs_kk[None, :] * X_stride1,
                    mask=mask_X,
                    other=0.0,
                )
            )
            offs_W1 = tl.cast(col_block, OFFSET_DTYPE) * BN + tl.arange(0, BN)
            mask_W = (offs_kk[:, None] < W_shape0) & (offs_W1[None, :] < W_shape1)
            w = (
                W_desc.load([kk * BK, col_block * BN])
                if W_desc is not None
                else tl.load(
                    W_ptr + offs_kk[:, None] * W_stride0 + offs_W1[None, :] * W_stride1,
                    mask=mask_W,
                    other=0.0,
                )
            )
            total = _dot_any_size(
                x.to(compute),
                w.to(compute),
                total,
                "tf32" if X_ptr.dtype.element_ty == tl.float32 else "ieee",
            )
        offs_Y0 = tl.cast(row_block, OFFSET_DTYPE) * BM + tl.arange(0, BM)
        offs_Y1 = tl.cast(col_block, OFFSET_DTYPE) * BN + tl.arange(0, BN)
        mask_Y = (offs_Y0[:, None] < Y_shape0) & (offs_Y1[None, :] < Y_shape1)
        tl.store(
            Y_ptr + offs_Y0[:, None] * Y_stride0 + offs_Y1[None, :] * Y_stride1,
            total.to(Y_ptr.dtype.element_ty),
            mask=mask_Y,
        )


def launch_gemm_select_kernel(stream, grid, X, W, Y, BM, BN, BK, *, hints=None):
    """`ct.launch(stream, grid, gemm_select_kernel, args)`; `hints`: cuTile kernel hints."""
    X, W, Y = _as_tensor(X), _as_tensor(W), _as_tensor(Y)
    # tf32 operands rounded as cuTile rounds them (B K-major where that pays)
    X = _tf32_operand(stream, X)
    W = _k_major_tf32(stream, W, X.shape[-2])
    # TMA descriptors for the matrix products' tiles where the arrays allow (None: pointers)
    X_desc = _tma_descriptor(X, (BM, BK))
    W_desc = _tma_descriptor(W, (BK, BN))
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    tile_elems = max(BM * BN, BM * BK, BK * BN)
    grid_x, grid_y, *grid_rest = (*_grid(grid), 1)[:3]
    blocks = grid_x * grid_y
    if blocks >= 2**31:
        raise ValueError(f"gemm_select_kernel: {blocks} blocks, more than 2**31 - 1")
    # TMA products in tiles that fill an SM: a program per SM walks the blocks (pipelined)
    walked = bool(
        (X_desc is not None or W_desc is not None)
        and tile_elems >= 128 * 128
        and all(g == 1 for g in grid_rest)
    )
    grid = (_walk_programs(blocks, X),) if walked else (blocks, *grid_rest)
    args = (X, *X.shape, *X.stride(), W, *W.shape, *W.stride(), Y, *Y.shape, *Y.stride(), BM, BN)
    args += (BK, X_desc, W_desc, grid_x, grid_y)
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
        BM,
        BN,
        BK,
        num_ctas,
        walked,
    )
    if _launch_known(gemm_select_kernel, known, stream, grid, args):
        return
    _check_ndim("gemm_select_kernel", "X", X, 2)
    _check_ndim("gemm_select_kernel", "W", W, 2)
    _check_ndim("gemm_select_kernel", "Y", Y, 2)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    if tile_elems < 128 * 256 and (X_desc is not None or W_desc is not None):
        num_warps, num_stages = 4, 4  # TMA operands: best of 8/3, 8/4, 4/4 on the H200
    num_stages = 2 if BM < 16 else num_stages  # few rows (decode): 2
    constexprs = dict(
        X_div=_multiples(X.shape, X.stride()),
        W_div=_multiples(W.shape, W.stride()),
        Y_div=_multiples(Y.shape, Y.stride()),
        FLATTEN=walked,
        USE_INT64=_needs_int64(X, W, Y),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = gemm_select_kernel[_grid(grid)](
                    *args,
                    **constexprs,
                    num_warps=num_warps,
                    num_stages=num_stages,
                    num_ctas=num_ctas,
                    **_tf32_options(),
                )
                break
            except triton.OutOfResources:  # large tiles: one stage fewer until they fit
                if num_stages <= 1:
                    raise
                num_stages -= 1
        _remember_launch(gemm_select_kernel, known, compiled, args, constexprs)


def launch(stream, x, w, y):
    bm, bn, bk = 32, 64, 32
    m, n = y.shape
    launch_gemm_select_kernel(
        stream, (triton.cdiv(m, bm), triton.cdiv(n, bn), 1), x, w, y, bm, bn, bk
    )
