"""The plugin's --tile2triton-json / --tile2triton-html reports are written by every session:
when no test launched a kernel (upstream's test_compiler_options.py only builds kernels, and
wrote no report in GPU run 46), and when pytest stops on an internal error during collection
(a conftest naming a hook that no installed plugin defines, as upstream's conftest does without
pytest-benchmark)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ONLY_BUILDS = '''\
import pytest
import cuda.tile as ct


def _body(x, y):
    ct.store(y, 0, tile=ct.load(x, 0, shape=64))


@pytest.mark.parametrize("warps", [4, 8])
def test_builds_a_kernel(warps):
    ct.kernel(_body, num_worker_warps=warps)


def test_fails_without_launching():
    assert ct.kernel(_body) is None
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _pytest(folder, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                           "--tile2triton-backend", "cpu", *args],
                          cwd=folder, env=_env(), capture_output=True, text=True, timeout=300)


def test_a_session_without_launches_writes_its_reports(tmp_path):
    (tmp_path / "test_options.py").write_text(ONLY_BUILDS)
    js, html = tmp_path / "r.json", tmp_path / "r.html"
    p = _pytest(tmp_path, "--tile2triton-json", str(js), "--tile2triton-html", str(html),
                "test_options.py")
    out = p.stdout + p.stderr
    assert p.returncode == 1 and "1 failed, 2 passed" in out, out   # the tests' own outcome
    assert "no cuTile launches were made" in out
    data = json.loads(js.read_text())
    assert data["launches"] == [] and data["backend"] == "cpu"
    assert data["summary"]["launches"] == 0, data["summary"]
    assert "No launches" in html.read_text()


def test_an_internal_error_in_collection_still_writes_the_report(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "def pytest_some_plugin_hook(config):\n    pass\n")   # no plugin defines this hook
    (tmp_path / "test_options.py").write_text(ONLY_BUILDS)
    js = tmp_path / "r.json"
    p = _pytest(tmp_path, "--tile2triton-json", str(js), "test_options.py")
    out = p.stdout + p.stderr
    assert p.returncode == 3 and "INTERNALERROR" in out, out     # pytest's internal error
    assert json.loads(js.read_text())["launches"] == []
