"""Produce launch checks from corpus cases (docs/corpus-format.md).

For every configuration of a case (skipping `"cpu": False` ones on the CPU backend) and every
seed, the case's `make_args` builds the inputs, the outputs are poisoned with NaN (or the
minimum integer), as the corpus tests do, and the case's host function `launch(stream, **args)`
runs with `ct.launch`
intercepted: each launch is snapshotted into a job, then runs on the original (the interpreter
on the CPU, cuTile on the GPU). Afterwards the original's outputs are compared with the case's
float64 reference, so a wrong corpus case is never trusted as the side to match.

    python -m tile2triton.verify.corpus_driver --spool DIR --backend cpu --seeds 0,1 CASE_DIR...
"""
from __future__ import annotations

import argparse
import itertools
import sys
import traceback
from pathlib import Path


def _tensors(v):
    """The tensors of an output: itself, or those of a list/tuple of tensors (grouped GEMM)."""
    import torch
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in _tensors(x)]
    return []


def _clone(v):
    import torch
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, (list, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def _to_cpu(v):
    import torch
    if isinstance(v, torch.Tensor):
        return v.cpu()
    if isinstance(v, (list, tuple)):
        return type(v)(_to_cpu(x) for x in v)
    return v


def _poison_outputs(args, outputs) -> None:
    from .snapshot import fill_poison
    for name in outputs:
        for t in _tensors(args.get(name)):
            fill_poison(t)


def _compare_output(actual, expected, spec) -> dict:
    from .corpus import compare, tolerance
    acts, exps = _tensors(actual), _tensors(expected)
    if len(acts) != len(exps):
        return dict(ok=False, reason=f"{len(acts)} arrays, reference has {len(exps)}",
                    max_abs=float("inf"), mismatches=-1)
    merged = dict(ok=True, max_abs=0.0, max_rel=0.0, norm_rel=0.0, mismatches=0)
    for a, e in zip(acts, exps):
        m = compare(a, e, **tolerance(spec, a.dtype))
        merged["ok"] &= m["ok"]
        merged["mismatches"] += m["mismatches"]
        for k in ("max_abs", "max_rel", "norm_rel"):
            merged[k] = max(merged[k], m.get(k, 0.0))
        if "first_mismatch" in m and "first_mismatch" not in merged:
            merged["first_mismatch"] = m["first_mismatch"]
        if "reason" in m:
            merged["reason"] = m["reason"]
    return merged


def _failure(e, what) -> dict:
    """original-failed, or skipped when the reference interpreter lacks a feature."""
    if type(e).__name__ == "InterpreterUnsupported":
        return dict(verdict="skipped", findings=[dict(
            kind="skipped", detail=f"the reference interpreter does not support this kernel "
            f"({e}); check it on the GPU backend")])
    return dict(verdict="original-failed", findings=[dict(
        kind="original-failed", detail=f"{what}: {type(e).__name__}: {e}",
        traceback=traceback.format_exc()[-3000:])])


def tolerance_overrides(spec) -> dict:
    return {str(k): dict(v) for k, v in (getattr(spec, "TOLERANCE", {}) or {}).items()}


def produce_case(folder, seeds, backend: str, sink, configs=None) -> None:
    """Run one corpus case's host function under interception; jobs and notes go to `sink`."""
    import torch

    from .corpus import CorpusCase, config_id, load_module, load_package
    from .intercept import Recorder, install

    folder = Path(folder).resolve()
    name = folder.name
    package = CorpusCase(name, folder).package
    spec = load_module(folder / "case.py", f"t2t_check_case_{name}")
    device = "cpu" if backend == "cpu" else "cuda"
    recorder = Recorder(sink, backend, source="corpus")
    undo = install(recorder)
    try:
        try:
            if package is not None:
                # under its own name, its folder on sys.path (the launch records sys.path):
                # the worker imports the kernel's module by that name, relative imports and all
                if str(folder) not in sys.path:
                    sys.path.insert(0, str(folder))
                mod = load_package(package, package.name, interpreter=backend == "cpu")
            elif backend == "cpu":
                from .. import interp
                mod = interp.load_module_with_interpreter(folder / "kernel.py")
            else:
                mod = load_module(folder / "kernel.py", f"t2t_check_kernel_{name}")
        except Exception as e:  # noqa: BLE001
            sink.note(dict(type="launch", case=name, kernel=None, **_failure(
                e, f"{'the package' if package else 'kernel.py'} does not import")))
            return
        stream = None if backend == "cpu" else torch.cuda.current_stream()
        for ci, config in enumerate(spec.CASES):
            if configs is not None and ci not in configs:
                continue
            cid = config_id(config)
            if backend == "cpu" and config.get("cpu", True) is False:
                sink.note(dict(type="launch", case=name, config=cid, kernel=None,
                               verdict="skipped", findings=[dict(
                                   kind="skipped", detail="configuration marked cpu=False "
                                   "(bfloat16 arithmetic, or too large for the interpreters)")]))
                continue
            for seed in seeds:
                gen = torch.Generator().manual_seed(seed)
                args = spec.make_args(config, gen, device)
                inputs = {k: _clone(v) for k, v in args.items()}
                _poison_outputs(args, spec.OUTPUTS)   # the corpus convention (corpus-format.md)
                recorder.context = dict(case=name, config=cid, seed=seed,
                                        tolerance=tolerance_overrides(spec))
                recorder.declared_outputs = {t.data_ptr() for o in spec.OUTPUTS
                                             for t in _tensors(args.get(o))}
                recorder._count = itertools.count()
                if backend == "cpu":
                    from .. import interp
                    interp.seed_undetermined(seed)
                try:
                    mod.launch(stream, **args)
                    if backend != "cpu":
                        torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    sink.note(dict(type="launch", case=name, config=cid, seed=seed,
                                   kernel=None, **_failure(e, "the case's launch() raised")))
                    continue
                ref = spec.reference({k: _to_cpu(v) for k, v in inputs.items()})
                outs = {o: _compare_output(args[o], ref[o], spec) for o in spec.OUTPUTS}
                sink.note(dict(type="reference", case=name, config=cid, seed=seed,
                               ok=all(m["ok"] for m in outs.values()), outputs=outs))
    finally:
        recorder.enabled = False
        undo()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="produce launch checks from corpus cases")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--spool", required=True)
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--seeds", default="0")
    a = ap.parse_args(argv)
    from .intercept import SpoolSink
    seeds = [int(s) for s in a.seeds.split(",") if s != ""]
    for case in a.cases:
        sink = SpoolSink(a.spool, prefix=f"c{Path(case).name}")
        sink.note(dict(type="case-start", case=Path(case).name))
        try:
            produce_case(case, seeds, a.backend, sink)
        except Exception as e:  # noqa: BLE001
            sink.note(dict(type="launch", case=Path(case).name, kernel=None, verdict="error",
                           findings=[dict(kind="error", detail=f"corpus driver failed: "
                                          f"{type(e).__name__}: {e}",
                                          traceback=traceback.format_exc()[-3000:])]))
        sink.note(dict(type="case-done", case=Path(case).name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
