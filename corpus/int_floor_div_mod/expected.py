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
def floor_div_mod_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    d_ptr,
    d_shape0,
    d_shape1,
    d_stride0,
    d_stride1,
    q_ptr,
    q_shape0,
    q_shape1,
    q_stride0,
    q_stride1,
    r_ptr,
    r_shape0,
    r_shape1,
    r_stride0,
    r_stride1,
    qs_ptr,
    qs_shape0,
    qs_shape1,
    qs_stride0,
    qs_stride1,
    rs_ptr,
    rs_shape0,
    rs_shape1,
    rs_stride0,
    rs_stride1,
    s,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    d_div: tl.constexpr,
    q_div: tl.constexpr,
    r_div: tl.constexpr,
    qs_div: tl.constexpr,
    rs_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Integer floor division and modulo with Python semantics.

    q = x // d and r = x % d elementwise, and qs = x // s, rs = x % s for a runtime
    scalar divisor s. Quotients round toward -inf (not toward zero as in C), and the
    remainder takes the sign of the divisor, so x == q * d + r always holds.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    d_stride0 = d_stride0 // d_div[0] * d_div[0]
    d_stride1 = d_stride1 // d_div[1] * d_div[1]
    d_shape0 = d_shape0 // d_div[2] * d_div[2]
    d_shape1 = d_shape1 // d_div[3] * d_div[3]
    q_stride0 = q_stride0 // q_div[0] * q_div[0]
    q_stride1 = q_stride1 // q_div[1] * q_div[1]
    q_shape0 = q_shape0 // q_div[2] * q_div[2]
    q_shape1 = q_shape1 // q_div[3] * q_div[3]
    r_stride0 = r_stride0 // r_div[0] * r_div[0]
    r_stride1 = r_stride1 // r_div[1] * r_div[1]
    r_shape0 = r_shape0 // r_div[2] * r_div[2]
    r_shape1 = r_shape1 // r_div[3] * r_div[3]
    qs_stride0 = qs_stride0 // qs_div[0] * qs_div[0]
    qs_stride1 = qs_stride1 // qs_div[1] * qs_div[1]
    qs_shape0 = qs_shape0 // qs_div[2] * qs_div[2]
    qs_shape1 = qs_shape1 // qs_div[3] * qs_div[3]
    rs_stride0 = rs_stride0 // rs_div[0] * rs_div[0]
    rs_stride1 = rs_stride1 // rs_div[1] * rs_div[1]
    rs_shape0 = rs_shape0 // rs_div[2] * rs_div[2]
    rs_shape1 = rs_shape1 // rs_div[3] * rs_div[3]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_x1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_x0 = pid_m * TM + tl.arange(0, TM)
        offs_x1 = pid_n * TN + tl.arange(0, TN)
    mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
    xt = tl.load(x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1, mask=mask_x)
    # The divisor data has no zeros; the tail lanes are padded with 0 and then replaced
    # by 1 so that no lane ever divides by zero.
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_d0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_d1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_d0 = pid_m * TM + tl.arange(0, TM)
        offs_d1 = pid_n * TN + tl.arange(0, TN)
    mask_d = (offs_d0[:, None] < d_shape0) & (offs_d1[None, :] < d_shape1)
    dt = tl.load(
        d_ptr + offs_d0[:, None] * d_stride0 + offs_d1[None, :] * d_stride1, mask=mask_d, other=0.0
    )
    dt = tl.where(dt == 0, 1, dt)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_q0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_q1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_q0 = pid_m * TM + tl.arange(0, TM)
        offs_q1 = pid_n * TN + tl.arange(0, TN)
    mask_q = (offs_q0[:, None] < q_shape0) & (offs_q1[None, :] < q_shape1)
    tl.store(
        q_ptr + offs_q0[:, None] * q_stride0 + offs_q1[None, :] * q_stride1,
        _floordiv(xt, dt).to(q_ptr.dtype.element_ty),
        mask=mask_q,
    )
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_r0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_r1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_r0 = pid_m * TM + tl.arange(0, TM)
        offs_r1 = pid_n * TN + tl.arange(0, TN)
    mask_r = (offs_r0[:, None] < r_shape0) & (offs_r1[None, :] < r_shape1)
    tl.store(
        r_ptr + offs_r0[:, None] * r_stride0 + offs_r1[None, :] * r_stride1,
        _mod(xt, dt).to(r_ptr.dtype.element_ty),
        mask=mask_r,
    )
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_qs0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_qs1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_qs0 = pid_m * TM + tl.arange(0, TM)
        offs_qs1 = pid_n * TN + tl.arange(0, TN)
    mask_qs = (offs_qs0[:, None] < qs_shape0) & (offs_qs1[None, :] < qs_shape1)
    tl.store(
        qs_ptr + offs_qs0[:, None] * qs_stride0 + offs_qs1[None, :] * qs_stride1,
        _floordiv(xt, s).to(qs_ptr.dtype.element_ty),
        mask=mask_qs,
    )
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_rs0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_rs1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_rs0 = pid_m * TM + tl.arange(0, TM)
        offs_rs1 = pid_n * TN + tl.arange(0, TN)
    mask_rs = (offs_rs0[:, None] < rs_shape0) & (offs_rs1[None, :] < rs_shape1)
    tl.store(
        rs_ptr + offs_rs0[:, None] * rs_stride0 + offs_rs1[None, :] * rs_stride1,
        _mod(xt, s).to(rs_ptr.dtype.element_ty),
        mask=mask_rs,
    )


def launch_floor_div_mod_kernel(stream, grid, x, d, q, r, qs, rs, s, TM, TN, *, hints=None):
    """Run `floor_div_mod_kernel` like `ct.launch(stream, grid, floor_div_mod_kernel, (x, d, q, r, qs, rs, s, TM, TN))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    d = _as_tensor(d)
    q = _as_tensor(q)
    r = _as_tensor(r)
    qs = _as_tensor(qs)
    rs = _as_tensor(rs)
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        x,
        *x.shape,
        *x.stride(),
        d,
        *d.shape,
        *d.stride(),
        q,
        *q.shape,
        *q.stride(),
        r,
        *r.shape,
        *r.stride(),
        qs,
        *qs.shape,
        *qs.stride(),
        rs,
        *rs.shape,
        *rs.stride(),
        s,
        TM,
        TN,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        d.dtype,
        d.data_ptr() & 15,
        d.shape,
        d.stride(),
        q.dtype,
        q.data_ptr() & 15,
        q.shape,
        q.stride(),
        r.dtype,
        r.data_ptr() & 15,
        r.shape,
        r.stride(),
        qs.dtype,
        qs.data_ptr() & 15,
        qs.shape,
        qs.stride(),
        rs.dtype,
        rs.data_ptr() & 15,
        rs.shape,
        rs.stride(),
        _scalar_key(s),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(floor_div_mod_kernel, known, stream, grid, args):
        return
    _check_ndim("floor_div_mod_kernel", "x", x, 2)
    _check_ndim("floor_div_mod_kernel", "d", d, 2)
    _check_ndim("floor_div_mod_kernel", "q", q, 2)
    _check_ndim("floor_div_mod_kernel", "r", r, 2)
    _check_ndim("floor_div_mod_kernel", "qs", qs, 2)
    _check_ndim("floor_div_mod_kernel", "rs", rs, 2)
    tile_elems = TM * TN
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    constexprs = dict(
        x_div=_multiples(x),
        d_div=_multiples(d),
        q_div=_multiples(q),
        r_div=_multiples(r),
        qs_div=_multiples(qs),
        rs_div=_multiples(rs),
        USE_INT64=_needs_int64(x, d, q, r, qs, rs),
    )
    with _on_stream(stream):
        compiled = floor_div_mod_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(floor_div_mod_kernel, known, compiled, args, constexprs)


def launch(stream, x, d, q, r, qs, rs, s):
    tm, tn = 16, 32
    m, n = x.shape
    launch_floor_div_mod_kernel(
        stream, (triton.cdiv(m, tm), triton.cdiv(n, tn)), x, d, q, r, qs, rs, s, tm, tn
    )
