# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""A matmul whose tile sizes are chosen by ct.tune.exhaustive_search, launched with
architecture-dependent hints (ct.ByTarget) through kernel.replace_hints."""

import contextlib
import dataclasses
import functools
import time

import torch
import triton
import triton.language as tl


@triton.jit
def _dot_any_size(x, y, acc, PRECISION: tl.constexpr):
    # tl.dot needs M, N >= 16 and K >= 16 (32 for 8-bit operands); cuTile's mma takes any
    # size. A smaller dimension is spread over the minimum (each element repeated, all but the
    # first copy zeroed) and summed back, which adds only zeros. out_dtype: tl.dot requires
    # it to be the accumulator's dtype (fp64, int32 and fp16 accumulators are not its default).
    M: tl.constexpr = x.shape[0]
    K: tl.constexpr = x.shape[1]
    N: tl.constexpr = y.shape[1]
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    if M >= 16 and N >= 16 and K >= MIN_K:
        return tl.dot(x, y, acc, input_precision=PRECISION, out_dtype=acc.dtype)
    else:
        RM: tl.constexpr = 16 // M if M < 16 else 1
        RN: tl.constexpr = 16 // N if N < 16 else 1
        RK: tl.constexpr = MIN_K // K if K < MIN_K else 1
        xs = tl.reshape(tl.broadcast_to(x[:, None, :, None], (M, RM, K, RK)), (M * RM, K * RK))
        keep_x = (tl.arange(0, M * RM) % RM == 0)[:, None] & (tl.arange(0, K * RK) % RK == 0)[
            None, :
        ]
        xs = tl.where(keep_x, xs, tl.zeros_like(xs))
        ys = tl.reshape(tl.broadcast_to(y[:, None, :, None], (K, RK, N, RN)), (K * RK, N * RN))
        ys = tl.where((tl.arange(0, N * RN) % RN == 0)[None, :], ys, tl.zeros_like(ys))
        prod = tl.dot(
            xs,
            ys,
            tl.zeros((M * RM, N * RN), acc.dtype),
            input_precision=PRECISION,
            out_dtype=acc.dtype,
        )
        prod = tl.sum(tl.sum(tl.reshape(prod, (M, RM, N, RN)), axis=3), axis=1)
        return acc + prod.to(acc.dtype)


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


class _ByTarget:
    """cuTile's ByTarget: a value per GPU architecture ("sm_90", ...), resolved at launch."""

    def __init__(self, default=None, **value_by_target):
        self.default, self.value_by_target = default, value_by_target

    def resolve(self):
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return self.value_by_target.get(f"sm_{major}{minor}", self.default)
        return self.default


def _by_target(value):
    value = value.resolve() if isinstance(value, _ByTarget) else value
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


_LAUNCHERS = {}  # Triton kernel -> its launcher, for kernels chosen at run time


def _launch(stream, grid, kernel, args):
    """ct.launch of a kernel chosen at run time (a variable, replace_hints, a tuning result)."""
    _LAUNCHERS.get(kernel, kernel)(stream, grid, *args)


def _with_hints(kernel, **hints):
    """kernel.replace_hints(**hints): the same launcher with other hints."""
    launcher = _LAUNCHERS.get(kernel, kernel)
    base = getattr(launcher, "hints", {})
    fn = functools.partial(getattr(launcher, "func", launcher), hints=base | hints)
    fn.hints = base | hints
    return fn


@dataclasses.dataclass
class _Measurement:
    config: object
    mean_us: float
    num_samples: int
    error_margin_us: float


@dataclasses.dataclass
class _TuningResult:
    best: _Measurement
    successes: list
    failures: list

    def summary(self, *, top_k=10, bottom_k=2):
        ranked = sorted(self.successes, key=lambda m: m.mean_us)
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        shown = ranked[:top_k] + (ranked[-bottom_k:] if len(ranked) > top_k + bottom_k else [])
        lines += [f"{m.mean_us:10.1f} us +- {m.error_margin_us:.1f}  {m.config}" for m in shown]
        return "\n".join(lines)


def _time_us(fn, flush_l2):
    """Per-launch times in microseconds: CUDA events through triton.testing.do_bench on a GPU,
    wall clock elsewhere (TRITON_INTERPRET: for exercising the search, not for timing)."""
    if torch.cuda.is_available():
        ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="all")
        return [t * 1000.0 for t in ms]
    samples = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    return samples


def _exhaustive_search(
    search_space,
    stream,
    grid_fn,
    kernel,
    args_fn,
    hints_fn=None,
    *,
    quiet=False,
    single_run_timeout_sec=None,
    flush_l2=True,
):
    """ct.tune.exhaustive_search over the translation: time every config, keep the fastest."""
    successes, failures = [], []
    for config in search_space:
        try:
            k = (
                kernel(config)
                if not isinstance(kernel, triton.runtime.JITFunction)
                and kernel not in _LAUNCHERS
                and not hasattr(kernel, "hints")
                else kernel
            )
            launcher = _with_hints(k, **(hints_fn(config) if hints_fn else {}))
            grid, args = grid_fn(config), args_fn(config)
            samples = _time_us(lambda: launcher(stream, grid, *args), flush_l2)
        except Exception as e:  # a config that fails is reported, as cuTile does
            failures.append((config, type(e), str(e)))
            continue
        mean = sum(samples) / len(samples)
        var = sum((t - mean) ** 2 for t in samples) / max(len(samples) - 1, 1)
        successes.append(
            _Measurement(config, mean, len(samples), 1.96 * (var / len(samples)) ** 0.5)
        )
    if not successes:
        raise RuntimeError(f"every config failed; first failure: {failures[0][1:]}")
    result = _TuningResult(min(successes, key=lambda m: m.mean_us), successes, failures)
    if not quiet:
        print(result.summary())
    return result


@triton.jit
def tiled_matmul(
    a_ptr,
    a_shape0,
    a_shape1,
    a_stride0,
    a_stride1,
    b_ptr,
    b_shape0,
    b_shape1,
    b_stride0,
    b_stride1,
    c_ptr,
    c_shape0,
    c_shape1,
    c_stride0,
    c_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    c_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_stride1 = a_stride1 // a_div[1] * a_div[1]
    a_shape0 = a_shape0 // a_div[2] * a_div[2]
    a_shape1 = a_shape1 // a_div[3] * a_div[3]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_stride1 = b_stride1 // b_div[1] * b_div[1]
    b_shape0 = b_shape0 // b_div[2] * b_div[2]
    b_shape1 = b_shape1 // b_div[3] * b_div[3]
    c_stride0 = c_stride0 // c_div[0] * c_div[0]
    c_stride1 = c_stride1 // c_div[1] * c_div[1]
    c_shape0 = c_shape0 // c_div[2] * c_div[2]
    c_shape1 = c_shape1 // c_div[3] * c_div[3]
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k in range(tl.cdiv(a_shape1, TK)):
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_a0 = tl.cast(tl.program_id(0), tl.int64) * TM + tl.arange(0, TM)
            offs_a1 = tl.cast(k, tl.int64) * TK + tl.arange(0, TK)
        else:
            offs_a0 = tl.program_id(0) * TM + tl.arange(0, TM)
            offs_a1 = k * TK + tl.arange(0, TK)
        mask_a = (offs_a0[:, None] < a_shape0) & (offs_a1[None, :] < a_shape1)
        x = tl.load(
            a_ptr + offs_a0[:, None] * a_stride0 + offs_a1[None, :] * a_stride1,
            mask=mask_a,
            other=0.0,
        )
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_b0 = tl.cast(k, tl.int64) * TK + tl.arange(0, TK)
            offs_b1 = tl.cast(tl.program_id(1), tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_b0 = k * TK + tl.arange(0, TK)
            offs_b1 = tl.program_id(1) * TN + tl.arange(0, TN)
        mask_b = (offs_b0[:, None] < b_shape0) & (offs_b1[None, :] < b_shape1)
        y = tl.load(
            b_ptr + offs_b0[:, None] * b_stride0 + offs_b1[None, :] * b_stride1,
            mask=mask_b,
            other=0.0,
        )
        acc = _dot_any_size(x, y, acc, "ieee")
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_c0 = tl.cast(tl.program_id(0), tl.int64) * TM + tl.arange(0, TM)
        offs_c1 = tl.cast(tl.program_id(1), tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_c0 = tl.program_id(0) * TM + tl.arange(0, TM)
        offs_c1 = tl.program_id(1) * TN + tl.arange(0, TN)
    mask_c = (offs_c0[:, None] < c_shape0) & (offs_c1[None, :] < c_shape1)
    tl.store(
        c_ptr + offs_c0[:, None] * c_stride0 + offs_c1[None, :] * c_stride1,
        acc.to(c_ptr.dtype.element_ty),
        mask=mask_c,
    )


def launch_tiled_matmul(stream, grid, a, b, c, TM, TN, TK, *, hints=None):
    """Run `tiled_matmul` like `ct.launch(stream, grid, tiled_matmul, (a, b, c, TM, TN, TK))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = launch_tiled_matmul.hints | (hints or {})
    a = _as_tensor(a)
    b = _as_tensor(b)
    c = _as_tensor(c)
    num_ctas_1 = _by_target(hints.get("num_ctas", 1))
    args = (
        a,
        *a.shape,
        *a.stride(),
        b,
        *b.shape,
        *b.stride(),
        c,
        *c.shape,
        *c.stride(),
        TM,
        TN,
        TK,
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
        c.dtype,
        c.data_ptr() & 15,
        c.shape,
        c.stride(),
        TM,
        TN,
        TK,
        num_ctas_1,
    )
    if _launch_known(tiled_matmul, known, stream, grid, args):
        return
    _check_ndim("tiled_matmul", "a", a, 2)
    _check_ndim("tiled_matmul", "b", b, 2)
    _check_ndim("tiled_matmul", "c", c, 2)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # Matrix kernels: 4 warps and 3 stages up to 128x128 tiles (measured best on the H200,
    # docs/gpu-results.md); larger tiles need more warps and a deeper software pipeline.
    num_warps = 8 if tile_elems >= 128 * 256 else 4
    num_stages = 4 if tile_elems >= 128 * 256 else 3
    constexprs = dict(
        a_div=_multiples(a),
        b_div=_multiples(b),
        c_div=_multiples(c),
        USE_INT64=_needs_int64(a, b, c),
    )
    with _on_stream(stream):
        compiled = tiled_matmul[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas_1
        )
        _remember_launch(tiled_matmul, known, compiled, args, constexprs)


# The @ct.kernel options: host expressions evaluated once, here, as cuTile evaluates them when
# it decorates the kernel (not on every launch).
launch_tiled_matmul.hints = {"num_ctas": _ByTarget(sm_100=2, default=1), "occupancy": 2}


_LAUNCHERS[tiled_matmul] = launch_tiled_matmul


def tune(stream, a, b, c) -> _TuningResult:
    m, n = c.shape
    space = [dict(tm=tm, tn=tn, tk=32) for tm in (32, 64) for tn in (32, 64)]
    return _exhaustive_search(
        space,
        stream,
        lambda cfg: (triton.cdiv(m, cfg["tm"]), triton.cdiv(n, cfg["tn"])),
        tiled_matmul,
        lambda cfg: (a, b, c.clone(), cfg["tm"], cfg["tn"], cfg["tk"]),
        lambda cfg: {"occupancy": 1},
        quiet=True,
    )


def launch(stream, a, b, c):
    best = tune(stream, a, b, c).best.config
    kernel = _with_hints(launch_tiled_matmul, occupancy=4)
    m, n = c.shape
    grid = (triton.cdiv(m, best["tm"]), triton.cdiv(n, best["tn"]))
    _launch(stream, grid, kernel, (a, b, c, best["tm"], best["tn"], best["tk"]))
