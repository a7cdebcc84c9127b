# Helpers shared by the modules tile2triton 0.1.0 translated into this folder.
"""Host helpers of the translated modules under this folder, written once (their device
helpers stay in each module)."""

import contextlib
import dataclasses
import functools
import math
import time

import torch
import triton
import triton.language as tl

_SAME_STREAM = contextlib.nullcontext()  # (_on_stream: the launch stays on the current stream)


def _as_tensor(x, ndim=None, k=None, name=None):
    """A tensor for `x` (a DLPack array), `ndim`-D if given; e8m0, which Triton lacks, as bytes."""
    x = x if isinstance(x, torch.Tensor) else torch.from_dlpack(x)
    if ndim is not None and x.dim() != ndim:
        raise ValueError(f"{k}: `{name}` must have {ndim} dimension(s), got shape {tuple(x.shape)}")
    return x.view(torch.uint8) if x.dtype is getattr(torch, "float8_e8m0fnu", None) else x


def _check_ndim(k, name, x, ndim):
    if x.dim() != ndim:
        raise ValueError(f"{k}: `{name}` must have {ndim} dimension(s), got shape {tuple(x.shape)}")


def _needs_int64(*arrays):
    """Whether some element offset reaches 2**31: offsets in int64, else in int32 (cheaper)."""
    for x in arrays:
        if x.numel() < 2**31 - 1 and x.is_contiguous():  # the common case, without a loop
            continue
        if sum((n - 1) * abs(s) for n, s in zip(x.shape, x.stride()) if n > 0) >= 2**31 - 1:
            return True
    return False


@functools.lru_cache(1024)  # per layout: it took a third of a launcher's own host time
def _multiples(shape, s):
    """`*_div`: the largest of 16/8/4/2/1 dividing each stride, then each unit-stride extent."""
    return tuple(math.gcd(v, 16) for v in (*s, *(n if d == 1 else 1 for n, d in zip(shape, s))))


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


def _on_stream(s):
    """A context on stream `s` (torch, __cuda_stream__, a handle or None); the current one: none."""
    if isinstance(s, torch.cuda.Stream):
        return _SAME_STREAM if s == torch.cuda.current_stream(s.device) else torch.cuda.stream(s)
    if s is None or not torch.cuda.is_available():
        return _SAME_STREAM
    handle = s.__cuda_stream__()[1] if hasattr(s, "__cuda_stream__") else s
    return torch.cuda.stream(torch.cuda.ExternalStream(int(handle)))


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
    _, compiled, run, device, trailing = known
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
    enter = hooks.launch_enter_hook
    # (launch metadata is for the enter hook only: Triton builds none without one)
    run(
        grid[0],
        grid[1] if len(grid) > 1 else 1,
        grid[2] if len(grid) > 2 else 1,
        handle,
        compiled.function,
        compiled.packed_metadata,
        None if enter is None else compiled.launch_metadata(grid, handle, *args),
        enter,
        hooks.launch_exit_hook,
        *args,
    )
    return True


# The direct path reads Triton's compiled-kernel internals as the Triton versions it was
# tested with lay them out; under any other version every launch goes through kernel[grid].
_DIRECT_LAUNCH = triton.__version__.split(".")[:2] == ["3", "6"]


def _remember_launch(kernel, key, compiled, args, constexprs):
    """After a launch through Triton: keep what `_launch_known` needs to repeat it, unless
    Triton's dispatch does per-call work the direct path would skip (interpreter, pre-run
    hooks, global values it re-checks, asynchronous compilation), or this Triton is not one
    the direct path knows."""
    names = getattr(kernel, "arg_names", None)
    if names is None or not _DIRECT_LAUNCH:  # not a Triton JITFunction (replaced, wrapped)
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
        # (`compiled.run` is a property that re-checks its handles on every read: read once)
        _KNOWN[(id(kernel), key)] = (
            kernel,
            compiled,
            compiled.run,
            triton.runtime.driver.active.get_current_device(),
            tuple(constexprs[n] for n in trailing_names),
        )
    except TypeError:
        pass


class _Uncached:
    """A key part that keeps a launch on the plain path."""


def _ptxas_target():
    """Whether ptxas options apply (not on ROCm, which refuses them)."""
    return torch.version.hip is None


def _scalar_key(x):
    """Key of a scalar argument: Triton specializes an int on its value (1, multiples of 16,
    32 or 64 bits) and a float on nothing."""
    kind = type(x)
    return (
        x if kind is int else kind if kind is float else (kind, x) if kind is bool else _Uncached()
    )


# torch dtype -> Triton dtype for pointer tables; float8 types only where this torch has them.
_TRITON_DTYPES = {
    torch.float16: tl.float16,
    torch.bfloat16: tl.bfloat16,
    torch.float32: tl.float32,
    torch.float64: tl.float64,
    torch.int8: tl.int8,
    torch.int16: tl.int16,
    torch.int32: tl.int32,
    torch.int64: tl.int64,
    torch.uint8: tl.uint8,
    torch.bool: tl.int1,
}


for _torch_name, _tl_name in (
    ("uint16", "uint16"),
    ("uint32", "uint32"),
    ("uint64", "uint64"),
    ("float8_e4m3fn", "float8e4nv"),
    ("float8_e5m2", "float8e5"),
):
    if hasattr(torch, _torch_name):
        _TRITON_DTYPES[getattr(torch, _torch_name)] = getattr(tl, _tl_name)


def _triton_dtype(dtype):
    if dtype not in _TRITON_DTYPES:
        raise TypeError(
            f"arrays of dtype {dtype} cannot be used by the Triton translation "
            f"(supported: {', '.join(str(d) for d in _TRITON_DTYPES)})"
        )
    return _TRITON_DTYPES[dtype]


_TABLES = {}  # (kernel, list name, each array's address, shape, strides, dtype) -> its tables


def _array_tables(kernel, name, arrays, ndim):
    """The kernel arguments of a list of arrays: device tables of data pointers, shapes and
    strides (int64, ndim per array), the count, the Triton dtype, and the layout constexprs
    (`_list_layout`). Built once per distinct list (one host-to-device copy) and kept: they
    depend on nothing but the key, and building them took most of a launch."""
    key = (kernel, name) + tuple(
        (t.data_ptr(), t.shape, t.stride(), t.dtype, t.device) for t in arrays
    )
    tables = _TABLES.get(key)
    if tables is None:
        if len(_TABLES) >= 64:
            _TABLES.clear()
        tables = _TABLES[key] = _build_tables(kernel, name, arrays, ndim)
    return tables


def _build_tables(kernel, name, arrays, ndim):
    if not arrays:
        raise ValueError(f"{kernel}: `{name}` is an empty list")
    dtype, device = arrays[0].dtype, arrays[0].device
    for i, t in enumerate(arrays):
        _check_ndim(kernel, f"{name}[{i}]", t, ndim)
        if t.dtype != dtype:
            raise TypeError(
                f"{kernel}: all arrays of `{name}` must share one dtype; "
                f"{name}[0] is {dtype}, {name}[{i}] is {t.dtype}"
            )
    n = len(arrays)
    flat = (
        [t.data_ptr() for t in arrays]
        + [d for t in arrays for d in t.shape]
        + [d for t in arrays for d in t.stride()]
    )
    table = torch.tensor(flat, dtype=torch.int64).to(device)
    return (
        table[:n],
        table[n : n + n * ndim],
        table[n + n * ndim :],
        n,
        _triton_dtype(dtype),
        *_list_layout(arrays, ndim),
    )


def _list_layout(arrays, ndim):
    """What the kernel may assume of every array of a list: per dimension, whether the stride
    is exactly 1 (UNIT); the largest of 16, 8, 4, 2, 1 dividing every data address in bytes,
    then every stride, then every extent of a dimension with unit stride (DIV, 1 elsewhere)."""
    unit = tuple(all(t.stride(d) == 1 for t in arrays) for d in range(ndim))
    div = [min(math.gcd(t.data_ptr(), 16) for t in arrays)]
    div += [min(math.gcd(t.stride(d), 16) for t in arrays) for d in range(ndim)]
    div += [
        min(math.gcd(t.shape[d], 16) if t.stride(d) == 1 else 1 for t in arrays)
        for d in range(ndim)
    ]
    return unit, tuple(div)


def _row_tiles(count, tile_bytes, cached):
    """(count, bytes) where a row of `count` tiles fits in registers (16 tiles, 64 KiB) and no
    kept array (`cached`: (array, the others)) overlaps another; else (0, 0)."""
    if not 0 < count <= 16 or count * tile_bytes > 65536:
        return 0, 0
    for x, others in cached:
        lo, hi = _extent(x)
        for y in others:
            y_lo, y_hi = _extent(y)
            if lo < y_hi and y_lo < hi:
                return 0, 0
    return count, count * tile_bytes


def _extent(x):
    if x.numel() == 0:
        return 0, 0
    span = sum((n - 1) * abs(s) for n, s in zip(x.shape, x.stride())) + 1
    return x.data_ptr(), x.data_ptr() + span * x.element_size()


def _row_warps(num_warps, row_tiles):
    """A warp per 4 KiB of row kept in registers (measured), a power of two from `num_warps`
    to 16."""
    kept = max(b for _, b in row_tiles)
    warps = min(16, kept // 4096)
    return max(num_warps, 1 << warps.bit_length() - 1) if warps else num_warps


# A tf32 product's B operand gets a K-major copy from this many elements and product rows
_K_MAJOR_MIN_ELEMENTS, _K_MAJOR_MIN_ROWS = 1 << 20, 512


def _k_major_tf32(stream, b, rows):
    """`b`, a B operand of tf32 products the kernel only reads, rounded as cuTile rounds it;
    K-major where sm_90's wgmma would read it row-major (82 TFLOP/s at 4096^3, K-major 260)."""
    if (
        b.dtype is not torch.float32
        or b.dim() < 2
        or b.stride(-1) != 1
        or b.stride(-2) == 1
        or b.shape[-1] < 2
        or rows < _K_MAJOR_MIN_ROWS
        or b.numel() < _K_MAJOR_MIN_ELEMENTS
        or not _wgmma_device(b.device)
    ):
        return _tf32_operand(stream, b)
    with _on_stream(stream):
        return _k_major_copy(b)


def _tf32_operand(stream, x):
    """An operand of tf32 products the kernel only reads, rounded as cuTile rounds it (to
    nearest even; NaN and inf stay), in its layout where it is (transposed) contiguous."""
    if x.dtype is not torch.float32:
        return x
    if x.dim() >= 2 and not x.is_contiguous() and x.transpose(-1, -2).is_contiguous():
        return _tf32_operand(stream, x.transpose(-1, -2)).transpose(-1, -2)
    src = x.contiguous()
    out = torch.empty_like(src)
    with _on_stream(stream):
        _tf32_round_kernel[(triton.cdiv(src.numel(), 4096),)](src, out, src.numel(), BLOCK=4096)
    return out


@triton.jit
def _tf32_round_kernel(src, dst, n, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i, _tf32_nearest(tl.load(src + i, mask=i < n)), mask=i < n)


@triton.jit
def _tf32_nearest(x):
    bits = x.to(tl.uint32, bitcast=True)  # 10 mantissa bits, to nearest even; NaN, inf stay
    rounded = ((bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000).to(tl.float32, bitcast=True)
    return tl.where(tl.abs(x) < float("inf"), rounded, x)


def _wgmma_device(device):
    return device.type == "cuda" and torch.cuda.get_device_capability(device)[0] == 9


def _k_major_copy(b):
    """`b` (..., K, N) rounded to tf32, with K contiguous, rows padded to 32 elements (128-byte
    aligned)."""
    k, n = b.shape[-2], b.shape[-1]
    copy = torch.empty((*b.shape[:-2], n, -(-k // 32) * 32), dtype=b.dtype, device=b.device)[
        ..., :k
    ]
    if b.dim() > 3:
        copy.copy_(_tf32_operand(None, b).transpose(-1, -2))
        return copy.transpose(-1, -2)
    # a tiled transpose: torch's copy of a transposed view is 4x slower on the H200
    src, dst = (b, copy) if b.dim() == 3 else (b[None], copy[None])
    grid = (triton.cdiv(k, 64), triton.cdiv(n, 64), src.shape[0])
    _k_major_copy_kernel[grid](
        src, dst, k, n, *src.stride(), dst.stride(0), dst.stride(1), BK=64, BN=64
    )
    return copy.transpose(-1, -2)


@triton.jit
def _k_major_copy_kernel(
    src, dst, K, N, src_sb, src_sk, src_sn, dst_sb, dst_sn, BK: tl.constexpr, BN: tl.constexpr
):
    k = tl.program_id(0).to(tl.int64) * BK + tl.arange(0, BK)
    n = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    i = tl.program_id(2).to(tl.int64)
    mask = (k[:, None] < K) & (n[None, :] < N)
    x = tl.load(src + i * src_sb + k[:, None] * src_sk + n[None, :] * src_sn, mask=mask)
    tl.store(dst + i * dst_sb + n[None, :] * dst_sn + k[:, None], _tf32_nearest(x), mask=mask)


# TMA loads: their dtypes (measured: fp16 products); per device, whether it has TMA
_TMA_DTYPES = (torch.float16, torch.bfloat16)


_TMA_GPUS = {}


_TensorDescriptor = None


_SM_COUNTS = {}  # per device, its SM count (_walk_programs)


def _walk_programs(blocks, x):
    """Programs walking `blocks` blocks: at most one per SM of `x`'s GPU (3 on a CPU), no more
    than the rounds need (8192^3 fp16 matmul on the H200: 1.035x cuTile, 1.018x one per SM)."""
    sms = _SM_COUNTS.get(x.device.index) if x.is_cuda else 3
    if sms is None:
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        _SM_COUNTS[x.device.index] = sms
    rounds = -(-blocks // sms)
    return -(-blocks // rounds) if blocks > 0 else blocks


def _tma_descriptor(x, block):
    """A TMA descriptor of the 2-D `x` for `block` tiles, or None where TMA would not read what
    the kernel's pointer loads read (alignment, strides, overlapping rows, narrow tiles)."""
    if x.dtype not in _TMA_DTYPES or x.dim() != 2:
        return None
    if x.is_cuda:
        gpu = x.get_device()
        if gpu not in _TMA_GPUS:  # (once per device)
            _TMA_GPUS[gpu] = not torch.version.hip and torch.cuda.get_device_capability(gpu)[0] >= 9
        if not _TMA_GPUS[gpu]:
            return None
    elif not x.is_cpu or not _tma_target():
        return None
    rows, cols = x.shape
    row_stride, col_stride = x.stride()
    size = x.element_size()
    bm, bn = block
    if col_stride != 1 or row_stride < cols or row_stride * size % 16 or x.data_ptr() % 16:
        return None
    if not (0 < rows < 2**31 and 0 < cols < 2**31 and type(bm) is int and type(bn) is int):
        return None
    if not (0 < bm <= 256 and 0 < bn <= 256) or bm & (bm - 1) or bn & (bn - 1) or bn * size < 16:
        return None
    global _TensorDescriptor
    if _TensorDescriptor is None:  # imported once: a `from` import costs ~20 us per call
        from triton.tools.tensor_descriptor import TensorDescriptor as _TensorDescriptor
    return _TensorDescriptor(x, [rows, cols], [row_stride, 1], [bm, bn])


def _tma_target():
    """For CPU tensors (the interpreter, a compile check): TMA unless torch names a GPU without."""
    if torch.version.hip is not None:
        return False
    try:
        return torch.cuda.get_device_capability()[0] >= 9
    except (AssertionError, RuntimeError):  # a torch without CUDA, or no GPU
        return True


def _tf32_options():
    """Options for tf32 products: ROCm has tf32 only on gfx942; elsewhere the launch allows it
    and the backend multiplies in exact fp32 (gfx90a: v_mfma_f32_32x32x2f32)."""
    if torch.version.hip is None:
        return {}
    try:
        if tuple(torch.cuda.get_device_capability()) == (9, 4):
            return {}
    except (AssertionError, RuntimeError):  # no GPU to ask: Triton's own choice
        return {}
    return {"allowed_dot_input_precisions": ("ieee", "tf32")}


_LAUNCHERS = {}  # Triton kernel -> its launcher, for kernels chosen at run time


def _launcher_of(kernel):
    """The launcher of `kernel` (a translated Triton kernel, a launcher, a replace_hints one)."""
    if isinstance(kernel, triton.KernelInterface):  # (also under TRITON_INTERPRET)
        launcher = _LAUNCHERS.get(kernel)
        if launcher is None:
            scope, name = kernel.fn.__globals__, kernel.fn.__name__
            table = scope.get("_LAUNCHERS")
            launcher = table.get(kernel) if isinstance(table, dict) else None
            private = name.startswith("_")  # (as names.launcher_name spells launchers)
            launcher = launcher or scope.get(
                ("_launch_" if private else "launch_") + name.lstrip("_")
            )
        if launcher is None:
            raise TypeError(
                f"no launcher for Triton kernel `{kernel.fn.__name__}`: it was not "
                "translated from cuTile"
            )
        return launcher
    if type(kernel).__module__.startswith("cuda.tile"):
        raise TypeError(f"{kernel!r} is a cuTile kernel: translate its module to Triton too")
    if not callable(kernel):
        raise TypeError(f"{kernel!r} is not a kernel")
    return kernel


def _launch(stream, grid, kernel, args):
    """ct.launch of a kernel chosen at run time (a variable, replace_hints, a tuning result)."""
    _launcher_of(kernel)(stream, grid, *args)


def _callee_error(e):
    """The error of a function the kernel calls (Triton reports only the call): its cause."""
    inner = e
    while isinstance(inner.__cause__, triton.CompilationError):
        inner = inner.__cause__
    return type(inner)(inner.src, inner.node, inner.error_message)


def _with_hints(kernel, **hints):
    """kernel.replace_hints(**hints): the same launcher with other hints."""
    launcher = _launcher_of(kernel)
    bound = getattr(launcher, "keywords", None) or {}  # a partial: a kernel of a factory
    base = getattr(launcher, "hints", None) or bound.get("hints") or {}
    fn = functools.partial(launcher, hints=base | hints)  # (keeps the partial's arguments)
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


_L2_SCRATCH = {}


def _time_us(fn, flush_l2):
    """Per-launch microseconds: on a GPU, CUDA events until the mean is known to 1 % or 0.5 us
    (ct.tune's rule), after zeroing 4 L2 sizes with `flush_l2` (the GPU busy while the host
    launches: the events time the kernel only); elsewhere wall clock."""
    if torch.cuda.is_available():
        device = torch.cuda.current_device()
        scratch = None
        if flush_l2:
            scratch = _L2_SCRATCH.get(device)
            if scratch is None:
                size = torch.cuda.get_device_properties(device).L2_cache_size
                scratch = _L2_SCRATCH[device] = torch.empty(
                    4 * max(size, 1 << 20), dtype=torch.int8, device=device
                )
        for _ in range(3):
            fn()
        samples = []
        while True:
            events = []
            for _ in range(5):
                if scratch is not None:
                    scratch.zero_()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                events.append((start, end))
            end.synchronize()
            samples += [start.elapsed_time(end) * 1000.0 for start, end in events]
            n = len(samples)
            mean = sum(samples) / n
            margin = 1.96 * (sum((t - mean) ** 2 for t in samples) / (n - 1) / n) ** 0.5
            if margin <= max(0.01 * mean, 0.5) or n >= 1000 or mean * n > 5e6:
                return samples
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
                if not isinstance(kernel, triton.JITFunction)
                and kernel not in _LAUNCHERS
                and not hasattr(kernel, "hints")
                else kernel
            )
            launcher = _with_hints(k, **(hints_fn(config) if hints_fn else {}))
            grid, args = grid_fn(config), args_fn(config)
            with _on_stream(stream):  # the events are recorded on the launch's stream
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
