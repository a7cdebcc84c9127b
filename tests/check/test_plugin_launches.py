"""The pytest plugin on launches a checker must judge honestly (CPU backend): a launch inside
pytest.raises that cuTile rejects, a launch made in a child Python process, launches recorded
during a CUDA graph capture (simulated: the capture state is the only GPU part), and the
plugin under pytest-xdist."""
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tile2triton.verify import intercept
from tile2triton.verify.pytest_plugin import pin_xdist_gpu

ROOT = Path(__file__).resolve().parents[2]

KERNELS = '''\
import cuda.tile as ct


@ct.kernel
def scale_add(x, y, alpha, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t * alpha + 1.0)


@ct.kernel
def store_float_into_int(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=t)      # cuTile refuses the implicit float -> int cast
'''

CHILD = '''\
import torch
import cuda.tile as ct
import kernels

x = torch.randn(300)
y = torch.empty(300)
ct.launch(None, (ct.cdiv(300, 64),), kernels.scale_add, (x, y, 0.5, 64))
assert torch.allclose(y, x * 0.5 + 1.0)
print("child ok")
'''

TESTS = '''\
import os
import subprocess
import sys

import pytest
import torch
import cuda.tile as ct

import kernels


def test_plain_launch():
    x = torch.randn(130)
    y = torch.empty(130)
    ct.launch(None, (ct.cdiv(130, 32),), kernels.scale_add, (x, y, 2.0, 32))
    torch.testing.assert_close(y, x * 2.0 + 1.0)


def test_expects_rejection():
    x = torch.randn(16)
    y = torch.zeros(16, dtype=torch.int32)
    with pytest.raises(Exception, match="implicitly cast"):
        ct.launch(None, (1,), kernels.store_float_into_int, (x, y, 16))


def test_child_process():
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, os.path.join(here, "child.py")], cwd=here,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "child ok" in p.stdout


def test_rejected():
    x = torch.randn(16)
    y = torch.zeros(16, dtype=torch.int32)
    ct.launch(None, (1,), kernels.store_float_into_int, (x, y, 16))
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def test_rejection_child_process_and_xdist(tmp_path):
    """One pytest run under xdist (one interpreter start-up for all of these): a plain launch,
    a rejection the test expects, a launch from a child process, and a rejection the test does
    not expect (which fails the test, with an honest verdict)."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "child.py").write_text(CHILD)
    (tmp_path / "test_user.py").write_text(TESTS)
    js, jl = tmp_path / "out.json", tmp_path / "out.jsonl"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-n", "2", "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                        "--tile2triton-backend", "cpu", "--tile2triton-json", str(js),
                        "--tile2triton-jsonl", str(jl), "test_user.py"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out  # test_rejected fails, as it does without the plugin
    assert "1 failed, 3 passed" in out and "FAILED test_user.py::test_rejected" in out
    launches = json.loads(js.read_text())["launches"]   # gathered from both xdist workers
    by_test = {r["test"].split("::")[-1]: r for r in launches}
    assert sorted(by_test) == ["test_child_process", "test_expects_rejection",
                               "test_plain_launch", "test_rejected"], launches
    assert by_test["test_plain_launch"]["verdict"] == "pass"
    rej = by_test["test_expects_rejection"]
    assert rej["verdict"] == "expected-rejection"
    assert "implicitly cast" in rej["findings"][0]["detail"]
    child = by_test["test_child_process"]
    assert child["verdict"] == "pass" and child["kernel"] == "scale_add"
    assert child.get("subprocess") is True
    # the original really failed (in the test, and again in the checker): that verdict is honest
    assert by_test["test_rejected"]["verdict"] in ("original-failed", "translate-error")
    streamed = sorted(json.loads(line)["verdict"] for line in jl.read_text().splitlines())
    assert streamed == sorted(["expected-rejection", "pass", "pass",
                               by_test["test_rejected"]["verdict"]])


# -- CUDA graph capture, simulated --------------------------------------------------------------

class _Rec:
    """A recorder stand-in: what matters is when `record` is called."""

    def __init__(self):
        self.backend = "gpu"
        self.enabled = True
        self.context = dict(test="t::capture")
        self.deferred = []
        self.rejection_depth = 0
        self.sink = types.SimpleNamespace()
        self.calls = []

    def record(self, kernel, grid, args):
        assert not state["capturing"], "a launch was recorded during capture"
        self.calls.append((kernel, grid, args, dict(self.context)))


state = {"capturing": False}


def test_launches_during_capture_are_deferred_until_capture_ends(monkeypatch):
    import torch
    monkeypatch.setattr(intercept, "capturing", lambda: state["capturing"])
    ran = []
    module = types.SimpleNamespace(launch=lambda stream, grid, kernel, args: ran.append(kernel))
    rec = _Rec()
    undo = intercept.wrap_launch(module, rec)
    # capture_end of torch's CUDAGraph, with the CUDA part replaced: the hook must flush
    monkeypatch.setattr(torch.cuda.CUDAGraph, "capture_end", lambda self: None)
    intercept.hook_graph_capture()
    try:
        state["capturing"] = True
        module.launch(None, (3,), "k_in_graph", ("a",))
        module.launch(None, (4,), "k_in_graph_2", ("b",))
        assert ran == ["k_in_graph", "k_in_graph_2"]       # the capture itself goes on
        assert rec.calls == [] and len(rec.deferred) == 2
        state["capturing"] = False
        torch.cuda.CUDAGraph.capture_end(None)
        assert [c[0] for c in rec.calls] == ["k_in_graph", "k_in_graph_2"]
        assert all(c[3]["graph_capture"] is True and c[3]["test"] == "t::capture"
                   for c in rec.calls)
        assert rec.deferred == [] and rec.context == dict(test="t::capture")
        module.launch(None, (1,), "k_eager", ("c",))         # after capture: eager as usual
        assert rec.calls[-1][0] == "k_eager" and "graph_capture" not in rec.calls[-1][3]
    finally:
        undo()
        state["capturing"] = False
        if rec in intercept._ACTIVE:
            intercept._ACTIVE.remove(rec)


def test_a_launch_rejected_during_capture_is_not_checked_later(monkeypatch):
    monkeypatch.setattr(intercept, "capturing", lambda: state["capturing"])

    def launch(stream, grid, kernel, args):
        raise RuntimeError("List argument in CUDAGraph is not supported")
    module = types.SimpleNamespace(launch=launch)
    rec = _Rec()
    notes = []
    rec.sink = types.SimpleNamespace(note=lambda r: notes.append(r) or "note.json")
    rec.jobs, rec.source = [], "pytest"
    undo = intercept.wrap_launch(module, rec)
    try:
        state["capturing"] = True
        rec.rejection_depth = 1                      # inside pytest.raises
        with pytest.raises(RuntimeError):
            module.launch(None, (1,), "list_kernel", ([1],))
        state["capturing"] = False
        intercept.flush_deferred(rec)
        assert rec.calls == [] and rec.deferred == []
        (note,) = notes
        assert note["verdict"] == "expected-rejection" and note["graph_capture"] is True
        assert "not supported" in note["findings"][0]["detail"]
    finally:
        undo()
        state["capturing"] = False
        if rec in intercept._ACTIVE:
            intercept._ACTIVE.remove(rec)


def test_deferred_launches_flush_before_the_next_eager_launch(monkeypatch):
    monkeypatch.setattr(intercept, "capturing", lambda: state["capturing"])
    module = types.SimpleNamespace(launch=lambda stream, grid, kernel, args: None)
    rec = _Rec()
    undo = intercept.wrap_launch(module, rec)
    try:
        state["capturing"] = True
        module.launch(None, (1,), "captured", ())
        state["capturing"] = False
        module.launch(None, (1,), "eager", ())
        assert [c[0] for c in rec.calls] == ["captured", "eager"]
    finally:
        undo()
        state["capturing"] = False
        if rec in intercept._ACTIVE:
            intercept._ACTIVE.remove(rec)


# -- several GPUs ---------------------------------------------------------------------------------

def test_xdist_workers_get_one_gpu_each():
    env = {"PYTEST_XDIST_WORKER": "gw3"}
    assert pin_xdist_gpu(env, count=2) == "1" and env["CUDA_VISIBLE_DEVICES"] == "1"
    env = {"PYTEST_XDIST_WORKER": "gw2", "CUDA_VISIBLE_DEVICES": "4,5,6"}
    assert pin_xdist_gpu(env) == "6" and env["CUDA_VISIBLE_DEVICES"] == "6"
    env = {"PYTEST_XDIST_WORKER": "gw1"}
    assert pin_xdist_gpu(env, count=1) is None and "CUDA_VISIBLE_DEVICES" not in env
    assert pin_xdist_gpu({}, count=8) is None                       # not an xdist worker
    env = {"PYTEST_XDIST_WORKER": "gw1", "T2T_XDIST_GPUS": "0"}
    assert pin_xdist_gpu(env, count=8) is None


def test_check_gpus_gives_worker_slots_the_gpus_in_turn(tmp_path):
    from tile2triton.verify.supervisor import Supervisor, _WorkerProc, gpu_list
    (tmp_path / "envprobe.py").write_text(
        "import json, os, sys\n"
        "open(os.path.join(os.environ['OUT'], 'slot-' + sys.argv[1]), 'w').write(\n"
        "    os.environ.get('CUDA_VISIBLE_DEVICES', ''))\n"
        "print(json.dumps({'type': 'ready'}), flush=True)\n"
        "sys.stdin.read()\n")
    sup = Supervisor(backend="gpu", workers=3, gpus=["0", "1"], sanitize=False,
                     env={"PYTHONPATH": str(tmp_path), "OUT": str(tmp_path)})
    try:
        procs = [_WorkerProc(sup, slot, module="envprobe", args=[str(slot)])
                 for slot in range(3)]
        for w in procs:
            w.stop()
    finally:
        sup.close()
    assert [(tmp_path / f"slot-{i}").read_text() for i in range(3)] == ["0", "1", "0"]
    assert gpu_list("2,3") == ["2", "3"] and gpu_list(None) is None
