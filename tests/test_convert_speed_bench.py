"""benchmarks/convert_speed.py --tree (issue 26 item 3: `-j N` measured in a benchmark, its
figures in docs/performance.md) still runs: start-up, per-file time, then one line with wall
time and files/s for each N. A run of convert that fails with a usage or internal error stops
the benchmark instead of being timed as if it had converted the folder."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "convert_speed.py"


def _bench(tree: Path, *extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("TRITON_INTERPRET", None)
    return subprocess.run([sys.executable, str(SCRIPT), "--tree", str(tree), "--runs", "1",
                           *extra], capture_output=True, text=True, env=env, timeout=300)


def test_tree_reports_files_per_second_for_each_job_count(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    for case in ("vector_add_1d", "softmax_rows", "embedding_gather"):
        shutil.copy(ROOT / "corpus" / case / "kernel.py", tree / f"{case}.py")
    p = _bench(tree, "--jobs", "1", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith(f"{tree}: 3 files; ")
    assert any(l.startswith("start-up, `tile2triton --version`: ") for l in lines)
    assert any(l.startswith("per file, in-process (CPU): total ") for l in lines)
    per_n = [re.match(r"-j (\d+): wall ([\d.]+) s \(runs [\d., ]+\), ([\d.]+) files/s; CPU ", l)
             for l in lines if l.startswith("-j ")]
    assert [m.group(1) for m in per_n if m] == ["1", "2"], lines
    for m in per_n:
        wall, rate = float(m.group(2)), float(m.group(3))
        assert wall > 0 and abs(rate - 3 / wall) <= 0.1 + 0.05 * rate


def test_a_failing_convert_is_not_timed(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(ROOT / "corpus" / "vector_add_1d" / "kernel.py", tree / "k.py")
    p = _bench(tree, "--jobs", "-1")     # convert refuses -j -1: a usage error, exit 2
    assert p.returncode == 1, p.stdout + p.stderr
    assert "-j -1: `tile2triton convert" in p.stderr and "exited 2; no time reported" in p.stderr
    assert not [l for l in p.stdout.splitlines() if l.startswith("-j -1:")]
