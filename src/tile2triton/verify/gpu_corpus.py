"""GPU evidence for the corpus: real cuTile vs its Triton translation vs a float64 reference.

    python -m tile2triton.verify.gpu_corpus [--corpus corpus] [--seeds 3] [--json out.json]
                                            [--bench] [--cases a,b]

Each case runs in its own worker process (a CUDA error such as an illegal address poisons a
context; a fresh process keeps later verdicts clean). For every config and seed, the same inputs
are given to the original kernel (cuda.tile) and to the translation (the committed expected.py,
or a package case's expected/<package>/), outputs are poisoned with NaN first, and both are
compared with the case's float64 reference and with each other. `--bench` also times both
sides on the cases' BENCH configs and reports translation speed as a ratio (cuTile time / Triton
time; > 1 means the translation is faster).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import traceback
from pathlib import Path


def _compare_all(results_a, results_b, compare):
    """Per output: metrics of a vs reference, b vs reference, and a vs b."""
    out = {}
    for name, (a, ref, tol) in results_a.items():
        b = results_b[name][0]
        out[name] = dict(original=compare(a, ref, **tol), translation=compare(b, ref, **tol),
                         agreement=compare(b, a, **tol))
    return out


def run_one_case(corpus: Path, name: str, seeds: int, bench: bool) -> dict:
    import torch

    from .corpus import CorpusCase, clone_args, compare, config_id, output_triples, poison, to_cpu
    case = CorpusCase(name, corpus / name)   # a kernel.py case, or a package case
    spec = case.spec()
    original = case.load_original(f"t2t_orig_{name}")
    translated = case.load_translation(f"t2t_trans_{name}")   # the committed goldens
    stream = torch.cuda.current_stream()
    records = []
    for config in spec.CASES:
        for seed in range(seeds):
            rec = dict(case=name, config=config_id(config), seed=seed)
            try:
                gen = torch.Generator().manual_seed(seed)
                args = spec.make_args(config, gen, "cuda")
                inputs = clone_args(args)
                a_args, b_args = clone_args(args), clone_args(args)
                poison(a_args, spec.OUTPUTS)
                poison(b_args, spec.OUTPUTS)
                original.launch(stream, **a_args)
                torch.cuda.synchronize()
                translated.launch(stream, **b_args)
                torch.cuda.synchronize()
                ref = spec.reference({k: to_cpu(v) for k, v in inputs.items()})
                ra = output_triples(spec, a_args, ref)
                rb = output_triples(spec, b_args, ref)
                rec["outputs"] = _compare_all(ra, rb, compare)
                rec["ok"] = all(m["original"]["ok"] and m["translation"]["ok"]
                                for m in rec["outputs"].values())
            except Exception as e:  # noqa: BLE001 - recorded as the verdict
                rec["ok"] = False
                rec["error"] = f"{type(e).__name__}: {e}"
                rec["traceback"] = traceback.format_exc()[-2000:]
            records.append(rec)
    result = dict(case=name, records=records)
    if bench and hasattr(spec, "BENCH"):
        result["bench"] = _bench(spec, original, translated, stream)
    return result


def _bench(spec, original, translated, stream) -> list:
    import torch
    import triton.testing

    from .corpus import clone_args
    rows = []
    for config in spec.BENCH:
        gen = torch.Generator().manual_seed(123)
        args = spec.make_args(config, gen, "cuda")
        a_args, b_args = clone_args(args), clone_args(args)
        t_orig = triton.testing.do_bench(lambda: original.launch(stream, **a_args),
                                         warmup=100, rep=500, return_mode="median")
        t_tr = triton.testing.do_bench(lambda: translated.launch(stream, **b_args),
                                       warmup=100, rep=500, return_mode="median")
        t_orig2 = triton.testing.do_bench(lambda: original.launch(stream, **a_args),
                                          warmup=50, rep=300, return_mode="median")
        rows.append(dict(config={k: str(v) for k, v in config.items()}, cutile_ms=t_orig,
                         cutile_ms_repeat=t_orig2, triton_ms=t_tr,
                         speed_ratio=min(t_orig, t_orig2) / t_tr))
    return rows


def worker_main(argv) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--case", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--result", required=True)
    a = ap.parse_args(argv)
    res = run_one_case(Path(a.corpus), a.case, a.seeds, a.bench)
    Path(a.result).write_text(json.dumps(res, indent=1, default=str))
    return 0


def _fmt(x):
    return f"{x:.2e}" if isinstance(x, float) else str(x)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cases", default="")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--json", default="gpu_corpus.json")
    ap.add_argument("--markdown", default="gpu_corpus.md")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=4, help="worker processes at once (compiles "
                    "dominate, so several workers share the one GPU well)")
    a = ap.parse_args(argv)
    corpus = Path(a.corpus)
    from .case_layout import entry, golden_of, is_case
    names = [n for n in a.cases.split(",") if n] or sorted(
        p.name for p in corpus.iterdir() if is_case(p) and golden_of(p, entry(p)).exists())
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda n: _run_worker(corpus, n, a), names))
    for res in results:
        name = res["case"]
        ok = all(r.get("ok") for r in res["records"])
        print(f"{'PASS' if ok else 'FAIL'} {name} ({res['seconds']:.1f}s)", flush=True)
        if not ok:
            for r in res["records"]:
                if not r.get("ok"):
                    print("   ", json.dumps({k: v for k, v in r.items() if k != "traceback"},
                                            default=str)[:1500], flush=True)
    Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    Path(a.markdown).write_text(markdown_table(results))
    print(markdown_table(results))
    return 0 if all(r.get("ok") for res in results for r in res["records"]) else 1


def _run_worker(corpus, name, a) -> dict:
    t0 = time.time()
    tmp = Path(f"/tmp/t2t_gpu_{name}.json")
    cmd = [sys.executable, "-m", "tile2triton.verify.gpu_corpus", "--worker",
           "--corpus", str(corpus), "--case", name, "--seeds", str(a.seeds),
           "--result", str(tmp)] + (["--bench"] if a.bench else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
        if p.returncode == 0 and tmp.exists():
            res = json.loads(tmp.read_text())
        else:
            res = dict(case=name, records=[dict(case=name, ok=False,
                       error=f"worker exit {p.returncode}: {p.stderr[-1500:]}")])
    except subprocess.TimeoutExpired:
        res = dict(case=name, records=[dict(case=name, ok=False, error="timeout")])
    res["seconds"] = time.time() - t0
    return res


def markdown_table(results) -> str:
    lines = ["| case | configs x seeds | verdict | max abs err cuTile vs ref | "
             "max abs err Triton vs ref | max abs diff Triton vs cuTile |",
             "| --- | --- | --- | --- | --- | --- |"]
    for res in results:
        recs = res["records"]
        ok = all(r.get("ok") for r in recs)
        mo = mt = ma = 0.0
        for r in recs:
            for m in r.get("outputs", {}).values():
                mo = max(mo, m["original"]["max_abs"])
                mt = max(mt, m["translation"]["max_abs"])
                ma = max(ma, m["agreement"]["max_abs"])
        lines.append(f"| {res['case']} | {len(recs)} | {'pass' if ok else 'FAIL'} | "
                     f"{_fmt(mo)} | {_fmt(mt)} | {_fmt(ma)} |")
    bench = [(res["case"], b) for res in results for b in res.get("bench", [])]
    if bench:
        lines += ["", "| case | config | cuTile ms | Triton ms | speed ratio (cuTile/Triton) |",
                  "| --- | --- | --- | --- | --- |"]
        for case, b in bench:
            cfg = ", ".join(f"{k}={v}" for k, v in b["config"].items())
            lines.append(f"| {case} | {cfg} | {b['cutile_ms']:.4f} | {b['triton_ms']:.4f} | "
                         f"{b['speed_ratio']:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(worker_main(sys.argv[2:]))
    sys.exit(main())
