# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
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
def _load_tile_2d(ptr, shape, stride, idx, BLOCK, USE_INT64, PADDING=None, CHECK_BOUNDS=True):
    """ct.load: tile `idx` of the array's tile space (elements idx * BLOCK + offset); out-of-bounds
    elements read as PADDING (None: undetermined, as cuTile's default)."""
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * BLOCK[0] + tl.arange(0, BLOCK[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * BLOCK[1] + tl.arange(0, BLOCK[1])
    ptrs = ptr + offs0[:, None] * stride[0] + offs1[None, :] * stride[1]
    mask = (offs0[:, None] < shape[0]) & (offs1[None, :] < shape[1]) if CHECK_BOUNDS else True
    return tl.load(ptrs, mask=mask, other=PADDING)


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


@triton.jit(do_not_specialize=["grid_x"])
def transpose_load_f_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TN: tl.constexpr,
    TM: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out (N, M) = x (M, N).T, transposing in the load itself.

    order="F" reverses the array axes before tiling, so x is seen as an (N, M) array:
    tile (i, j) of shape (TN, TM) holds x[j*TM + b, i*TN + a] at position [a, b],
    which is exactly tile (i, j) of out.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            i = block_x
            j = tl.program_id(1)
            t = _load_tile_2d(
                x_ptr, (x_shape1, x_shape0), (x_stride1, x_stride0), (i, j), (TN, TM), USE_INT64
            )
            offs_out0 = tl.cast(i, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            offs_out1 = tl.cast(j, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
                t.to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_transpose_load_f_kernel(stream, grid, x, out, TN, TM, *, hints=None):
    """`ct.launch(stream, grid, transpose_load_f_kernel, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TN * TM)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), TN, TM, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TN,
        TM,
        num_ctas,
    )
    if _launch_known(transpose_load_f_kernel, known, stream, grid, args):
        return
    _check_ndim("transpose_load_f_kernel", "x", x, 2)
    _check_ndim("transpose_load_f_kernel", "out", out, 2)
    num_warps = min(max(TN * TM // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = transpose_load_f_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(transpose_load_f_kernel, known, compiled, args, constexprs)


@triton.jit(do_not_specialize=["grid_x"])
def transpose_store_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_shape2,
    x_stride0,
    x_stride1,
    x_stride2,
    out_ptr,
    out_shape0,
    out_shape1,
    out_shape2,
    out_stride0,
    out_stride1,
    out_stride2,
    TM: tl.constexpr,
    TN: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Batched transpose out (B, N, M) = x (B, M, N).transpose(1, 2), transposing in the store.

    The tile is read in x's natural layout, and order=(0, 2, 1) makes the store see out as
    a (B, M, N) array, so the same tile index is used for both.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_stride2 = x_stride2 // x_div[2] * x_div[2]
    x_shape0 = x_shape0 // x_div[3] * x_div[3]
    x_shape1 = x_shape1 // x_div[4] * x_div[4]
    x_shape2 = x_shape2 // x_div[5] * x_div[5]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_stride2 = out_stride2 // out_div[2] * out_div[2]
    out_shape0 = out_shape0 // out_div[3] * out_div[3]
    out_shape1 = out_shape1 // out_div[4] * out_div[4]
    out_shape2 = out_shape2 // out_div[5] * out_div[5]
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            i = block_x
            j = tl.program_id(1)
            b = tl.program_id(2)
            t = _load_tile_3d(
                x_ptr,
                (x_shape0, x_shape1, x_shape2),
                (x_stride0, x_stride1, x_stride2),
                (b, i, j),
                (1, TM, TN),
                USE_INT64,
            )
            _store_tile_3d(
                out_ptr,
                (out_shape0, out_shape2, out_shape1),
                (out_stride0, out_stride2, out_stride1),
                (b, i, j),
                t,
                USE_INT64,
            )


def launch_transpose_store_kernel(stream, grid, x, out, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, transpose_store_kernel, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TM * TN)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), TM, TN, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(transpose_store_kernel, known, stream, grid, args):
        return
    _check_ndim("transpose_store_kernel", "x", x, 3)
    _check_ndim("transpose_store_kernel", "out", out, 3)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = transpose_store_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(transpose_store_kernel, known, compiled, args, constexprs)


def launch(stream, x, out, x3, out3):
    tm, tn = 16, 32
    m, n = x.shape
    launch_transpose_load_f_kernel(stream, (triton.cdiv(n, tn), triton.cdiv(m, tm)), x, out, tn, tm)
    bsz, m3, n3 = x3.shape
    launch_transpose_store_kernel(
        stream, (triton.cdiv(m3, tm), triton.cdiv(n3, tn), bsz), x3, out3, tm, tn
    )
