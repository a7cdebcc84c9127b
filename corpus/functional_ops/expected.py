# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


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
def _pow(x, y):
    """x ** y for float tiles: exp2(y * log2|x|) in fp32, negative for odd integer powers of a
    negative base, NaN for other powers of a negative base, 1 for y == 0."""
    xf = (x + 0 * y).to(tl.float32)
    yf = (y + 0 * x).to(tl.float32)
    r = tl.exp2(yf * tl.log2(tl.abs(xf)))
    y_int = tl.floor(yf) == yf
    y_odd = y_int & (tl.floor(yf * 0.5) * 2.0 != yf)
    r = tl.where(xf < 0, tl.where(y_int, tl.where(y_odd, -r, r), float("nan")), r)
    r = tl.where(yf == 0, 1.0, r)
    return r.to((x + y).dtype)


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
def put_row(
    arr_ptr,
    arr_shape0,
    arr_shape1,
    arr_stride0,
    arr_stride1,
    row: tl.constexpr,
    pid,
    t,
    TILE: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Store 1-D tile `t` as chunk `pid` of row `row` of the 2-D array `arr`."""
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_arr0 = tl.cast(row, tl.int64) + tl.arange(0, 1)
        offs_arr1 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_arr0 = row + tl.arange(0, 1)
        offs_arr1 = pid * TILE + tl.arange(0, TILE)
    mask_arr = (offs_arr0[:, None] < arr_shape0) & (offs_arr1[None, :] < arr_shape1)
    tl.store(
        arr_ptr + offs_arr0[:, None] * arr_stride0 + offs_arr1[None, :] * arr_stride1,
        tl.reshape(t, (1, TILE)).to(arr_ptr.dtype.element_ty),
        mask=mask_arr,
    )


@triton.jit
def functional_ops_kernel(
    a_ptr,
    a_shape0,
    a_stride0,
    b_ptr,
    b_shape0,
    b_stride0,
    i_ptr,
    i_shape0,
    i_stride0,
    j_ptr,
    j_shape0,
    j_stride0,
    fres_ptr,
    fres_shape0,
    fres_shape1,
    fres_stride0,
    fres_stride1,
    ires_ptr,
    ires_shape0,
    ires_shape1,
    ires_stride0,
    ires_stride1,
    TILE: tl.constexpr,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    i_div: tl.constexpr,
    j_div: tl.constexpr,
    fres_div: tl.constexpr,
    ires_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Elementwise arithmetic written with the functional ct.* spellings.

    Row r of fres / ires receives the result of the r-th operation on a chunk of the
    1-D inputs. b is positive; a / b is never close to an integer (so floordiv and mod
    are well conditioned).
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_shape0 = a_shape0 // a_div[1] * a_div[1]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_shape0 = b_shape0 // b_div[1] * b_div[1]
    i_stride0 = i_stride0 // i_div[0] * i_div[0]
    i_shape0 = i_shape0 // i_div[1] * i_div[1]
    j_stride0 = j_stride0 // j_div[0] * j_div[0]
    j_shape0 = j_shape0 // j_div[1] * j_div[1]
    fres_stride0 = fres_stride0 // fres_div[0] * fres_div[0]
    fres_stride1 = fres_stride1 // fres_div[1] * fres_div[1]
    fres_shape0 = fres_shape0 // fres_div[2] * fres_div[2]
    fres_shape1 = fres_shape1 // fres_div[3] * fres_div[3]
    ires_stride0 = ires_stride0 // ires_div[0] * ires_div[0]
    ires_stride1 = ires_stride1 // ires_div[1] * ires_div[1]
    ires_shape0 = ires_shape0 // ires_div[2] * ires_div[2]
    ires_shape1 = ires_shape1 // ires_div[3] * ires_div[3]
    pid = tl.program_id(0)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_a0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_a0 = pid * TILE + tl.arange(0, TILE)
    mask_a = offs_a0 < a_shape0
    at = tl.load(a_ptr + offs_a0 * a_stride0, mask=mask_a)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_b0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_b0 = pid * TILE + tl.arange(0, TILE)
    mask_b = offs_b0 < b_shape0
    bt = tl.load(b_ptr + offs_b0 * b_stride0, mask=mask_b)
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        0,
        pid,
        at + bt,
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        1,
        pid,
        at - bt,
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        2,
        pid,
        at * bt,
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        3,
        pid,
        at / bt,
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        4,
        pid,
        _floordiv(at, bt),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        5,
        pid,
        _mod(at, bt),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        6,
        pid,
        _pow(bt, at * 0.25),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        7,
        pid,
        tl.minimum(at, bt),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        8,
        pid,
        tl.maximum(at, bt),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        9,
        pid,
        tl.where(at > bt, at, -bt),
        TILE,
        USE_INT64,
    )
    put_row(
        fres_ptr,
        fres_shape0,
        fres_shape1,
        fres_stride0,
        fres_stride1,
        10,
        pid,
        tl.where(_floor(at) == _floor(bt), at + bt, at - bt),
        TILE,
        USE_INT64,
    )

    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_i0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_i0 = pid * TILE + tl.arange(0, TILE)
    mask_i = offs_i0 < i_shape0
    it = tl.load(i_ptr + offs_i0 * i_stride0, mask=mask_i)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_j0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_j0 = pid * TILE + tl.arange(0, TILE)
    mask_j = offs_j0 < j_shape0
    jt = tl.load(j_ptr + offs_j0 * j_stride0, mask=mask_j)
    put_row(
        ires_ptr,
        ires_shape0,
        ires_shape1,
        ires_stride0,
        ires_stride1,
        0,
        pid,
        it & jt,
        TILE,
        USE_INT64,
    )
    put_row(
        ires_ptr,
        ires_shape0,
        ires_shape1,
        ires_stride0,
        ires_stride1,
        1,
        pid,
        it | jt,
        TILE,
        USE_INT64,
    )
    put_row(
        ires_ptr,
        ires_shape0,
        ires_shape1,
        ires_stride0,
        ires_stride1,
        2,
        pid,
        it ^ jt,
        TILE,
        USE_INT64,
    )
    put_row(
        ires_ptr,
        ires_shape0,
        ires_shape1,
        ires_stride0,
        ires_stride1,
        3,
        pid,
        it & jt ^ (it | 0x0F0F),
        TILE,
        USE_INT64,
    )


def launch_functional_ops_kernel(stream, grid, a, b, i, j, fres, ires, TILE, *, hints=None):
    """Run `functional_ops_kernel` like `ct.launch(stream, grid, functional_ops_kernel, (a, b, i, j, fres, ires, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    a = _as_tensor(a)
    b = _as_tensor(b)
    i = _as_tensor(i)
    j = _as_tensor(j)
    fres = _as_tensor(fres)
    ires = _as_tensor(ires)
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        a,
        *a.shape,
        *a.stride(),
        b,
        *b.shape,
        *b.stride(),
        i,
        *i.shape,
        *i.stride(),
        j,
        *j.shape,
        *j.stride(),
        fres,
        *fres.shape,
        *fres.stride(),
        ires,
        *ires.shape,
        *ires.stride(),
        TILE,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        a.dtype,
        a.data_ptr() & 15,
        a.shape,
        a.stride(),
        b.dtype,
        b.data_ptr() & 15,
        b.shape,
        b.stride(),
        i.dtype,
        i.data_ptr() & 15,
        i.shape,
        i.stride(),
        j.dtype,
        j.data_ptr() & 15,
        j.shape,
        j.stride(),
        fres.dtype,
        fres.data_ptr() & 15,
        fres.shape,
        fres.stride(),
        ires.dtype,
        ires.data_ptr() & 15,
        ires.shape,
        ires.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(functional_ops_kernel, known, stream, grid, args):
        return
    _check_ndim("functional_ops_kernel", "a", a, 1)
    _check_ndim("functional_ops_kernel", "b", b, 1)
    _check_ndim("functional_ops_kernel", "i", i, 1)
    _check_ndim("functional_ops_kernel", "j", j, 1)
    _check_ndim("functional_ops_kernel", "fres", fres, 2)
    _check_ndim("functional_ops_kernel", "ires", ires, 2)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        a_div=_multiples(a),
        b_div=_multiples(b),
        i_div=_multiples(i),
        j_div=_multiples(j),
        fres_div=_multiples(fres),
        ires_div=_multiples(ires),
        USE_INT64=_needs_int64(a, b, i, j, fres, ires),
    )
    with _on_stream(stream):
        compiled = functional_ops_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(functional_ops_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, i, j, fres, ires):
    tile = 128
    launch_functional_ops_kernel(
        stream, (triton.cdiv(a.shape[0], tile),), a, b, i, j, fres, ires, tile
    )
