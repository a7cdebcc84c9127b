"""`ct.tune`: choose a kernel configuration by timing each, here over the Triton translations."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

T = TypeVar("T")

__all__ = ["exhaustive_search", "TuningResult", "Measurement"]


@dataclass(frozen=True)
class Measurement(Generic[T]):
    """A configuration and its time per launch."""
    config: T
    mean_us: float
    num_samples: int
    error_margin_us: float     # half of the 95 % confidence interval


@dataclass(frozen=True, kw_only=True)
class TuningResult(Generic[T]):
    best: Measurement
    successes: Sequence[Measurement]
    failures: Sequence[tuple]          # (config, exception type, message)

    def summary(self, *, top_k=10, bottom_k=2) -> str:
        ranked = sorted(self.successes, key=lambda m: m.mean_us)
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        shown = ranked if len(ranked) <= top_k + bottom_k else ranked[:top_k] + ranked[-bottom_k:]
        lines += [f"{m.mean_us:12.1f} us +- {m.error_margin_us:.1f}  {m.config}" for m in shown]
        lines += [f"failed: {c} ({t.__name__}: {msg})" for c, t, msg in self.failures]
        return "\n".join(lines)


def _samples_us(run, device, flush_l2: bool) -> list:
    """Times of single launches in microseconds: on a GPU between CUDA events after 3 warm-up
    launches (the first compiles), 20 samples, L2 flushed before each when asked; on the CPU
    (Triton's interpreter, where times only rank configs roughly) one timed launch after the
    compiling one."""
    import torch
    if device is None or device.type != "cuda":
        run()
        start = time.perf_counter()
        run()
        return [(time.perf_counter() - start) * 1e6]
    for _ in range(3):
        run()
    scratch = None
    if flush_l2:
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
        scratch = torch.empty(2 * l2 // 4 + 1, dtype=torch.int32, device=device)
    out = []
    for _ in range(20):
        if scratch is not None:
            scratch.zero_()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        run()
        end.record()
        end.synchronize()
        out.append(begin.elapsed_time(end) * 1e3)
    return out


def _device_of(args):
    for a in args:
        d = getattr(a, "device", None)
        if d is not None and hasattr(d, "type"):
            return d
    return None


def exhaustive_search(search_space: Sequence[T], stream, grid_fn, kernel, args_fn,
                      hints_fn=None, *, quiet: bool = False,
                      single_run_timeout_sec: float | None = None,
                      flush_l2: bool = True) -> TuningResult[T]:
    """Launch every configuration of `search_space` (through ct.launch, so through the
    translations), time it, and return the fastest. `kernel` is a kernel or a function of the
    configuration giving one; `hints_fn(config)` gives hints for `kernel.replace_hints`. A
    configuration that raises is a failure, as in cuTile. `single_run_timeout_sec` is
    accepted and not enforced."""
    from . import launching as runtime
    successes, failures = [], []
    for config in search_space:
        try:
            k = kernel if isinstance(kernel, runtime.Kernel) else kernel(config)
            if hints_fn is not None:
                k = k.replace_hints(**hints_fn(config))
            grid, args = grid_fn(config), tuple(args_fn(config))
            samples = _samples_us(lambda: runtime.launch(stream, grid, k, args),
                                  _device_of(args), flush_l2)
        except Exception as e:  # noqa: BLE001 - a failing configuration is reported
            failures.append((config, type(e), str(e)))
            continue
        mean = sum(samples) / len(samples)
        var = sum((s - mean) ** 2 for s in samples) / max(len(samples) - 1, 1)
        successes.append(Measurement(config, mean, len(samples),
                                     1.96 * (var / len(samples)) ** 0.5))
    if not successes:
        raise ValueError("every configuration failed; the first: "
                         f"{failures[0][1].__name__}: {failures[0][2]}" if failures
                         else "the search space is empty")
    result = TuningResult(best=min(successes, key=lambda m: m.mean_us), successes=successes,
                          failures=failures)
    if not quiet:
        print(result.summary())
    return result


