"""`ct.tune` on the interpreter: exhaustive_search runs every config (once, timed by the wall
clock: the interpreter is for correctness, not speed) and keeps the fastest, so host code that
tunes before launching runs unchanged."""
from __future__ import annotations

import time
import types
from dataclasses import dataclass, field


@dataclass
class Measurement:
    config: object
    mean_us: float
    num_samples: int
    error_margin_us: float


@dataclass
class TuningResult:
    best: Measurement
    successes: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def summary(self, *, top_k=10, bottom_k=2) -> str:
        ranked = sorted(self.successes, key=lambda m: m.mean_us)
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        lines += [f"{m.mean_us:10.1f} us  {m.config}" for m in ranked[:top_k]]
        return "\n".join(lines)


def exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, *,
                      quiet=False, single_run_timeout_sec=None, flush_l2=True):
    from ._runtime import kernel as kernel_type, launch
    successes, failures = [], []
    for config in search_space:
        try:
            k = kernel if isinstance(kernel, kernel_type) else kernel(config)
            if hints_fn is not None:
                k = k.replace_hints(**hints_fn(config))
            grid, args = grid_fn(config), args_fn(config)
            t0 = time.perf_counter()
            launch(stream, grid, k, args)
            us = (time.perf_counter() - t0) * 1e6
        except Exception as e:  # a failing config is reported, as cuTile does
            failures.append((config, type(e), str(e)))
            continue
        successes.append(Measurement(config, us, 1, 0.0))
    if not successes:
        raise RuntimeError(f"ct.tune.exhaustive_search: every config failed: {failures[:1]}")
    result = TuningResult(min(successes, key=lambda m: m.mean_us), successes, failures)
    if not quiet:
        print(result.summary())
    return result


tune = types.ModuleType("cuda.tile.tune", __doc__)
tune.exhaustive_search = exhaustive_search
tune.TuningResult = TuningResult
tune.Measurement = Measurement
