# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl
import numpy as np


@triton.jit
def _floordiv(a, b):
    """cuTile `//` rounds toward negative infinity (as Python does); Triton's integer `//`
    truncates toward zero, so the quotient steps down where the signs differ."""
    if (a + b).dtype.is_floating():
        # the quotient rounded to the dtype (an IEEE division: Triton's fp32 `/` is
        # approximate, and a quotient that is exactly 6 could floor to 5), then floored
        dt = (a + b).dtype
        if dt == tl.float64:
            q = tl.floor(tl.cast(a, dt) / tl.cast(b, dt))
        else:  # 16-bit values divide exactly enough in fp32, then round to their dtype
            x = tl.cast(tl.cast(a, dt), tl.float32)
            y = tl.cast(tl.cast(b, dt), tl.float32)
            q = tl.floor(tl.div_rn(x, y).to(dt).to(tl.float32)).to(dt)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) != (b < 0)), q - 1, q)
    return q


@triton.jit
def _mod(a, b):
    """cuTile `%` takes the sign of the divisor (floor modulo); Triton's integer `%` takes the
    sign of the dividend, so a nonzero remainder of the wrong sign is moved by one divisor."""
    if (a + b).dtype.is_floating():
        # Triton's float % is C's fmod, which is exact; 16-bit floats take it in fp32, where
        # their values and the remainder are exact too, and round once at the end
        dt = (a + b).dtype
        if dt.primitive_bitwidth < 32:
            x = tl.cast(tl.cast(a, dt), tl.float32)
            y = tl.cast(tl.cast(b, dt), tl.float32)
        else:
            x = tl.cast(a, dt)
            y = tl.cast(b, dt)
        r = x % y
        r = tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).to(dt)
    else:
        r = a % b
        r = tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    return r


@triton.jit
def _store_tile_1d(
    ptr, shape0, stride0, index0, tile, USE_INT64: tl.constexpr, CHECK_BOUNDS: tl.constexpr = True
):
    """ct.store: write `tile` at tile `index`; out-of-bounds elements are dropped and the
    value is cast to the array's dtype."""
    if USE_INT64:  # chosen at launch when some array spans 2**31 elements or more
        offs0 = tl.cast(index0, tl.int64) * tile.shape[0] + tl.arange(0, tile.shape[0])
    else:
        offs0 = index0 * tile.shape[0] + tl.arange(0, tile.shape[0])
    ptrs = ptr + offs0 * stride0
    value = tile.to(ptr.dtype.element_ty)
    if CHECK_BOUNDS:
        tl.store(ptrs, value, mask=offs0 < shape0)
    else:
        tl.store(ptrs, value)


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


BUCKET = 12
OFFSET = None  # an optional shift, decided when the module is written


@triton.jit
def bucket_kernel(
    keys_ptr,
    keys_shape0,
    keys_stride0,
    bucket_ptr,
    bucket_shape0,
    bucket_stride0,
    slot_ptr,
    slot_shape0,
    slot_stride0,
    weight_ptr,
    weight_shape0,
    weight_stride0,
    TILE: tl.constexpr,
    keys_div: tl.constexpr,
    bucket_div: tl.constexpr,
    slot_div: tl.constexpr,
    weight_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Split signed keys into (bucket, slot) with floor semantics, and weight each key by
    its slot: weight = slot * 0.5 + 1 (a float32 constant written as numpy spells it)."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    keys_stride0 = keys_stride0 // keys_div[0] * keys_div[0]
    keys_shape0 = keys_shape0 // keys_div[1] * keys_div[1]
    bucket_stride0 = bucket_stride0 // bucket_div[0] * bucket_div[0]
    bucket_shape0 = bucket_shape0 // bucket_div[1] * bucket_div[1]
    slot_stride0 = slot_stride0 // slot_div[0] * slot_div[0]
    slot_shape0 = slot_shape0 // slot_div[1] * slot_div[1]
    weight_stride0 = weight_stride0 // weight_div[0] * weight_div[0]
    weight_shape0 = weight_shape0 // weight_div[1] * weight_div[1]
    i = tl.program_id(0)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_keys0 = tl.cast(i, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_keys0 = i * TILE + tl.arange(0, TILE)
    mask_keys = offs_keys0 < keys_shape0
    k = tl.load(keys_ptr + offs_keys0 * keys_stride0, mask=mask_keys)
    if False:
        k = k + None
    b, s = (_floordiv(k, 12), _mod(k, 12))
    _store_tile_1d(bucket_ptr, bucket_shape0, bucket_stride0, i, b, USE_INT64)
    _store_tile_1d(slot_ptr, slot_shape0, slot_stride0, i, s, USE_INT64)
    half = tl.full((TILE,), 0.5, tl.float32)
    _store_tile_1d(
        weight_ptr, weight_shape0, weight_stride0, i, s.to(tl.float32) * half + 1.0, USE_INT64
    )


def launch_bucket_kernel(stream, grid, keys, bucket, slot, weight, TILE, *, hints=None):
    """Run `bucket_kernel` like `ct.launch(stream, grid, bucket_kernel, (keys, bucket, slot, weight, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    keys = _as_tensor(keys)
    bucket = _as_tensor(bucket)
    slot = _as_tensor(slot)
    weight = _as_tensor(weight)
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        keys,
        *keys.shape,
        *keys.stride(),
        bucket,
        *bucket.shape,
        *bucket.stride(),
        slot,
        *slot.shape,
        *slot.stride(),
        weight,
        *weight.shape,
        *weight.stride(),
        TILE,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        keys.dtype,
        keys.data_ptr() & 15,
        keys.shape,
        keys.stride(),
        bucket.dtype,
        bucket.data_ptr() & 15,
        bucket.shape,
        bucket.stride(),
        slot.dtype,
        slot.data_ptr() & 15,
        slot.shape,
        slot.stride(),
        weight.dtype,
        weight.data_ptr() & 15,
        weight.shape,
        weight.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(bucket_kernel, known, stream, grid, args):
        return
    _check_ndim("bucket_kernel", "keys", keys, 1)
    _check_ndim("bucket_kernel", "bucket", bucket, 1)
    _check_ndim("bucket_kernel", "slot", slot, 1)
    _check_ndim("bucket_kernel", "weight", weight, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        keys_div=_multiples(keys),
        bucket_div=_multiples(bucket),
        slot_div=_multiples(slot),
        weight_div=_multiples(weight),
        USE_INT64=_needs_int64(keys, bucket, slot, weight),
    )
    with _on_stream(stream):
        compiled = bucket_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(bucket_kernel, known, compiled, args, constexprs)


def launch(stream, keys, bucket, slot, weight):
    tile = 128
    launch_bucket_kernel(
        stream, (triton.cdiv(keys.shape[0], tile),), keys, bucket, slot, weight, tile
    )
