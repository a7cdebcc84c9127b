"""`tile2triton run --cpu`: a GPU program's host code runs on the CPU, its kernels in Triton's
interpreter.

cuTile programs put their tensors on `device="cuda"`, launch on
`torch.cuda.current_stream()` and check `x.is_cuda`; none of that works without a GPU. Here:

- a `device` naming CUDA is the CPU, `.cuda()` / `.to("cuda")` stay on the CPU, streams are
  None and synchronizing does nothing (`verify.cuda_on_cpu`, which `check` uses for cuTile's
  tests);
- tensors report `is_cuda` True in the program's own code, and their real device while a
  launch runs (the launchers and Triton's interpreter see CPU tensors);
- `torch.cuda.get_device_capability()` is (8, 0) and `get_device_properties()` names a device
  of 3 SMs: a conservative GPU, so programs take their paths for Ampere (no float8, looser
  tf32 tolerances), which the interpreter can run; `torch.cuda.is_available()` stays False.
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
    _STATE.update(on=True, inside=inside)


@contextlib.contextmanager
def real_devices():
    """While a launch runs: tensors tell their real device."""
    inside = _STATE["inside"]
    inside[0] += 1
    try:
        yield
    finally:
        inside[0] -= 1
