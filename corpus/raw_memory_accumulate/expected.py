# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


_E8M0 = getattr(torch, "float8_e8m0fnu", None)


def _as_tensor(x):
    """Launchers take torch tensors and any DLPack array (CuPy, JAX, numba, ...). Triton has no
    float8_e8m0fnu (block scales): such arrays travel as their bytes."""
    if type(x) is not torch.Tensor:
        x = x if isinstance(x, torch.Tensor) else torch.from_dlpack(x)
    if _E8M0 is not None and x.dtype is _E8M0:
        x = x.view(torch.uint8)
    return x


def _check_ndim(kernel, name, x, ndim):
    if x.dim() != ndim:
        raise ValueError(
            f"{kernel}: `{name}` must have {ndim} dimension(s), got shape {tuple(x.shape)}"
        )


def _needs_int64(*arrays):
    """True when some element offset of some array reaches 2**31: offsets are then computed
    in int64, otherwise in int32 (cheaper)."""
    for x in arrays:
        if x.numel() < 2**31 - 1 and x.is_contiguous():  # the common case, without a loop
            continue
        span = sum((n - 1) * abs(s) for n, s in zip(x.shape, x.stride()) if n > 0)
        if span >= 2**31 - 1:
            return True
    return False


def _multiples(x):
    """For each stride but the last and for the last extent of `x`, the largest of 16, 8, 4, 2,
    1 dividing it: the kernel relies on these (see its `*_div` arguments) to vectorize."""
    sizes = x.stride()[:-1] + (x.shape[-1],)
    return tuple(
        16 if v % 16 == 0 else 8 if v % 8 == 0 else 4 if v % 4 == 0 else 2 if v % 2 == 0 else 1
        for v in sizes
    )


def _by_target(value):
    return 1 if value is None else value


def _grid(grid):
    return tuple(grid) if isinstance(grid, (tuple, list)) else (int(grid),)


_SAME_STREAM = contextlib.nullcontext()


def _on_stream(stream):
    """The stream a cuTile launch names: a torch stream, an object with __cuda_stream__, a raw
    handle, or None for the current stream. Naming the stream that is already current (as
    cuTile code usually does) switches nothing, which keeps the launch cheap."""
    if stream is None:
        return _SAME_STREAM
    if isinstance(stream, torch.cuda.Stream):
        if stream.cuda_stream == triton.runtime.driver.active.get_current_stream(
            stream.device_index
        ):
            return _SAME_STREAM
        return torch.cuda.stream(stream)
    if not torch.cuda.is_available():
        return _SAME_STREAM
    if hasattr(stream, "__cuda_stream__"):
        stream = stream.__cuda_stream__()[1]
    return torch.cuda.stream(torch.cuda.ExternalStream(int(stream)))


@triton.jit
def reset_kernel(
    cells_ptr,
    cells_shape0,
    cells_shape1,
    cells_stride0,
    cells_stride1,
    last_writer_ptr,
    last_writer_shape0,
    last_writer_stride0,
    TILE: tl.constexpr,
    cells_div: tl.constexpr,
    last_writer_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Zero the cells and mark every cell as written by no block (-1), through raw memory:
    offsets count elements from the base pointer, whatever the arrays' shapes."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    cells_stride0 = cells_stride0 // cells_div[0] * cells_div[0]
    cells_shape1 = cells_shape1 // cells_div[1] * cells_div[1]
    last_writer_shape0 = last_writer_shape0 // last_writer_div[0] * last_writer_div[0]
    count = cells_shape0 * cells_shape1
    offs = tl.arange(0, TILE).to(tl.int64) + tl.program_id(0) * TILE
    inside = offs < count
    tl.store(cells_ptr + offs, 0.0, mask=inside)
    tl.store(last_writer_ptr + offs, -1, mask=inside)


def launch_reset_kernel(stream, grid, cells, last_writer, TILE, *, hints=None):
    """Run `reset_kernel` like `ct.launch(stream, grid, reset_kernel, (cells, last_writer, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    cells = _as_tensor(cells)
    last_writer = _as_tensor(last_writer)
    _check_ndim("reset_kernel", "cells", cells, 2)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        reset_kernel[_grid(grid)](
            cells,
            *cells.shape,
            *cells.stride(),
            last_writer,
            last_writer.numel(),
            1,
            TILE,
            cells_div=_multiples(cells),
            last_writer_div=(1,),
            USE_INT64=_needs_int64(cells, last_writer),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


@triton.jit
def accumulate_kernel(
    cells_ptr,
    cells_shape0,
    cells_stride0,
    last_writer_ptr,
    last_writer_shape0,
    last_writer_stride0,
    offsets_ptr,
    offsets_shape0,
    offsets_stride0,
    values_ptr,
    values_shape0,
    values_stride0,
    TILE: tl.constexpr,
    cells_div: tl.constexpr,
    last_writer_div: tl.constexpr,
    offsets_div: tl.constexpr,
    values_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Scatter-add `values` into a 2-D grid of cells at flat element offsets, and record per
    cell the highest block that wrote to it. Lanes past the end of `offsets` are masked off."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    cells_shape0 = cells_shape0 // cells_div[0] * cells_div[0]
    last_writer_shape0 = last_writer_shape0 // last_writer_div[0] * last_writer_div[0]
    offsets_shape0 = offsets_shape0 // offsets_div[0] * offsets_div[0]
    values_shape0 = values_shape0 // values_div[0] * values_div[0]
    pid = tl.program_id(0)
    lane = tl.arange(0, TILE) + pid * TILE
    live = lane < offsets_shape0
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_offsets0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_offsets0 = pid * TILE + tl.arange(0, TILE)
    mask_offsets = offs_offsets0 < offsets_shape0
    offs = tl.load(offsets_ptr + offs_offsets0 * offsets_stride0, mask=mask_offsets, other=0.0)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_values0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_values0 = pid * TILE + tl.arange(0, TILE)
    mask_values = offs_values0 < values_shape0
    vals = tl.load(values_ptr + offs_values0 * values_stride0, mask=mask_values, other=0.0)
    tl.atomic_add(cells_ptr + offs, vals, mask=live)
    tl.atomic_max(last_writer_ptr + offs, pid, mask=live, sem="relaxed")


def launch_accumulate_kernel(
    stream, grid, cells, last_writer, offsets, values, TILE, *, hints=None
):
    """Run `accumulate_kernel` like `ct.launch(stream, grid, accumulate_kernel, (cells, last_writer, offsets, values, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    cells = _as_tensor(cells)
    last_writer = _as_tensor(last_writer)
    offsets = _as_tensor(offsets)
    values = _as_tensor(values)
    _check_ndim("accumulate_kernel", "offsets", offsets, 1)
    _check_ndim("accumulate_kernel", "values", values, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        accumulate_kernel[_grid(grid)](
            cells,
            cells.numel(),
            1,
            last_writer,
            last_writer.numel(),
            1,
            offsets,
            *offsets.shape,
            *offsets.stride(),
            values,
            *values.shape,
            *values.stride(),
            TILE,
            cells_div=(1,),
            last_writer_div=(1,),
            offsets_div=_multiples(offsets),
            values_div=_multiples(values),
            USE_INT64=_needs_int64(cells, last_writer, offsets, values),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, cells, last_writer, offsets, values):
    tile = 64
    count = cells.shape[0] * cells.shape[1]
    launch_reset_kernel(stream, (triton.cdiv(count, 256),), cells, last_writer, 256)
    launch_accumulate_kernel(
        stream, (triton.cdiv(offsets.shape[0], tile),), cells, last_writer, offsets, values, tile
    )
