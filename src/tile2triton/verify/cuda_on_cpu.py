"""Run GPU-only test code on the CPU: `device="cuda"` becomes the CPU.

cuTile's own tests allocate every tensor with `device="cuda"` and launch on
`torch.cuda.current_stream()`. On the CPU backend (reference interpreter against the translation
under TRITON_INTERPRET=1) there is no CUDA device, so without this not one upstream test runs on
a machine without a GPU. With `T2T_CUDA_ON_CPU=1` the conformance runner's pytest runs (and the
checker plugin, when the variable is set) enable it before conftest.py files are imported:

- a torch function mode rewrites a `device` argument naming CUDA to the CPU, turns
  `tensor.cuda()` into the tensor itself and `tensor.to("cuda")` into `tensor.to("cpu")`;
- `torch.cuda.current_stream()` / `default_stream()` give None (the interpreter's launch takes
  any stream) and `torch.cuda.synchronize()` does nothing.

`torch.cuda.is_available()` stays False, so tests that skip without a GPU still skip. Anything
else CUDA-specific (graphs, events, memory statistics) fails as before: those tests fail plainly
on the CPU backend too, which the conformance report keeps out of its figures.
"""
from __future__ import annotations

import os

ENV = "T2T_CUDA_ON_CPU"
_STATE: dict = {}


def _cpu(d):
    import torch
    if isinstance(d, str) and d.startswith("cuda"):
        return "cpu"
    if isinstance(d, torch.device) and d.type == "cuda":
        return torch.device("cpu")
    return d


def enable() -> None:
    """Enable the redirection for the rest of the process (idempotent)."""
    if "mode" in _STATE:
        return
    import torch
    from torch.overrides import TorchFunctionMode

    class CudaOnCpu(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if "device" in kwargs:
                kwargs["device"] = _cpu(kwargs["device"])
            name = getattr(func, "__name__", "")
            if name == "cuda" and args:
                return args[0]
            if name == "to":
                args = tuple(_cpu(a) for a in args)
            return func(*args, **kwargs)

    mode = CudaOnCpu()
    mode.__enter__()
    _STATE["mode"] = mode
    torch.cuda.current_stream = lambda *a, **k: None
    torch.cuda.default_stream = lambda *a, **k: None
    torch.cuda.synchronize = lambda *a, **k: None


def enable_from_env() -> bool:
    if os.environ.get(ENV) == "1":
        enable()
        return True
    return False
