"""GPU: the performance suite. Every benchmark in benchmarks/suite/ (a corpus-format folder:
kernel.py in cuTile, case.py with BENCH sizes), timed by `tile2triton bench` against real cuTile,
each in its own process (a crash or hang costs one benchmark, not the run), within a time budget;
then launcher host overhead, then, with what time is left, launch-option sweeps.

    source .gpu/activate.sh && python3 benchmarks/run_suite.py --out $OUT/perf.json --md $OUT/perf.md --budget-s 480

Progress goes to stdout as it happens; the markdown table is printed last. Writes the JSON
records (environment, every configuration, sweeps, launch overhead) and the markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "suite"
sys.path.insert(0, str(ROOT / "src"))

# Most telling first, so that a short budget still measures what the fixes are about.
ORDER = ["matmul", "batched_matmul", "grouped_gemm", "persistent_matmul", "layernorm_fwd",
         "softmax", "rmsnorm", "vector_add", "transpose", "attention_fwd", "layernorm_bwd"]

# Launch options measured beside the launcher's own choice. The memory-bound kernels are swept
# at every BENCH configuration (a warp rule has to hold for fp16 and fp32 rows alike); the
# matrix kernels, whose sweeps cost more, at their first configuration only.
SWEEPS = {
    "layernorm_fwd": "num_warps=1,2,4,8,16",
    "softmax": "num_warps=2,4,8,16",
    "rmsnorm": "num_warps=2,4,8,16",
    "vector_add": "num_warps=1,2,4,8",
    "transpose": "num_warps=2,4,8",
    "fft": "num_warps=4,8,16;ptx_options=-O1,-O3",
    "persistent_matmul": "num_warps=4,8;num_stages=2,3,4",
    "batched_matmul": "num_warps=4,8;num_stages=3,4",
    "attention_fwd": "num_warps=4,8;num_stages=2,3",
}
# benchmarks/upstream: the translation's own best launch options beside the launcher's choice
# (and num_ctas: Triton's cluster launch against one CTA per program)
UPSTREAM_SWEEPS = {
    # (run 55: 8 warps beat 4 at cuTile's tuned choice; here at every configuration, first,
    # as a warp rule for decode-shaped products waits on it)
    "decode_attention": "num_warps=4,8;num_stages=2,3",
    # num_ctas at every configuration: does a 2-CTA cluster pay at any tile shape?
    "gemm_hints": "num_ctas=1,2",
    "persistent_gemm": "num_warps=4,8;num_stages=3,4",
    "decode_combine": "num_warps=1,2,4",
    # latency=10 loads in a persistent loop: does a deeper pipeline pay?
    "rmsnorm_persistent": "num_warps=4,8,16;num_stages=1,2,3",
}
SWEEP_ALL_CONFIGS = {"layernorm_fwd", "softmax", "rmsnorm", "vector_add", "transpose", "fft",
                     "gemm_hints", "decode_attention"}


def run(cmd, timeout, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=ROOT)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err, time.monotonic() - t0


def bench_cmd(case, json_path, budget, variants=None, all_configs=False):
    cmd = [sys.executable, "-c", "import sys; from tile2triton.cli import main; "
           "sys.exit(main(sys.argv[1:]))", "bench", str(SUITE / case), "--json",
           str(json_path), "--budget-s", str(max(budget - 20, 5)), "-q"]
    if variants:
        cmd += ["--variants", variants, "--rounds", "9"]
        if not all_configs:
            cmd += ["--first-config"]
    if CPU_SMOKE:
        cmd += ["--allow-cpu", "--all-configs", "--rounds", "2"]
    elif ROUNDS and not variants:
        cmd += ["--rounds", str(ROUNDS)]
    return cmd


CPU_SMOKE = False
ROUNDS = None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="perf.json")
    ap.add_argument("--md", default="perf.md")
    ap.add_argument("--budget-s", type=float, default=480.0)
    ap.add_argument("--cases", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--suite", default=None, help="folder of benchmark cases (default "
                    "benchmarks/suite; benchmarks/upstream: kernels in the styles of cuTile op "
                    "libraries)")
    ap.add_argument("--rounds", type=int, default=None, help="timing rounds per configuration "
                    "(default: bench's 15)")
    ap.add_argument("--no-overhead", action="store_true", help="skip the launcher overhead step")
    ap.add_argument("--no-sweeps", action="store_true")
    ap.add_argument("--case-timeout", type=float, default=150.0)
    ap.add_argument("--cpu-smoke", action="store_true", help="exercise this script on a CPU "
                    "(interpreter vs TRITON_INTERPRET=1 on the small CASES; times meaningless)")
    a = ap.parse_args(argv)
    global CPU_SMOKE, SUITE, ROUNDS
    CPU_SMOKE = a.cpu_smoke
    if a.suite:
        SUITE = Path(a.suite).resolve()
    ROUNDS = a.rounds
    from tile2triton.verify.bench import environment, markdown_table, variants_table

    t0 = time.monotonic()
    left = lambda: a.budget_s - (time.monotonic() - t0)  # noqa: E731
    available = sorted(p.name for p in SUITE.iterdir() if (p / "case.py").is_file())
    names = [n for n in a.cases.split(",") if n] or (
        [n for n in ORDER if n in available] + [n for n in available if n not in ORDER])
    tmp = Path(tempfile.mkdtemp(prefix="t2t_suite_"))
    env = dict(os.environ)
    if a.cpu_smoke:
        env["TRITON_INTERPRET"] = "1"
    result = dict(environment=environment(), command=" ".join(sys.argv), records=[],
                  sweeps=[], launch_overhead=None, failures=[])

    def save():
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(result, indent=1, default=str))
        md = ["# tile2triton performance suite", "",
              f"Environment: {json.dumps(result['environment'])}", "",
              markdown_table(result["records"])]
        if result["launch_overhead"]:
            md += ["", "Launch overhead (host µs per call):", "",
                   "| kernel | launch | µs per call | × raw Triton | × ct.launch |",
                   "| --- | --- | ---: | ---: | ---: |"]
            md += [f"| {kernel} | {k} | {v['us']:.1f} | {v['vs_raw']:.2f} | "
                   f"{v['vs_ct_launch']:.2f} |" if v.get("vs_ct_launch") else
                   f"| {kernel} | {k} | {v['us']:.1f} | {v['vs_raw']:.2f} | — |"
                   for kernel, rows in result["launch_overhead"].items()
                   for k, v in rows.items()]
        if result["sweeps"]:
            md += ["", "Launch-option sweeps (translation only; ratio = cuTile / variant):", "",
                   variants_table(result["sweeps"])]
        if result["failures"]:
            md += ["", "Failures:", ""] + [f"- {f}" for f in result["failures"]]
        Path(a.md).write_text("\n".join(md) + "\n")

    print(f"suite: {len(names)} benchmarks, budget {a.budget_s:.0f} s", flush=True)
    for name in names:
        if left() < 30:
            result["failures"].append(f"{name}: not run (time budget spent)")
            print(f"[{time.monotonic() - t0:5.0f}s] {name}: skipped (budget)", flush=True)
            continue
        out = tmp / f"{name}.json"
        limit = min(a.case_timeout, left() - 10)
        rc, so, se, dt = run(bench_cmd(name, out, limit), limit, env)
        recs = json.loads(out.read_text())["records"] if out.exists() else []
        if rc is None:
            result["failures"].append(f"{name}: timed out after {dt:.0f} s")
        elif not recs:
            result["failures"].append(f"{name}: exit {rc}: {se.strip()[-800:]}")
        result["records"] += recs
        for r in recs:
            if r.get("status") == "ok":
                print(f"[{time.monotonic() - t0:5.0f}s] {name} [{r['config']}]: cuTile "
                      f"{r['cutile_ms']:.4f} ms, translation {r['translation_ms']:.4f} ms, ratio "
                      f"{r['ratio']:.3f}, {r['translation_rate']:.1f} {r['unit']}", flush=True)
            else:
                print(f"[{time.monotonic() - t0:5.0f}s] {name} [{r.get('config')}]: "
                      f"{r.get('status')}: {str(r.get('detail'))[:300]}", flush=True)
        if not recs:
            print(f"[{time.monotonic() - t0:5.0f}s] {name}: FAILED (exit {rc}) "
                  f"{se.strip()[-600:]}", flush=True)
        save()

    if left() > 30 and not a.cpu_smoke and not a.no_overhead:
        out = tmp / "overhead.json"
        rc, so, se, dt = run([sys.executable, str(ROOT / "benchmarks" / "launch_overhead.py"),
                              "--json", str(out)], min(120, left() - 5), env)
        print(so[-2000:], flush=True)
        if out.exists():
            result["launch_overhead"] = json.loads(out.read_text())
        else:
            result["failures"].append(f"launch_overhead: exit {rc}: {se.strip()[-800:]}")
        save()

    if not a.no_sweeps:
        for name, spec in ({**SWEEPS, **UPSTREAM_SWEEPS} if SUITE.name == "upstream"
                           else SWEEPS).items():
            if name not in names or left() < 40:
                continue
            out = tmp / f"{name}.sweep.json"
            limit = min(a.case_timeout, left() - 10)
            rc, so, se, dt = run(bench_cmd(name, out, limit, variants=spec,
                                             all_configs=name in SWEEP_ALL_CONFIGS), limit, env)
            recs = json.loads(out.read_text())["records"] if out.exists() else []
            result["sweeps"] += recs
            for r in recs:
                for v in r.get("variants", []):
                    print(f"[{time.monotonic() - t0:5.0f}s] sweep {name} [{r['config']}] "
                          f"{v['options']}: {v.get('ms', float('nan')):.4f} ms, ratio "
                          f"{v.get('ratio', float('nan')):.3f}", flush=True)
            if not recs:
                result["failures"].append(f"sweep {name}: exit {rc}: {se.strip()[-500:]}")
            save()

    save()
    print()
    print(Path(a.md).read_text())
    print(f"suite done in {time.monotonic() - t0:.0f} s; wrote {a.out} and {a.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
