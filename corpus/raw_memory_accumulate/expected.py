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


@triton.jit(do_not_specialize=["grid_x"])
def reset_kernel(
    cells_ptr,
    cells_shape0,
    cells_shape1,
    last_writer_ptr,
    TILE: tl.constexpr,
    grid_x,
    cells_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Zero the cells and mark every cell as written by no block (-1), through raw memory:
    offsets count elements from the base pointer, whatever the arrays' shapes."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    cells_shape0 = cells_shape0 // cells_div[2] * cells_div[2]
    cells_shape1 = cells_shape1 // cells_div[3] * cells_div[3]
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            count = cells_shape0 * cells_shape1
            offs = tl.arange(0, TILE).to(tl.int64) + block_x * TILE
            inside = offs < count
            tl.store(cells_ptr + offs, 0.0, mask=inside)
            tl.store(last_writer_ptr + offs, -1, mask=inside)


def launch_reset_kernel(stream, grid, cells, last_writer, TILE, *, hints=None):
    """`ct.launch(stream, grid, reset_kernel, args)`; `hints`: cuTile kernel hints."""
    cells, last_writer = _as_tensor(cells), _as_tensor(last_writer)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TILE))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (cells, *cells.shape, last_writer, TILE, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        cells.dtype,
        cells.data_ptr() & 15,
        cells.shape,
        cells.stride(),
        last_writer.dtype,
        last_writer.data_ptr() & 15,
        last_writer.shape,
        last_writer.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(reset_kernel, known, stream, grid, args):
        return
    _check_ndim("reset_kernel", "cells", cells, 2)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        cells_div=_multiples(cells.shape, cells.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(cells, last_writer),
    )
    with _on_stream(stream):
        compiled = reset_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(reset_kernel, known, compiled, args, constexprs)


@triton.jit
def accumulate_kernel(
    cells_ptr,
    last_writer_ptr,
    offsets_ptr,
    offsets_shape0,
    offsets_stride0,
    values_ptr,
    values_shape0,
    values_stride0,
    TILE: tl.constexpr,
    offsets_div: tl.constexpr,
    values_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Scatter-add `values` into a 2-D grid of cells at flat element offsets, and record per
    cell the highest block that wrote to it. Lanes past the end of `offsets` are masked off."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    offsets_stride0 = offsets_stride0 // offsets_div[0] * offsets_div[0]
    offsets_shape0 = offsets_shape0 // offsets_div[1] * offsets_div[1]
    values_stride0 = values_stride0 // values_div[0] * values_div[0]
    values_shape0 = values_shape0 // values_div[1] * values_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    lane = tl.arange(0, TILE) + pid * TILE
    live = lane < offsets_shape0
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    mask_offsets = offs_pid < offsets_shape0
    offs = tl.load(offsets_ptr + offs_pid * offsets_stride0, mask=mask_offsets, other=0.0)
    mask_values = offs_pid < values_shape0
    vals = tl.load(values_ptr + offs_pid * values_stride0, mask=mask_values, other=0.0)
    tl.atomic_add(cells_ptr + offs, vals, mask=live)
    tl.atomic_max(last_writer_ptr + offs, pid, mask=live, sem="relaxed")


def launch_accumulate_kernel(
    stream, grid, cells, last_writer, offsets, values, TILE, *, hints=None
):
    """`ct.launch(stream, grid, accumulate_kernel, args)`; `hints`: cuTile kernel hints."""
    cells, last_writer, offsets = _as_tensor(cells), _as_tensor(last_writer), _as_tensor(offsets)
    values = _as_tensor(values)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (cells, last_writer, offsets, *offsets.shape, *offsets.stride())
    args += (values, *values.shape, *values.stride(), TILE)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        cells.dtype,
        cells.data_ptr() & 15,
        cells.shape,
        cells.stride(),
        last_writer.dtype,
        last_writer.data_ptr() & 15,
        last_writer.shape,
        last_writer.stride(),
        offsets.dtype,
        offsets.data_ptr() & 15,
        offsets.shape,
        offsets.stride(),
        values.dtype,
        values.data_ptr() & 15,
        values.shape,
        values.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(accumulate_kernel, known, stream, grid, args):
        return
    _check_ndim("accumulate_kernel", "offsets", offsets, 1)
    _check_ndim("accumulate_kernel", "values", values, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        offsets_div=_multiples(offsets.shape, offsets.stride()),
        values_div=_multiples(values.shape, values.stride()),
        USE_INT64=_needs_int64(cells, last_writer, offsets, values),
    )
    with _on_stream(stream):
        compiled = accumulate_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(accumulate_kernel, known, compiled, args, constexprs)


def launch(stream, cells, last_writer, offsets, values):
    tile = 64
    count = cells.shape[0] * cells.shape[1]
    launch_reset_kernel(stream, (triton.cdiv(count, 256),), cells, last_writer, 256)
    launch_accumulate_kernel(
        stream, (triton.cdiv(offsets.shape[0], tile),), cells, last_writer, offsets, values, tile
    )
