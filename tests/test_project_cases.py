"""Corpus project cases (corpus/projects/, issue 21 item 6): small packages with host code over
several modules and their own pytest tests against float64 torch references. Each project's
tests first pass on the original (the reference interpreter as cuda.tile: the project itself is
right); then the project is converted in place (a copy) and its own tests run on the converted
package with cuda.tile unimportable (TRITON_INTERPRET=1): each must pass. Tests waiting on a
fix elsewhere are marked xfail (strict: they fail the suite once they pass)."""
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tile2triton.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = ROOT / "corpus" / "projects"
WITHOUT_CUTILE = ROOT / "tools" / "gpu" / "without_cutile.py"

WAITING: dict = {}
TESTS = {
    "rowops_project": [
        "tests/test_rowops.py::test_scale_rows_with_bias[37-70]",
        "tests/test_rowops.py::test_scale_rows_with_bias[5-129]",
        "tests/test_rowops.py::test_scale_rows_without_bias_passes_a_placeholder",
        "tests/test_rowops.py::test_the_variant_with_other_hints_computes_the_same",
        "tests/test_rowops.py::test_row_sums_kernel_chosen_at_run_time[False]",
        "tests/test_rowops.py::test_row_sums_kernel_chosen_at_run_time[True]",
    ],
}


def _pytest(folder: Path, outcomes: Path, original: bool) -> str:
    env = dict(os.environ, TRITON_INTERPRET="1", T2T_OUTCOMES=str(outcomes))
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT / "src")])
    env.pop("T2T_CHECK_SPOOL", None)
    if original:
        env["T2T_CONF_INTERP"] = "1"      # cuda.tile is the reference interpreter
        argv = [sys.executable, "-m", "pytest"]
    else:
        argv = [sys.executable, str(WITHOUT_CUTILE), "-m", "pytest"]
    p = subprocess.run(argv + ["-q", "-p", "no:cacheprovider", "-p",
                               "tile2triton.verify.outcomes", "tests"],
                       cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    return p.stdout[-4000:] + p.stderr[-4000:]


def _outcomes(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        rec = json.loads(line)
        if rec.get("outcome"):
            out[rec["nodeid"]] = rec
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Per project: the original's outcomes, convert's exit status, the converted outcomes."""
    results = {}
    for name in TESTS:
        base = tmp_path_factory.mktemp(name)
        original, converted = base / "original", base / "converted"
        shutil.copytree(PROJECTS / name, original)
        shutil.copytree(PROJECTS / name, converted)
        rc = main(["convert", str(converted), "--in-place", "-q"])
        with ThreadPoolExecutor(2) as pool:     # the two runs at once
            o = pool.submit(_pytest, original, base / "original.jsonl", True)
            c = pool.submit(_pytest, converted, base / "converted.jsonl", False)
            logs = (o.result(), c.result())
        results[name] = dict(original=_outcomes(base / "original.jsonl"), convert_rc=rc,
                             converted=_outcomes(base / "converted.jsonl"), logs=logs,
                             folder=converted)
    return results


def test_each_project_converts_and_its_original_tests_pass(runs):
    for name, r in runs.items():
        assert r["convert_rc"] == 0, name
        assert sorted(r["original"]) == sorted(TESTS[name]), r["logs"][0]
        bad = {n: t["outcome"] for n, t in r["original"].items() if t["outcome"] != "passed"}
        assert not bad, (bad, r["logs"][0])
        # the converted package imports cuTile nowhere
        for f in Path(r["folder"]).rglob("*.py"):
            assert not re.search(r"^\s*(import cuda\.tile|from cuda\.tile|from cuda import "
                                 r"tile)", f.read_text(), re.M), f


def _cases():
    for name, ids in TESTS.items():
        for nodeid in ids:
            key = f"{name}::{nodeid}"
            marks = [pytest.mark.xfail(strict=True, reason=WAITING[key])] if key in WAITING \
                else []
            yield pytest.param(name, nodeid, id=key, marks=marks)


@pytest.mark.parametrize("name,nodeid", list(_cases()))
def test_converted_project_test_passes_without_cutile(runs, name, nodeid):
    got = runs[name]["converted"].get(nodeid)
    assert got is not None, runs[name]["logs"][1]
    assert got["outcome"] == "passed", (got.get("message") or "")[-2000:]
