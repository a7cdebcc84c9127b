"""Per launch, without a GPU: which launches of cuTile's test suite does the static artifact serve?

    python tools/static_launches.py [TEST_FILE ...] [--root DIR] [--timeout S] [--json FILE]

Runs each test file of cuTile's `test/` (default: a fixed subset, SUBSET below) through the
pytest plugin on the CPU backend (cuda.tile is the reference interpreter, `T2T_CUDA_ON_CPU=1`)
with `T2T_CHECK_PLAN_ONLY=1`: every launch is matched to the translation static mode would
check it against (`verify.intercept._plan_launch`: the file's `convert` output, a kernel's
launcher found by its qualified name), and nothing is compared, so a file takes about as long
as its tests under the interpreter. A launch counts when the original did not raise and it is
not inside `pytest.raises` (the launches of plainly passing tests, roughly: a test that fails
after its launches still counts them). `served`: static mode has a translation and launcher
for it (`planned`; `live` where the kernel was built from a string); otherwise the verdict
matching gave (translate-error, not-checked) and its reason, normalised.

cuTile's conftest implements pytest-benchmark hooks; `tools/pytest_bench_stub.py` declares
them so the suite runs without that plugin.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a fixed subset: string-built kernels, factories, test classes, rank-generic kernels,
# kernels of test functions, module-level kernels
SUBSET = ["test_array_slice.py", "test_control_flow.py", "test_reduction.py", "test_scan.py",
          "test_closure.py", "test_dict.py", "test_reshape.py", "test_full.py",
          "test_copy.py", "test_tuple.py", "test_atomic.py", "test_constant.py"]


def _normalise(message: str) -> str:
    m = re.sub(r"`[^`]*`", "`_`", message)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"/\S+", "PATH", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:140]


def run_file(test_dir: Path, name: str, out: Path, timeout: float) -> dict:
    jsonl = out / f"{Path(name).stem}.jsonl"
    jsonl.unlink(missing_ok=True)
    env = dict(os.environ, TRITON_INTERPRET="1", T2T_CUDA_ON_CPU="1", T2T_CHECK_PLAN_ONLY="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools"), str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-o", "addopts=", "-p", "pytest_bench_stub",
                            "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                            "--tile2triton-backend", "cpu", "--tile2triton-jsonl", str(jsonl),
                            name], cwd=test_dir, env=env, capture_output=True, text=True,
                           timeout=timeout)
        status = f"rc {p.returncode}"
    except subprocess.TimeoutExpired:
        status = "timeout"
    recs = [json.loads(line) for line in jsonl.read_text().splitlines()] \
        if jsonl.exists() else []
    return dict(file=name, status=status, seconds=round(time.time() - t0, 1), records=recs)


def classify(rec) -> tuple[bool, str] | None:
    """(served, why) of a record, None when it does not count."""
    if rec.get("expected_rejection") or rec.get("verdict") == "expected-rejection" \
            or rec.get("program_raised"):
        return None
    if rec.get("planned"):
        mode = (rec.get("artifact") or {}).get("mode", "?")
        return True, f"served ({mode})"
    f = (rec.get("findings") or [{}])[0]
    return False, f"{rec.get('verdict')}: {_normalise(f.get('detail', ''))}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", default=SUBSET)
    ap.add_argument("--root", default="/tmp/cutile/test")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--work", default="/tmp/t2t_static_launches")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    out = Path(a.work)
    out.mkdir(parents=True, exist_ok=True)
    total = collections.Counter()
    why = collections.Counter()
    rows = []
    for name in a.files:
        r = run_file(Path(a.root), name, out, a.timeout)
        c = collections.Counter()
        for rec in r["records"]:
            got = classify(rec)
            if got is None:
                continue
            c["served" if got[0] else "not"] += 1
            why[got[1]] += 1
        total.update(c)
        n = c["served"] + c["not"]
        rows.append(dict(file=name, status=r["status"], seconds=r["seconds"], launches=n,
                         served=c["served"]))
        print(f"{name:40s} {r['status']:8s} {r['seconds']:7.1f}s  served {c['served']:5d} "
              f"of {n:5d}", flush=True)
    n = total["served"] + total["not"]
    print(f"\nlaunches counted: {n}; served by the static artifact: {total['served']} "
          f"({100 * total['served'] / max(n, 1):.1f} %)")
    for w, k in why.most_common(30):
        print(f"{k:6d}  {w}")
    if a.json:
        Path(a.json).write_text(json.dumps(dict(files=rows, reasons=dict(why)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
