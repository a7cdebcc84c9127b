"""On the GPU only (skipped elsewhere): the plugin inside a real CUDA graph capture, the compare
step on a 1.3 x 10^8-element output, and `check --gpus all`.

    TRITON_INTERPRET=0 python3 -m pytest -q tests/check/test_gpu_plugin.py
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch


def _gpu_and_cutile() -> bool:
    if not torch.cuda.is_available():
        return False
    try:
        import cuda.tile  # noqa: F401
        return True
    except Exception:  # noqa: BLE001
        return False


pytestmark = pytest.mark.skipif(not _gpu_and_cutile(), reason="needs a GPU and cuda.tile")

ROOT = Path(__file__).resolve().parents[2]

CAPTURE_TESTS = '''\
import torch
import cuda.tile as ct


@ct.kernel
def axpy(x, y, alpha, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    u = ct.load(y, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=u + alpha * t)


def test_graph_capture_then_replay():
    x = torch.randn(1000, device="cuda")
    y = torch.randn(1000, device="cuda")
    y0 = y.clone()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(1000, 128),), axpy, (x, y, 0.5, 128))
    torch.testing.assert_close(y, y0)          # captured, not run
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y, y0 + 1.5 * x)
'''


def _env():
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def test_plugin_keeps_graph_capture_working(tmp_path):
    (tmp_path / "test_capture.py").write_text(CAPTURE_TESTS)
    js = tmp_path / "out.json"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                        "--tile2triton-backend", "gpu", "--tile2triton-json", str(js),
                        "test_capture.py"], cwd=tmp_path, env=_env(), capture_output=True,
                       text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "StreamCaptureInvalidated" not in out
    (rec,) = json.loads(js.read_text())["launches"]
    assert rec["verdict"] == "pass" and rec.get("graph_capture") is True, rec


def test_compare_of_a_large_output_on_the_gpu_takes_seconds():
    from tile2triton.verify import verdicts as V
    n = 130_000_000
    a = torch.randn(n, device="cuda")
    b = a.clone()
    b[n - 7] += 1.0
    tol = V.resolve(V.tolerance_for(torch.float32), a)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    m = V.metrics(b, a, **tol)
    V.error_histogram(b, a)
    mask = V.mismatch_mask(b, a, **tol)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    assert m["mismatches"] == 1 and m["first_mismatch"]["index"] == [n - 7]
    assert int(mask.sum()) == 1
    assert seconds < 10, seconds


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_check_gpus_all_agrees_with_one_gpu(tmp_path):
    verdicts = {}
    for spec in ("0", "all"):
        js = tmp_path / f"{spec}.json"
        p = subprocess.run([sys.executable, "-m", "tile2triton.cli", "check",
                            str(ROOT / "corpus" / "vector_add_1d"),
                            str(ROOT / "corpus" / "softmax_rows"), "--backend", "gpu",
                            "--gpus", spec, "-q", "--json", str(js)], cwd=ROOT, env=_env(),
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        verdicts[spec] = sorted((r["case"], r.get("config"), r["verdict"])
                                for r in json.loads(js.read_text())["launches"])
    assert verdicts["0"] == verdicts["all"]


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_xdist_workers_run_on_different_gpus(tmp_path):
    (tmp_path / "test_where.py").write_text(
        "import os, torch, cuda.tile as ct\n\n"
        "@ct.kernel\n"
        "def twice(x, y, T: ct.Constant[int]):\n"
        "    t = ct.load(x, index=(ct.bid(0),), shape=(T,))\n"
        "    ct.store(y, index=(ct.bid(0),), tile=t * 2)\n\n"
        + "".join(
            f"def test_{i}():\n"
            "    x = torch.randn(300, device='cuda')\n"
            "    y = torch.empty_like(x)\n"
            "    ct.launch(torch.cuda.current_stream(), (3,), twice, (x, y, 128))\n"
            "    torch.testing.assert_close(y, 2 * x)\n"
            f"    open('gpu-{i}-' + os.environ['PYTEST_XDIST_WORKER'], 'w').write(\n"
            "        os.environ.get('CUDA_VISIBLE_DEVICES', ''))\n\n" for i in range(4)))
    js = tmp_path / "out.json"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                        "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                        "--tile2triton-backend", "gpu", "--tile2triton-json", str(js),
                        "test_where.py"], cwd=tmp_path, env=_env(), capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    seen = {f.name.rsplit("-", 1)[1]: f.read_text() for f in tmp_path.glob("gpu-*")}
    assert len(set(seen.values())) == 2, seen          # gw0 and gw1 on different GPUs
    assert [r["verdict"] for r in json.loads(js.read_text())["launches"]] == ["pass"] * 4
