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
        q = tl.floor((a / b).to(tl.float32)).to((a + b).dtype)
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
    keys_shape0 = keys_shape0 // keys_div[0] * keys_div[0]
    bucket_shape0 = bucket_shape0 // bucket_div[0] * bucket_div[0]
    slot_shape0 = slot_shape0 // slot_div[0] * slot_div[0]
    weight_shape0 = weight_shape0 // weight_div[0] * weight_div[0]
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
    _check_ndim("bucket_kernel", "keys", keys, 1)
    _check_ndim("bucket_kernel", "bucket", bucket, 1)
    _check_ndim("bucket_kernel", "slot", slot, 1)
    _check_ndim("bucket_kernel", "weight", weight, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        bucket_kernel[_grid(grid)](
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
            keys_div=_multiples(keys),
            bucket_div=_multiples(bucket),
            slot_div=_multiples(slot),
            weight_div=_multiples(weight),
            USE_INT64=_needs_int64(keys, bucket, slot, weight),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, keys, bucket, slot, weight):
    tile = 128
    launch_bucket_kernel(
        stream, (triton.cdiv(keys.shape[0], tile),), keys, bucket, slot, weight, tile
    )
