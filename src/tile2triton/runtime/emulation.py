"""`tile2triton run --cpu`: a GPU program's host code runs on the CPU, its kernels in Triton's
interpreter.

cuTile programs put their tensors on `device="cuda"`, launch on
`torch.cuda.current_stream()` and check `x.is_cuda`; none of that works without a GPU. Here:

- a `device` naming CUDA is the CPU, `.cuda()` / `.to("cuda")` stay on the CPU, streams are
  None and synchronizing does nothing (`verify.cuda_on_cpu`, which `check` uses for cuTile's
  tests); `torch.cuda.Event` times on the CPU's clock (`CpuEvent`);
- kernels run in Triton's interpreter with its bfloat16 arithmetic, bfloat16 conversions and
  dot products computed as the GPU computes them (`verify.interpreter_numerics`), and with
  `check`'s fixes (overflow checks off, float8 conversions as the GPU rounds);
- tensors report `is_cuda` True in the program's own code, and their real device while a
  launch runs (the launchers and Triton's interpreter see CPU tensors);
- `torch.cuda.get_device_capability()` is (8, 0) and `get_device_properties()` names a device
  of 3 SMs: a conservative GPU, so programs take their paths for Ampere (no float8, looser
  tf32 tolerances), which the interpreter can run; `torch.cuda.is_available()` stays False;
- the program's own torch calls on 16-bit floats that a GPU library computes in fp32 (the
  products `@`, `matmul`, `mm`, `bmm`, `linear`; `layer_norm`, `rms_norm`, `softmax`,
  `log_softmax`; `scaled_dot_product_attention`) compute in float64 and round to the 16-bit
  result once (`_GpuLibraryNumerics`; autograd goes through the same casts). Some of torch's
  CPU kernels keep 16-bit intermediates and land further from the exact result than the
  kernel being checked, while a program's tolerances are set for the GPU's fp32 arithmetic:
  cuTile's samples/MatMul.py and BatchMatMul.py check an fp16 product at 1e-5 absolute, which
  torch's CPU fp16 product misses on a few elements of 262,144 where the exactly rounded
  product and the kernel agree; samples/LayerNorm.py's bfloat16 dW from torch's CPU
  layer_norm backward is 0.025 off the exact gradient, the kernel's 0.009. Attention that
  a program pins to cuDNN or flash attention (`sdpa_kernel`), which a CPU does not have, runs
  as the math backend computes it.
"""
from __future__ import annotations

import contextlib
import types

CAPABILITY = (8, 0)
SM_COUNT = 3
_STATE: dict = {}


def enabled() -> bool:
    return "on" in _STATE


def enable() -> None:
    """For the rest of the process (idempotent)."""
    if enabled():
        return
    import torch

    from ..verify import cuda_on_cpu
    cuda_on_cpu.enable()
    real_is_cuda = torch.Tensor.is_cuda
    inside = [0]

    def is_cuda(self):
        return real_is_cuda.__get__(self) if inside[0] else True

    torch.Tensor.is_cuda = property(is_cuda)
    torch.cuda.get_device_capability = lambda device=None: CAPABILITY
    props = types.SimpleNamespace(name="CPU (tile2triton run --cpu)", major=CAPABILITY[0],
                                  minor=CAPABILITY[1], multi_processor_count=SM_COUNT,
                                  total_memory=8 << 30, L2_cache_size=4 << 20, warp_size=32)
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.device_count = lambda: 1
    torch.cuda.current_device = lambda: 0
    torch.cuda.Event = CpuEvent
    _interpreter_as_on_the_gpu()
    numerics = _GpuLibraryNumerics()
    numerics.__enter__()
    _STATE.update(on=True, inside=inside, numerics=numerics)


class CpuEvent:
    """`torch.cuda.Event` on the CPU: `record` reads the clock (launches are synchronous
    here), `elapsed_time` is in milliseconds as CUDA's."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False,
                 external=False):
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream=None):
        import time
        self._time = time.perf_counter()

    def elapsed_time(self, end_event):
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1e3

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True


def _interpreter_as_on_the_gpu() -> None:
    """The fixes to Triton's interpreter that `check` makes on the CPU (its overflow checks
    off, `verify.interpreter_compat`: numpy 2.3 scalars, float8 conversions as the GPU rounds
    them), and bfloat16 arithmetic and dot products
    computed as the GPU computes them (`verify.interpreter_numerics`)."""
    from ..verify import interpreter_compat, interpreter_numerics, worker
    worker._interpreter_without_overflow_checks()
    interpreter_compat.enable_all()
    interpreter_numerics.enable()


# what the program's own torch calls compute wide (16-bit floats only): products, and the
# normalizations whose CPU kernels keep 16-bit intermediates (bfloat16 layer_norm's backward
# is 2.5 times further from the exact gradient than samples/LayerNorm.py's kernel)
_WIDENED = ("matmul", "mm", "bmm", "__matmul__", "__rmatmul__", "linear", "layer_norm",
            "rms_norm", "softmax", "log_softmax")


def _gpu_library_numerics_mode():
    import torch
    from torch.overrides import TorchFunctionMode

    narrow = (torch.float16, torch.bfloat16)

    def widened(args, kwargs):
        """The 16-bit float tensors of a call in float64 (their values exactly), and the
        16-bit type of the result; None when no argument is a 16-bit float tensor."""
        found = [a.dtype for a in (*args, *kwargs.values())
                 if isinstance(a, torch.Tensor) and a.dtype in narrow]
        if not found:
            return None

        def wide(a):
            return a.double() if isinstance(a, torch.Tensor) and a.dtype in narrow else a
        return ([wide(a) for a in args], {k: wide(v) for k, v in kwargs.items()}, found[0])

    class GpuLibraryNumerics(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            if name == "scaled_dot_product_attention":
                from torch.nn.attention import SDPBackend, sdpa_kernel
                w = widened(args, kwargs)
                with sdpa_kernel(SDPBackend.MATH):
                    if w is None:
                        return func(*args, **kwargs)
                    return func(*w[0], **w[1]).to(w[2])
            if name in _WIDENED and not _STATE["inside"][0]:
                w = widened(args, kwargs)
                if w is not None:
                    out = kwargs.get("out")
                    if isinstance(out, torch.Tensor):
                        # `torch.mm(a, b, out=c)`: the wide result goes into the caller's
                        # tensor (widened, `out` was a float64 copy that nothing kept)
                        w[1].pop("out")
                        out.copy_(func(*w[0], **w[1]))
                        return out
                    return func(*w[0], **w[1]).to(w[2])
            return func(*args, **kwargs)

    return GpuLibraryNumerics


def _GpuLibraryNumerics():   # a class made on first use (torch is imported late)
    return _gpu_library_numerics_mode()()


@contextlib.contextmanager
def real_devices():
    """While a launch runs: tensors tell their real device."""
    inside = _STATE["inside"]
    inside[0] += 1
    try:
        yield
    finally:
        inside[0] -= 1
