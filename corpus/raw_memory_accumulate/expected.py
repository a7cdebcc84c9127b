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
    """For each stride of `x`, then for each extent, the largest of 16, 8, 4, 2, 1 dividing it
    (an extent only where its dimension is the contiguous one, else 1): the kernel relies on
    these (see its `*_div` arguments) to vectorize, whichever dimension is contiguous."""
    strides = x.stride()
    return tuple(_multiple(s) for s in strides) + tuple(
        _multiple(n) if s == 1 else 1 for n, s in zip(x.shape, strides)
    )


def _multiple(v):
    return 16 if v % 16 == 0 else 8 if v % 8 == 0 else 4 if v % 4 == 0 else 2 if v % 2 == 0 else 1


# A tf32 matrix product's B operand gets a K-major copy (docs/performance.md) when it has at
# least this many elements and its product at least this many rows (the copy costs one read
# and one write of B; a row-major B costs every block's wgmma one 4-byte copy per element).
_K_MAJOR_MIN_ELEMENTS, _K_MAJOR_MIN_ROWS = 1 << 20, 512


def _by_target(value):
    return 1 if value is None else value


def _grid(grid):
    """cuTile's grid: an int or a tuple of up to three; the empty tuple is one block."""
    return (tuple(grid) or (1,)) if isinstance(grid, (tuple, list)) else (int(grid),)


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


# (id of the Triton kernel, launch key) -> (the kernel, its compiled kernel, device, the launch's
# trailing constexprs). Keyed by id: a JITFunction's own hash reads its source hash under a lock.
_KNOWN = {}


def _launch_known(kernel, key, stream, grid, args):
    """Launch `kernel` through the compiled kernel an earlier launch with the same key got from
    Triton, passing exactly the arguments Triton's own dispatch would (theirs cost most of a
    launch's host time). The key holds what Triton specializes on and what the launcher's
    choices read, so an equal key means the same compiled kernel. False, launching nothing,
    when there is none yet or the launch names a stream of another device or not a torch one."""
    try:
        known = _KNOWN.get((id(kernel), key))
    except TypeError:  # an unhashable constant: the plain path
        return False
    if known is None or known[0] is not kernel:
        return False
    _, compiled, device, trailing = known
    drv = triton.runtime.driver.active
    if drv.get_current_device() != device:
        return False
    if stream is None:
        handle = drv.get_current_stream(device)
    elif type(stream) is torch.cuda.Stream and stream.device_index == device:
        handle = stream.cuda_stream
    else:
        return False
    grid = _grid(grid)
    args = args + trailing
    hooks = triton.knobs.runtime
    compiled.run(
        grid[0],
        grid[1] if len(grid) > 1 else 1,
        grid[2] if len(grid) > 2 else 1,
        handle,
        compiled.function,
        compiled.packed_metadata,
        compiled.launch_metadata(grid, handle, *args),
        hooks.launch_enter_hook,
        hooks.launch_exit_hook,
        *args,
    )
    return True


def _remember_launch(kernel, key, compiled, args, constexprs):
    """After a launch through Triton: keep what `_launch_known` needs to repeat it, unless
    Triton's dispatch does per-call work the direct path would skip (interpreter, pre-run
    hooks, global values it re-checks, asynchronous compilation)."""
    names = getattr(kernel, "arg_names", None)
    if names is None:  # not a Triton JITFunction (replaced, wrapped)
        return
    trailing_names = names[len(args) :]
    if (
        not hasattr(compiled, "packed_metadata")
        or hasattr(compiled, "result")
        or kernel.pre_run_hooks
        or kernel.used_global_vals
        or any(n not in constexprs for n in trailing_names)
        or any(isinstance(k, _Uncached) for k in key)
    ):
        return
    try:
        if len(_KNOWN) >= 512:
            _KNOWN.clear()
        _KNOWN[(id(kernel), key)] = (
            kernel,
            compiled,
            triton.runtime.driver.active.get_current_device(),
            tuple(constexprs[n] for n in trailing_names),
        )
    except TypeError:
        pass


class _Uncached:
    """A key part that keeps a launch on the plain path."""


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
    cells_stride1 = cells_stride1 // cells_div[1] * cells_div[1]
    cells_shape0 = cells_shape0 // cells_div[2] * cells_div[2]
    cells_shape1 = cells_shape1 // cells_div[3] * cells_div[3]
    last_writer_stride0 = last_writer_stride0 // last_writer_div[0] * last_writer_div[0]
    last_writer_shape0 = last_writer_shape0 // last_writer_div[1] * last_writer_div[1]
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
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        cells,
        *cells.shape,
        *cells.stride(),
        last_writer,
        last_writer.numel(),
        1,
        TILE,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
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
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        cells_div=_multiples(cells),
        last_writer_div=(1, 1),
        USE_INT64=_needs_int64(cells, last_writer),
    )
    with _on_stream(stream):
        compiled = reset_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(reset_kernel, known, compiled, args, constexprs)


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
    cells_stride0 = cells_stride0 // cells_div[0] * cells_div[0]
    cells_shape0 = cells_shape0 // cells_div[1] * cells_div[1]
    last_writer_stride0 = last_writer_stride0 // last_writer_div[0] * last_writer_div[0]
    last_writer_shape0 = last_writer_shape0 // last_writer_div[1] * last_writer_div[1]
    offsets_stride0 = offsets_stride0 // offsets_div[0] * offsets_div[0]
    offsets_shape0 = offsets_shape0 // offsets_div[1] * offsets_div[1]
    values_stride0 = values_stride0 // values_div[0] * values_div[0]
    values_shape0 = values_shape0 // values_div[1] * values_div[1]
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
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
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
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
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
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        cells_div=(1, 1),
        last_writer_div=(1, 1),
        offsets_div=_multiples(offsets),
        values_div=_multiples(values),
        USE_INT64=_needs_int64(cells, last_writer, offsets, values),
    )
    with _on_stream(stream):
        compiled = accumulate_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(accumulate_kernel, known, compiled, args, constexprs)


def launch(stream, cells, last_writer, offsets, values):
    tile = 64
    count = cells.shape[0] * cells.shape[1]
    launch_reset_kernel(stream, (triton.cdiv(count, 256),), cells, last_writer, 256)
    launch_accumulate_kernel(
        stream, (triton.cdiv(offsets.shape[0], tile),), cells, last_writer, offsets, values, tile
    )
