"""`tile2triton check --gpus`: one GPU against every GPU of the host, on the whole corpus.

    python3 benchmarks/check_gpus.py [--out results.json] [--seeds N]

Runs `tile2triton check corpus/ --backend gpu` twice, with `--gpus 0` and with `--gpus all`
(two worker processes per GPU either way), and prints the wall time of each and whether every
launch got the same verdict. Needs a machine with two GPUs or more.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(spec: str, seeds: int) -> tuple[float, list, int]:
    out = Path(tempfile.mkdtemp(prefix="t2t_gpus_")) / "check.json"
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tile2triton.cli", "check", str(ROOT / "corpus"),
                        "--backend", "gpu", "--gpus", spec, "--seeds", str(seeds), "-q",
                        "--json", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    launches = json.loads(out.read_text())["launches"] if out.exists() else []
    key = sorted((r["case"], str(r.get("config")), str(r.get("seed")), r.get("launch_index") or 0,
                  r["verdict"]) for r in launches)
    return seconds, key, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--seeds", type=int, default=1)
    a = ap.parse_args()
    import torch
    n = torch.cuda.device_count()
    if n < 2:
        print(f"needs two GPUs or more; this host has {n}", file=sys.stderr)
        return 2
    one = run("0", a.seeds)
    every = run("all", a.seeds)
    same = one[1] == every[1]
    res = dict(gpus=n, launches=len(one[1]), one_gpu_s=round(one[0], 1),
               all_gpus_s=round(every[0], 1), speedup=round(one[0] / every[0], 2),
               same_verdicts=same, returncodes=[one[2], every[2]],
               verdicts={v: sum(1 for k in one[1] if k[-1] == v) for v in {k[-1] for k in one[1]}})
    print(json.dumps(res, indent=1))
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
