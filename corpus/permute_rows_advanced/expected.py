# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Row permutation of a matrix, both ways, as token routing does it: `gather_rows` builds
y[i, :] = scale[i] * x[perm[i], :] (rows chosen by an index tile loaded from memory) and
`scatter_rows` builds z[perm[i], :] = x[i, :]. Each block moves TILE_R rows times TILE_C
columns; the column range is a dense `ct.Slice`. Rows past the end of `perm` are padded with
index 0 when loaded and never stored (their destination rows are out of bounds or masked)."""

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
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


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
def _scatter_2d(ptr, shape, stride, index, value, USE_INT64, MASK=True, CHECK_BOUNDS=True):
    """ct.scatter: `value` (broadcast, cast to the array's dtype) to ptr[index], except where an
    index is out of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    i1 = _elem_index(index[1], USE_INT64)
    offs = i0 * stride[0] + i1 * stride[1]
    ok = (i0 >= 0) & (i0 < shape[0]) & (i1 >= 0) & (i1 < shape[1]) & MASK if CHECK_BOUNDS else MASK
    tl.store(ptr + offs, value, mask=ok)


@triton.jit(do_not_specialize=["grid_x"])
def gather_rows(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    perm_ptr,
    perm_shape0,
    perm_stride0,
    scale_ptr,
    scale_shape0,
    scale_stride0,
    y_ptr,
    y_shape0,
    y_shape1,
    y_stride0,
    y_stride1,
    TILE_R: tl.constexpr,
    TILE_C: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    perm_div: tl.constexpr,
    scale_div: tl.constexpr,
    y_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    perm_stride0 = perm_stride0 // perm_div[0] * perm_div[0]
    perm_shape0 = perm_shape0 // perm_div[1] * perm_div[1]
    scale_stride0 = scale_stride0 // scale_div[0] * scale_div[0]
    scale_shape0 = scale_shape0 // scale_div[1] * scale_div[1]
    y_stride0 = y_stride0 // y_div[0] * y_div[0]
    y_stride1 = y_stride1 // y_div[1] * y_div[1]
    y_shape0 = y_shape0 // y_div[2] * y_div[2]
    y_shape1 = y_shape1 // y_div[3] * y_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            br = block_x
            c0 = tl.program_id(1) * TILE_C
            offs_br = tl.cast(br, OFFSET_DTYPE) * TILE_R + tl.arange(0, TILE_R)
            mask_perm = offs_br < perm_shape0
            src = tl.load(perm_ptr + offs_br * perm_stride0, mask=mask_perm, other=0.0)
            rows = _gather_2d(
                x_ptr,
                (x_shape0, x_shape1),
                (x_stride0, x_stride1),
                (src[:, None], (c0 + tl.arange(0, TILE_C))[None, :]),
                USE_INT64,
            )
            mask_scale = offs_br < scale_shape0
            s = tl.load(scale_ptr + offs_br * scale_stride0, mask=mask_scale, other=0.0)
            dst = br * TILE_R + tl.arange(0, TILE_R)
            out = (rows.to(tl.float32) * s[:, None]).to(y_ptr.dtype.element_ty)
            _scatter_2d(
                y_ptr,
                (y_shape0, y_shape1),
                (y_stride0, y_stride1),
                (dst[:, None], (c0 + tl.arange(0, TILE_C))[None, :]),
                out,
                USE_INT64,
            )


def launch_gather_rows(stream, grid, x, perm, scale, y, TILE_R, TILE_C, *, hints=None):
    """`ct.launch(stream, grid, gather_rows, args)`; `hints`: cuTile kernel hints."""
    x, perm, scale, y = _as_tensor(x), _as_tensor(perm), _as_tensor(scale), _as_tensor(y)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TILE_R * TILE_C)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), perm, *perm.shape, *perm.stride())
    args += (scale, *scale.shape, *scale.stride(), y, *y.shape, *y.stride(), TILE_R, TILE_C, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        perm.dtype,
        perm.data_ptr() & 15,
        perm.shape,
        perm.stride(),
        scale.dtype,
        scale.data_ptr() & 15,
        scale.shape,
        scale.stride(),
        y.dtype,
        y.data_ptr() & 15,
        y.shape,
        y.stride(),
        TILE_R,
        TILE_C,
        num_ctas,
    )
    if _launch_known(gather_rows, known, stream, grid, args):
        return
    _check_ndim("gather_rows", "x", x, 2)
    _check_ndim("gather_rows", "perm", perm, 1)
    _check_ndim("gather_rows", "scale", scale, 1)
    _check_ndim("gather_rows", "y", y, 2)
    num_warps = min(max(TILE_R * TILE_C // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        perm_div=_multiples(perm.shape, perm.stride()),
        scale_div=_multiples(scale.shape, scale.stride()),
        y_div=_multiples(y.shape, y.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, perm, scale, y),
    )
    with _on_stream(stream):
        compiled = gather_rows[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(gather_rows, known, compiled, args, constexprs)


@triton.jit(do_not_specialize=["grid_x"])
def scatter_rows(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    perm_ptr,
    perm_shape0,
    perm_stride0,
    z_ptr,
    z_shape0,
    z_shape1,
    z_stride0,
    z_stride1,
    TILE_R: tl.constexpr,
    TILE_C: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    perm_div: tl.constexpr,
    z_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    perm_stride0 = perm_stride0 // perm_div[0] * perm_div[0]
    perm_shape0 = perm_shape0 // perm_div[1] * perm_div[1]
    z_stride0 = z_stride0 // z_div[0] * z_div[0]
    z_stride1 = z_stride1 // z_div[1] * z_div[1]
    z_shape0 = z_shape0 // z_div[2] * z_div[2]
    z_shape1 = z_shape1 // z_div[3] * z_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            br = block_x
            c0 = tl.program_id(1) * TILE_C
            n_rows = x_shape0
            own = br * TILE_R + tl.arange(0, TILE_R)
            rows = _gather_2d(
                x_ptr,
                (x_shape0, x_shape1),
                (x_stride0, x_stride1),
                (own[:, None], (c0 + tl.arange(0, TILE_C))[None, :]),
                USE_INT64,
            )
            offs_perm0 = tl.cast(br, OFFSET_DTYPE) * TILE_R + tl.arange(0, TILE_R)
            mask_perm = offs_perm0 < perm_shape0
            dst = tl.load(perm_ptr + offs_perm0 * perm_stride0, mask=mask_perm, other=0.0)
            # padded lanes of `perm` read 0: send them past the end so that they write nothing
            dst = tl.where(own < n_rows, dst, n_rows)
            _scatter_2d(
                z_ptr,
                (z_shape0, z_shape1),
                (z_stride0, z_stride1),
                (dst[:, None], (c0 + tl.arange(0, TILE_C))[None, :]),
                rows,
                USE_INT64,
            )


def launch_scatter_rows(stream, grid, x, perm, z, TILE_R, TILE_C, *, hints=None):
    """`ct.launch(stream, grid, scatter_rows, args)`; `hints`: cuTile kernel hints."""
    x, perm, z = _as_tensor(x), _as_tensor(perm), _as_tensor(z)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TILE_R * TILE_C)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), perm, *perm.shape, *perm.stride(), z, *z.shape, *z.stride())
    args += (TILE_R, TILE_C, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        perm.dtype,
        perm.data_ptr() & 15,
        perm.shape,
        perm.stride(),
        z.dtype,
        z.data_ptr() & 15,
        z.shape,
        z.stride(),
        TILE_R,
        TILE_C,
        num_ctas,
    )
    if _launch_known(scatter_rows, known, stream, grid, args):
        return
    _check_ndim("scatter_rows", "x", x, 2)
    _check_ndim("scatter_rows", "perm", perm, 1)
    _check_ndim("scatter_rows", "z", z, 2)
    num_warps = min(max(TILE_R * TILE_C // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        perm_div=_multiples(perm.shape, perm.stride()),
        z_div=_multiples(z.shape, z.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, perm, z),
    )
    with _on_stream(stream):
        compiled = scatter_rows[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(scatter_rows, known, compiled, args, constexprs)


def launch(stream, x, perm, scale, y, z):
    tile_r, tile_c = 16, 64
    grid = (triton.cdiv(x.shape[0], tile_r), triton.cdiv(x.shape[1], tile_c), 1)
    launch_gather_rows(stream, grid, x, perm, scale, y, tile_r, tile_c)
    launch_scatter_rows(stream, grid, x, perm, z, tile_r, tile_c)
