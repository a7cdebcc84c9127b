"""Produce launch checks from corpus cases (docs/corpus-format.md).

For every configuration of a case (skipping `"cpu": False` ones on the CPU backend) and every
seed, the case's `make_args` builds the inputs, the outputs are filled with seeded random finite
values (a correct kernel overwrites them; a translation that accumulates into them, or leaves
them, shows), and the case's host function `launch(stream, **args)` runs with `ct.launch`
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


def _fill_outputs(args: dict, outputs, seed: int) -> None:
    import torch
    gen = torch.Generator().manual_seed(10_000 + seed)
    for name in outputs:
        t = args.get(name)
        if not isinstance(t, torch.Tensor):
            continue
        if t.dtype.is_floating_point:
            v = (torch.rand(t.shape, generator=gen, dtype=torch.float32) * 16 - 8).to(t.dtype)
        elif t.dtype == torch.bool:
            v = torch.rand(t.shape, generator=gen) < 0.5
        else:
            v = torch.randint(-100, 100, t.shape, generator=gen).to(t.dtype)
        t.copy_(v.to(t.device))


def tolerance_overrides(spec) -> dict:
    return {str(k): dict(v) for k, v in (getattr(spec, "TOLERANCE", {}) or {}).items()}


def produce_case(folder, seeds, backend: str, sink, configs=None) -> None:
    """Run one corpus case's host function under interception; jobs and notes go to `sink`."""
    import torch

    from .corpus import clone_args, compare, config_id, load_module, tolerance
    from .intercept import Recorder, install

    folder = Path(folder).resolve()
    name = folder.name
    spec = load_module(folder / "case.py", f"t2t_check_case_{name}")
    device = "cpu" if backend == "cpu" else "cuda"
    recorder = Recorder(sink, backend, source="corpus")
    undo = install(recorder)
    try:
        try:
            if backend == "cpu":
                from .. import interp
                mod = interp.load_module_with_interpreter(folder / "kernel.py")
            else:
                mod = load_module(folder / "kernel.py", f"t2t_check_kernel_{name}")
        except Exception as e:  # noqa: BLE001
            sink.note(dict(type="launch", case=name, kernel=None, verdict="original-failed",
                           findings=[dict(kind="original-failed",
                                          detail=f"kernel.py does not import: "
                                          f"{type(e).__name__}: {e}")]))
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
                inputs = clone_args(args)
                _fill_outputs(args, spec.OUTPUTS, seed)
                recorder.context = dict(case=name, config=cid, seed=seed,
                                        tolerance=tolerance_overrides(spec))
                recorder.declared_outputs = {args[o].data_ptr() for o in spec.OUTPUTS
                                             if isinstance(args.get(o), torch.Tensor)}
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
                                   kernel=None, verdict="original-failed", findings=[dict(
                                       kind="original-failed",
                                       detail=f"the case's launch() raised "
                                       f"{type(e).__name__}: {e}",
                                       traceback=traceback.format_exc()[-3000:])]))
                    continue
                ref = spec.reference({k: (v.cpu() if isinstance(v, torch.Tensor) else v)
                                      for k, v in inputs.items()})
                outs = {}
                for o in spec.OUTPUTS:
                    m = compare(args[o], ref[o], **tolerance(spec, args[o].dtype))
                    outs[o] = {k: v for k, v in m.items() if k != "reason"}
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
