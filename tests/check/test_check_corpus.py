"""CI's CPU path of `tile2triton check` over the whole corpus: every kernel, freshly translated,
against the reference interpreter (one seed here; docs/checking.md records 10 seeds)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_whole_corpus_passes_on_cpu(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = tmp_path / "corpus.json"
    p = subprocess.run([sys.executable, "-m", "tile2triton.cli", "check", "corpus/",
                        "--backend", "cpu", "--seeds", "1", "--json", str(out), "-q"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, (p.stdout + p.stderr)[-4000:]
    data = json.loads(out.read_text())
    launches = data["launches"]
    # seed 0 of every configuration: the original (on the cuTile interpreter) agrees with the
    # case's float64 reference, and the translation with the original. tests/test_corpus.py and
    # tests/interp/test_interp_corpus.py check seed 1 of each against the reference.
    refs = data["references"]
    assert refs and all(r["ok"] for r in refs), [r for r in refs if not r["ok"]]
    assert {r["seed"] for r in refs} == {0}
    verdicts = {r["verdict"] for r in launches}
    assert verdicts <= {"pass", "skipped"}, verdicts
    checked = {r["case"].split("[")[0] for r in launches if r["verdict"] == "pass"}
    cases = {p.name for p in (ROOT / "corpus").iterdir() if (p / "case.py").exists()}
    # every case has at least one configuration the CPU path checks
    assert checked == cases, sorted(cases - checked)
    assert {r["case"] for r in refs} == cases
