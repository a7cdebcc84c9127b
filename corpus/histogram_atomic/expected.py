# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


@triton.jit
def _floor(x):
    """ct.floor: Triton's math takes fp32/fp64; fp16/bf16 go through fp32 and come back,
    integers give fp32 (as in cuTile)."""
    if x.dtype.is_fp64():
        y = tl.floor(x)
    else:
        xf = x.to(tl.float32)
        y = tl.floor(xf)
        if x.dtype.is_floating():
            y = y.to(x.dtype)
    return y


@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of at least 32 bits (64 bits when
    the launcher chose 64-bit offsets), ready to be multiplied by a stride."""
    if USE_INT64:
        return tl.cast(index, tl.int64)
    else:
        return index + tl.zeros((), tl.int32)


@triton.jit
def _atomic_add_1d(
    ptr,
    shape0,
    stride0,
    index0,
    update,
    USE_INT64: tl.constexpr,
    CHECK_BOUNDS: tl.constexpr = True,
    SEM: tl.constexpr = None,
    SCOPE: tl.constexpr = None,
):
    """ct.atomic_add: atomically combine `update` into ptr[index0, ...] and return the old
    values. Out-of-bounds elements (negative indices included) are left untouched.
    SEM/SCOPE None: Triton's default, "acq_rel" at "gpu" scope (cuTile's ACQ_REL at DEVICE)."""
    i0 = _elem_index(index0, USE_INT64)
    offs = i0 * stride0
    if CHECK_BOUNDS:
        ok = (i0 >= 0) & (i0 < shape0)
        return tl.atomic_add(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)
    else:
        return tl.atomic_add(ptr + offs, update, sem=SEM, scope=SCOPE)


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


def _scalar_key(x):
    """Key of a scalar argument: Triton specializes an int on its value (1, multiples of 16,
    32 or 64 bits) and a float on nothing."""
    kind = type(x)
    return (
        x if kind is int else kind if kind is float else (kind, x) if kind is bool else _Uncached()
    )


@triton.jit
def histogram_kernel(
    x_ptr,
    x_shape0,
    x_stride0,
    hist_ptr,
    hist_shape0,
    hist_stride0,
    lo,
    hi,
    TILE: tl.constexpr,
    x_div: tl.constexpr,
    hist_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """hist[b] += number of x in [lo + b * w, lo + (b + 1) * w), with w = (hi - lo) / nbins.

    Each block bins TILE values and adds them with one atomic per value. Values outside
    [lo, hi), and the NaN padding past the end of x, get bin -1: atomics treat negative
    indices as out of bounds and leave memory alone. Counting needs no ordering with other
    memory operations, hence the relaxed atomics.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    hist_stride0 = hist_stride0 // hist_div[0] * hist_div[0]
    hist_shape0 = hist_shape0 // hist_div[1] * hist_div[1]
    nbins = hist_shape0
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0 = tl.cast(tl.program_id(0), tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_x0 = tl.program_id(0) * TILE + tl.arange(0, TILE)
    mask_x = offs_x0 < x_shape0
    v = tl.load(x_ptr + offs_x0 * x_stride0, mask=mask_x, other=float("nan"))
    inside = (v >= lo) & (v < hi)
    pos = _floor((v - lo) / (hi - lo) * nbins)
    bins = tl.where(inside, pos, -1.0).to(tl.int32)
    ones = tl.full((TILE,), 1, hist_ptr.dtype.element_ty)
    _atomic_add_1d(hist_ptr, hist_shape0, hist_stride0, bins, ones, USE_INT64, SEM="relaxed")


def launch_histogram_kernel(stream, grid, x, hist, lo, hi, TILE, *, hints=None):
    """Run `histogram_kernel` like `ct.launch(stream, grid, histogram_kernel, (x, hist, lo, hi, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    hist = _as_tensor(hist)
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        x,
        *x.shape,
        *x.stride(),
        hist,
        *hist.shape,
        *hist.stride(),
        lo,
        hi,
        TILE,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        hist.dtype,
        hist.data_ptr() & 15,
        hist.shape,
        hist.stride(),
        _scalar_key(lo),
        _scalar_key(hi),
        TILE,
        num_ctas,
    )
    if _launch_known(histogram_kernel, known, stream, grid, args):
        return
    _check_ndim("histogram_kernel", "x", x, 1)
    _check_ndim("histogram_kernel", "hist", hist, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        x_div=_multiples(x),
        hist_div=_multiples(hist),
        USE_INT64=_needs_int64(x, hist),
    )
    with _on_stream(stream):
        compiled = histogram_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(histogram_kernel, known, compiled, args, constexprs)


def launch(stream, x, hist, lo, hi):
    tile = 128
    hist.zero_()
    launch_histogram_kernel(stream, (triton.cdiv(x.shape[0], tile),), x, hist, lo, hi, tile)
