# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


@triton.jit
def _pack_to_bytes(x):
    # the raw bytes of a tile, flattened, least significant byte of each element first
    NB: tl.constexpr = x.dtype.primitive_bitwidth // 8
    flat = tl.reshape(x, (x.numel,))
    if NB == 1:
        out = flat.to(tl.uint8, bitcast=True)
    else:
        if NB == 2:
            bits = flat.to(tl.uint16, bitcast=True)
        elif NB == 4:
            bits = flat.to(tl.uint32, bitcast=True)
        else:
            bits = flat.to(tl.uint64, bitcast=True)
        shifts = (tl.arange(0, NB) * 8).to(bits.dtype)
        parts = ((bits[:, None] >> shifts[None, :]) & 0xFF).to(tl.uint8)
        out = tl.reshape(parts, (x.numel * NB,))
    return out


@triton.jit
def _unpack_from_bytes(x, DTYPE: tl.constexpr):
    # groups of bytes (least significant first) reassembled into elements of DTYPE
    NB: tl.constexpr = DTYPE.primitive_bitwidth // 8
    if NB == 1:
        out = x.to(DTYPE, bitcast=True)
    else:
        if NB == 2:
            UINT: tl.constexpr = tl.uint16
        elif NB == 4:
            UINT: tl.constexpr = tl.uint32
        else:
            UINT: tl.constexpr = tl.uint64
        shifts = (tl.arange(0, NB) * 8).to(UINT)
        parts = tl.reshape(x, (x.numel // NB, NB)).to(UINT) << shifts[None, :]
        out = tl.sum(parts, axis=1).to(UINT).to(DTYPE, bitcast=True)
    return out


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
def float_bits_kernel(
    x_ptr,
    x_shape0,
    x_stride0,
    raw_ptr,
    raw_shape0,
    raw_stride0,
    exponent_ptr,
    exponent_shape0,
    exponent_stride0,
    TILE: tl.constexpr,
    x_div: tl.constexpr,
    raw_div: tl.constexpr,
    exponent_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Raw bytes of a float32 tile, and each element's unbiased exponent read from its bits.

    The bytes go out as they are (a uint8 copy of the float's storage); reinterpreting them
    as int32 gives the IEEE bit pattern, whose bits 23..30 hold the biased exponent.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    raw_stride0 = raw_stride0 // raw_div[0] * raw_div[0]
    raw_shape0 = raw_shape0 // raw_div[1] * raw_div[1]
    exponent_stride0 = exponent_stride0 // exponent_div[0] * exponent_div[0]
    exponent_shape0 = exponent_shape0 // exponent_div[1] * exponent_div[1]
    pid = tl.program_id(0)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_x0 = pid * TILE + tl.arange(0, TILE)
    mask_x = offs_x0 < x_shape0
    t = tl.load(x_ptr + offs_x0 * x_stride0, mask=mask_x, other=0.0)
    packed = _pack_to_bytes(t)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_raw0 = tl.cast(pid, tl.int64) * (TILE * (t.dtype.primitive_bitwidth // 8)) + tl.arange(
            0, TILE * (t.dtype.primitive_bitwidth // 8)
        )
    else:
        offs_raw0 = pid * (TILE * (t.dtype.primitive_bitwidth // 8)) + tl.arange(
            0, TILE * (t.dtype.primitive_bitwidth // 8)
        )
    mask_raw = offs_raw0 < raw_shape0
    tl.store(raw_ptr + offs_raw0 * raw_stride0, packed.to(raw_ptr.dtype.element_ty), mask=mask_raw)
    bits = _unpack_from_bytes(packed, tl.int32)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_exponent0 = tl.cast(pid, tl.int64) * (
            TILE * (t.dtype.primitive_bitwidth // 8) // 4
        ) + tl.arange(0, TILE * (t.dtype.primitive_bitwidth // 8) // 4)
    else:
        offs_exponent0 = pid * (TILE * (t.dtype.primitive_bitwidth // 8) // 4) + tl.arange(
            0, TILE * (t.dtype.primitive_bitwidth // 8) // 4
        )
    mask_exponent = offs_exponent0 < exponent_shape0
    tl.store(
        exponent_ptr + offs_exponent0 * exponent_stride0,
        ((bits >> 23 & 0xFF) - 127).to(exponent_ptr.dtype.element_ty),
        mask=mask_exponent,
    )


def launch_float_bits_kernel(stream, grid, x, raw, exponent, TILE, *, hints=None):
    """Run `float_bits_kernel` like `ct.launch(stream, grid, float_bits_kernel, (x, raw, exponent, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    raw = _as_tensor(raw)
    exponent = _as_tensor(exponent)
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        x,
        *x.shape,
        *x.stride(),
        raw,
        *raw.shape,
        *raw.stride(),
        exponent,
        *exponent.shape,
        *exponent.stride(),
        TILE,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        raw.dtype,
        raw.data_ptr() & 15,
        raw.shape,
        raw.stride(),
        exponent.dtype,
        exponent.data_ptr() & 15,
        exponent.shape,
        exponent.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(float_bits_kernel, known, stream, grid, args):
        return
    _check_ndim("float_bits_kernel", "x", x, 1)
    _check_ndim("float_bits_kernel", "raw", raw, 1)
    _check_ndim("float_bits_kernel", "exponent", exponent, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        x_div=_multiples(x),
        raw_div=_multiples(raw),
        exponent_div=_multiples(exponent),
        USE_INT64=_needs_int64(x, raw, exponent),
    )
    with _on_stream(stream):
        compiled = float_bits_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(float_bits_kernel, known, compiled, args, constexprs)


def launch(stream, x, raw, exponent):
    tile = 128
    launch_float_bits_kernel(stream, (triton.cdiv(x.shape[0], tile),), x, raw, exponent, tile)
