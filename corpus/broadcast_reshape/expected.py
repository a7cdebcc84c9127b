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


@triton.jit(do_not_specialize=["grid_x"])
def outer_kernel(
    u_ptr,
    u_shape0,
    u_stride0,
    v_ptr,
    v_shape0,
    v_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    grid_x,
    u_div: tl.constexpr,
    v_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[i, j] = u[i] * v[j] + u[i], building 2-D tiles out of 1-D ones.

    Shows three ways to add an axis / broadcast: indexing with None, ct.expand_dims,
    and an explicit ct.broadcast_to.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    u_stride0 = u_stride0 // u_div[0] * u_div[0]
    u_shape0 = u_shape0 // u_div[1] * u_div[1]
    v_stride0 = v_stride0 // v_div[0] * v_div[0]
    v_shape0 = v_shape0 // v_div[1] * v_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid_m = block_x
            pid_n = tl.program_id(1)
            offs_pid_m = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            mask_u = offs_pid_m < u_shape0
            ut = tl.load(u_ptr + offs_pid_m * u_stride0, mask=mask_u)
            offs_pid_n = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            mask_v = offs_pid_n < v_shape0
            vt = tl.load(v_ptr + offs_pid_n * v_stride0, mask=mask_v)
            u_col = tl.broadcast_to(ut[:, None], (TM, TN))  # (TM, 1) -> (TM, TN)
            v_row = tl.expand_dims(vt, 0)  # (1, TN)
            mask_out = (offs_pid_m[:, None] < out_shape0) & (offs_pid_n[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_pid_m[:, None] * out_stride0 + offs_pid_n[None, :] * out_stride1,
                (u_col * v_row + u_col).to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_outer_kernel(stream, grid, u, v, out, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, outer_kernel, args)`; `hints`: cuTile kernel hints."""
    u, v, out = _as_tensor(u), _as_tensor(v), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TM * TN)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (u, *u.shape, *u.stride(), v, *v.shape, *v.stride(), out, *out.shape, *out.stride(), TM)
    args += (TN, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        u.dtype,
        u.data_ptr() & 15,
        u.shape,
        u.stride(),
        v.dtype,
        v.data_ptr() & 15,
        v.shape,
        v.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(outer_kernel, known, stream, grid, args):
        return
    _check_ndim("outer_kernel", "u", u, 1)
    _check_ndim("outer_kernel", "v", v, 1)
    _check_ndim("outer_kernel", "out", out, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        u_div=_multiples(u.shape, u.stride()),
        v_div=_multiples(v.shape, v.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(u, v, out),
    )
    with _on_stream(stream):
        compiled = outer_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(outer_kernel, known, compiled, args, constexprs)


@triton.jit(do_not_specialize=["grid_x"])
def pool_permute_kernel(
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
    TB: tl.constexpr,
    TM: tl.constexpr,
    TH: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[h, b, m] = x[b, m, 2h] + x[b, m, 2h + 1].

    Sums adjacent pairs along the last axis by reshaping (TB, TM, 2*TH) into
    (TB, TM, TH, 2) and reducing the new last axis, then moves the pooled axis to
    the front with ct.permute.
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
            pid_b = block_x
            pid_m = tl.program_id(1)
            pid_h = tl.program_id(2)
            t = _load_tile_3d(
                x_ptr,
                (x_shape0, x_shape1, x_shape2),
                (x_stride0, x_stride1, x_stride2),
                (pid_b, pid_m, pid_h),
                (TB, TM, 2 * TH),
                USE_INT64,
            )
            pairs = tl.reshape(t, (TB, TM, TH, 2))
            pooled = _sum(pairs, 3, False)  # (TB, TM, TH)
            _store_tile_3d(
                out_ptr,
                (out_shape0, out_shape1, out_shape2),
                (out_stride0, out_stride1, out_stride2),
                (pid_h, pid_b, pid_m),
                tl.permute(pooled, (2, 0, 1)),
                USE_INT64,
            )


def launch_pool_permute_kernel(stream, grid, x, out, TB, TM, TH, *, hints=None):
    """`ct.launch(stream, grid, pool_permute_kernel, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TB * TM * (2 * TH))))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), TB, TM, TH, grid_x)
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
        TB,
        TM,
        TH,
        num_ctas,
    )
    if _launch_known(pool_permute_kernel, known, stream, grid, args):
        return
    _check_ndim("pool_permute_kernel", "x", x, 3)
    _check_ndim("pool_permute_kernel", "out", out, 3)
    # about 8 elements per thread, 1 to 8 warps
    num_warps = min(max(TB * TM * (2 * TH) // 256, 1), 8)
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = pool_permute_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(pool_permute_kernel, known, compiled, args, constexprs)


def launch(stream, u, v, outer, x, pooled):
    tm, tn = 16, 32
    launch_outer_kernel(
        stream, (triton.cdiv(u.shape[0], tm), triton.cdiv(v.shape[0], tn)), u, v, outer, tm, tn
    )
    tb, tm2, th = 2, 8, 16
    nb, m, n = x.shape
    h = n // 2
    launch_pool_permute_kernel(
        stream,
        (triton.cdiv(nb, tb), triton.cdiv(m, tm2), triton.cdiv(h, th)),
        x,
        pooled,
        tb,
        tm2,
        th,
    )
