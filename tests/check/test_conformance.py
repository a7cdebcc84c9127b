"""The conformance runner on a tiny fake cutile-python checkout (CPU backend: the plain run uses
the reference interpreter as cuda.tile, the plugin run checks each launch against Triton's
interpreter). The real suite runs on the H200: see docs/conformance.md."""
import json
import os
from pathlib import Path

import pytest

from tile2triton.verify import conformance as C

ROOT = Path(__file__).resolve().parents[2]

KERNEL_TESTS = '''\
import cuda.tile as ct
import pytest
import torch


@ct.kernel
def add_one(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t + 1)


def test_add():
    x = torch.randn(100)
    y = torch.empty(100)
    ct.launch(None, (ct.cdiv(100, 32),), add_one, (x, y, 32))
    torch.testing.assert_close(y, x + 1)


def test_fails_plainly():
    x = torch.randn(70)
    y = torch.empty(70)
    ct.launch(None, (ct.cdiv(70, 32),), add_one, (x, y, 32))
    assert float(y.sum()) == 12345.0


def test_skipped():
    pytest.skip("needs something else")
'''

SLOW_TESTS = '''\
import time


def test_quick():
    assert 2 + 2 == 4


def test_hangs():
    time.sleep(600)
'''


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "cutile-python"
    (root / "test").mkdir(parents=True)
    (root / "test" / "test_kernels.py").write_text(KERNEL_TESTS)
    # upstream's ini names a plugin option that may not be installed, and an env entry
    (root / "pytest.ini").write_text("[pytest]\naddopts = --benchmark-sort=name\n"
                                     "env =\n    T2T_FAKE_ENV=1\n")
    return root


def test_runner_report_resume_and_merge(checkout, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                               if p]))
    state, md = tmp_path / "state.json", tmp_path / "conformance.md"
    common = ["--json", str(state), "--out", str(md), "--backend", "cpu", "-q",
              "--upstream-rev", "fake-rev-1"]
    assert C.main([str(checkout), "--files", "test_kernels.py", "--file-timeout", "240"]
                  + common) == 0
    data = json.loads(state.read_text())
    k = data["files"]["test_kernels.py"]
    assert k["plain"]["status"] == "done" and k["plugin"]["status"] == "done"
    outcomes = {n.split("::")[-1]: t["outcome"] for n, t in k["plain"]["tests"].items()}
    assert outcomes == {"test_add": "passed", "test_fails_plainly": "failed",
                        "test_skipped": "skipped"}
    launches = k["plugin"]["launches"]
    assert sorted(x["test"].split("::")[-1] for x in launches) == ["test_add",
                                                                   "test_fails_plainly"]
    assert {x["verdict"] for x in launches} == {"pass"}
    assert data["meta"]["upstream"]["rev"] == "fake-rev-1"

    assert len(data["meta"]["commands"]) == 1
    text = md.read_text()
    assert "| test_kernels.py | 3 | 1 | 1 | 2 pass |" in text
    # one launch of a plainly passing test, and it passes
    assert "**1 of 1 (100.0 %)**" in text
    assert "fake-rev-1" in text and "tree sha256" in text

    # nothing left to do: an invocation runs nothing and rewrites the same report
    before = json.loads(state.read_text())["files"]
    assert C.main([str(checkout), "--files", "test_kernels.py"] + common) == 0
    assert json.loads(state.read_text())["files"] == before

    # merging a second state file (another machine's partial run) into one report
    other = C.new_state(dict(backend="cpu"))
    other["files"]["test_other.py"] = {"plain": dict(
        status="done", seconds=1.0, finished="2099-01-01T00:00:00+00:00",
        tests={"test/test_other.py::test_x": dict(outcome="passed")}, launches=[]),
        "plugin": dict(status="done", seconds=2.0, finished="2099-01-01T00:00:00+00:00",
                       tests={"test/test_other.py::test_x": dict(outcome="failed",
                                                                   message="boom")},
                       launches=[dict(verdict="drift", test="test/test_other.py::test_x",
                                      findings=[dict(kind="drift", detail="3 of 70 element(s) "
                                                     "of `y` differ beyond atol=2.0e-04")])])}
    part = tmp_path / "other.json"
    part.write_text(json.dumps(other))
    merged = tmp_path / "merged.md"
    assert C.main(["--merge", str(state), str(part), "--out", str(merged), "-q"]) == 0
    text = merged.read_text()
    assert "test_other.py" in text and "test_kernels.py" in text
    assert "### drift (1)" in text and "N of N element(s) of `y` differ" in text
    assert "**1 of 2 (50.0 %)**" in text
    assert "## Tests that pass plainly but not with the plugin" in text


def test_cut_runs_are_kept_and_continued(tmp_path):
    """A run that reaches its limit keeps what it finished; the same command again continues it
    without the tests it finished or hung in. (The file imports nothing of cuda.tile, so the
    `gpu` backend, which adds nothing to a plain run, keeps its start-up short here.)"""
    root = tmp_path / "checkout"
    (root / "test").mkdir(parents=True)
    (root / "test" / "test_slow.py").write_text(SLOW_TESTS)
    state, md = tmp_path / "state.json", tmp_path / "conformance.md"
    argv = [str(root), "--phases", "plain", "--backend", "gpu", "--file-timeout", "12",
            "--json", str(state), "--out", str(md), "-q"]
    assert C.main(argv) == 0
    slow = json.loads(state.read_text())["files"]["test_slow.py"]["plain"]
    assert slow["status"] == "timeout"
    outcomes = {n.split("::")[-1]: t["outcome"] for n, t in slow["tests"].items()}
    assert outcomes == {"test_quick": "passed", "test_hangs": "timeout"}
    assert "test_slow.py [plain]: timeout" in md.read_text()
    assert C.main(argv) == 0
    slow = json.loads(state.read_text())["files"]["test_slow.py"]["plain"]
    assert slow["status"] == "done" and slow["runs"] == 2 and len(slow["tests"]) == 2
    assert "| test_slow.py (done / not run) | 2 | 1 | 0 |" in md.read_text()


def test_cause_groups_numbers_and_paths():
    a = dict(verdict="drift", findings=[dict(kind="drift", detail="3 of 70 element(s) of "
                                             "`y` differ in /tmp/x/abc/test_q.py")])
    b = dict(verdict="drift", findings=[dict(kind="drift", detail="12 of 700 element(s) of "
                                             "`y` differ in /home/u/test_q.py")])
    assert C._cause(a) == C._cause(b)
    c = dict(verdict="not-checked", reason="launched inside a CUDA graph capture")
    assert C._cause(c) == "launched inside a CUDA graph capture"


def test_a_run_that_cannot_start_says_why():
    tail = ("ImportError while loading conftest '/x/test/conftest.py'.\n"
            "conftest.py:14: in <module>\n    import benchmark_tuning\n"
            "E   ModuleNotFoundError: No module named 'cuda.tile.tune'\n")
    state = C.new_state(dict(backend="gpu"))
    state["files"]["test_cat.py"] = {"plain": dict(status="crashed", seconds=3.0, tests={},
                                                   launches=[], log_tail=tail)}
    text = C.render(state)
    assert ("- test_cat.py [plain]: crashed after 3 s: ModuleNotFoundError: No module named "
            "'cuda.tile.tune'") in text


def test_usage_errors(tmp_path):
    with pytest.raises(SystemExit):
        C.main([])
    with pytest.raises(SystemExit):
        C.main([str(tmp_path)])                  # no test files there


def test_longest_first_orders_by_earlier_runs():
    earlier = {"files": {
        "test_a.py": {"plain": {"seconds": 5.0}, "plugin": {"seconds": 40.0}},
        "test_b.py": {"plugin": {"seconds": 300.0}},
        "test_c.py": {"plugin": {"seconds": 12.0}},
    }}
    later = {"files": {"test_c.py": {"plugin": {"seconds": 90.0}}}}
    durations = C.durations_of([earlier, later])
    names = ["test_a.py", "test_b.py", "test_c.py", "test_new.py"]
    assert C.longest_first(names, durations, ["plugin"]) == \
        ["test_b.py", "test_c.py", "test_a.py", "test_new.py"]
    # Both phases count when both are run; with no earlier state the order is kept.
    assert C.longest_first(names, durations, ["plain", "plugin"])[2] == "test_a.py"
    assert C.longest_first(names, {}, ["plugin"]) == names


def test_merged_report_names_the_commit_of_each_phase():
    """A report merged from several runs names the tile2triton commits its plain and plugin
    results were made at (the merged report of runs 21-28 named only the first state's)."""
    def state(commit, updated, phase, finished):
        st = C.new_state(dict(tile2triton_commit=commit, updated=updated))
        st["files"]["test_a.py"] = {phase: dict(status="done", seconds=1.0, finished=finished,
                                                tests={}, launches=[])}
        return st
    old = state("aaa1111", "2026-01-01T00:00:00+00:00", "plain", "2026-01-01T00:00:00+00:00")
    new = state("bbb2222", "2026-02-01T00:00:00+00:00", "plugin", "2026-02-01T00:00:00+00:00")
    later = state("ccc3333", "2026-03-01T00:00:00+00:00", "plugin", "2026-03-01T00:00:00+00:00")
    later["files"]["test_b.py"] = later["files"].pop("test_a.py")
    merged = C.merge_states([old, new, later])
    text = C.render(merged)
    assert "plain runs at `aaa1111`; plugin runs at `bbb2222`, `ccc3333`" in text
    assert "last updated: 2026-03-01T00:00:00+00:00" in text
