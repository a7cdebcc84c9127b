"""Calibrate the reference interpreter against real cuTile on the GPU.

    python -m tile2triton.verify.calibrate_interp [--corpus corpus] [--seeds 2] [--json F]

For every corpus case, config and seed, the same inputs (CUDA tensors) go to the kernel run by
real cuTile and to the same kernel run by `tile2triton.interp`; both are compared with the
case's float64 reference and with each other. The interpreter is the CPU-side oracle of
`tile2triton check`, so it is only trustworthy where it agrees with cuTile here. Each case runs
in its own process: the interpreter replaces `cuda.tile` while a module is imported.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import traceback
from pathlib import Path


def run_case(corpus: Path, name: str, seeds: int) -> dict:
    import torch

    from .. import interp
    from .corpus import (clone_args, compare, config_id, load_module, output_triples, poison,
                         to_cpu)
    from .corpus import CorpusCase
    case = CorpusCase(name, corpus / name)
    spec = load_module(case.folder / "case.py", f"t2t_cal_case_{name}")
    original = case.load_original(f"t2t_cal_orig_{name}")
    interpreted = case.load_original(f"t2t_cal_interp_{name}", interpreter=True)
    stream = torch.cuda.current_stream()
    records = []
    for config in spec.CASES:
        for seed in range(seeds):
            rec = dict(case=name, config=config_id(config), seed=seed)
            try:
                args = spec.make_args(config, torch.Generator().manual_seed(seed), "cuda")
                inputs = clone_args(args)
                a, b = clone_args(args), clone_args(args)
                poison(a, spec.OUTPUTS)
                poison(b, spec.OUTPUTS)
                original.launch(stream, **a)
                torch.cuda.synchronize()
                interpreted.launch(None, **b)
                torch.cuda.synchronize()
                ref = spec.reference({k: to_cpu(v) for k, v in inputs.items()})
                ra, rb = output_triples(spec, a, ref), output_triples(spec, b, ref)
                rec["outputs"] = {}
                for out, (x, e, tol) in ra.items():
                    y = rb[out][0]
                    rec["outputs"][out] = dict(
                        cutile=compare(x, e, **tol), interpreter=compare(y, e, **tol),
                        agreement=compare(y, x, **{k: 2 * v for k, v in tol.items()}))
                rec["ok"] = all(m["cutile"]["ok"] and m["interpreter"]["ok"]
                                and m["agreement"]["ok"] for m in rec["outputs"].values())
            except interp.InterpreterUnsupported as e:
                rec["ok"], rec["skipped"] = True, f"interpreter: {e}"
            except Exception as e:  # noqa: BLE001 - recorded
                rec["ok"], rec["error"] = False, f"{type(e).__name__}: {e}"
                rec["traceback"] = traceback.format_exc()[-1500:]
            records.append(rec)
    return dict(case=name, records=records)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--json", default="calibration.json")
    ap.add_argument("--worker", default=None)
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args(argv)
    corpus = Path(a.corpus)
    if a.worker:
        print(json.dumps(run_case(corpus, a.worker, a.seeds), default=str))
        return 0
    from .case_layout import is_case
    names = sorted(p.name for p in corpus.iterdir() if is_case(p))
    from concurrent.futures import ThreadPoolExecutor

    def one(name):
        cmd = [sys.executable, "-m", "tile2triton.verify.calibrate_interp", "--corpus",
               str(corpus), "--seeds", str(a.seeds), "--worker", name]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            return json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else \
                dict(case=name, records=[dict(ok=False, error=p.stderr[-1500:])])
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError) as e:
            return dict(case=name, records=[dict(ok=False, error=repr(e))])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one, names))
    Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    print("| case | launches | verdict | max abs err interpreter vs ref | "
          "max abs diff interpreter vs cuTile |\n| --- | --- | --- | --- | --- |")
    all_ok = True
    for res in results:
        recs = res["records"]
        ok = all(r.get("ok") for r in recs)
        all_ok &= ok
        skipped = [r for r in recs if r.get("skipped")]
        mi = max((m["interpreter"]["max_abs"] for r in recs
                  for m in r.get("outputs", {}).values()), default=0.0)
        md = max((m["agreement"]["max_abs"] for r in recs
                  for m in r.get("outputs", {}).values()), default=0.0)
        verdict = "pass" if ok and not skipped else ("skipped: " + skipped[0]["skipped"][:60]
                                                     if ok else "FAIL")
        print(f"| {res['case']} | {len(recs)} | {verdict} | {mi:.2e} | {md:.2e} |")
        if not ok:
            for r in recs:
                if not r.get("ok"):
                    print("   ", json.dumps({k: v for k, v in r.items() if k != "traceback"},
                                            default=str)[:1200])
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
