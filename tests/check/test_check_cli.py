"""`tile2triton check` end to end on the CPU: a user program run with --exec, corpus paths with
reports, usage errors, and the pytest plugin."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def test_exec_user_program_end_to_end(tmp_path):
    out = tmp_path / "exec.json"
    p = subprocess.run([sys.executable, "-m", "tile2triton.cli", "check", "--backend", "cpu",
                        "--exec", "python corpus/vector_add_1d/run_example.py",
                        "--json", str(out)],
                       cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "run_example: ok" in p.stdout + p.stderr      # the program itself ran and passed
    data = json.loads(out.read_text())
    launches = data["launches"]
    assert [r["kernel"] for r in launches] == ["vector_add_kernel", "vector_add_kernel"]
    assert {r["verdict"] for r in launches} == {"pass"}
    assert all(r["backend"] == "cpu" and r["source"] == "exec" for r in launches)
    assert data["summary"]["ok"] is True


def test_corpus_paths_with_a_planted_translation_and_reports(tmp_path, capsys):
    golden = (ROOT / "corpus" / "vector_add_1d" / "expected.py").read_text()
    old = "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n                mask=mask_out,\n"
    assert golden.count(old) == 1
    planted = tmp_path / "nomask.py"
    # the store loses its mask
    planted.write_text(golden.replace(old, "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n"))
    js, page = tmp_path / "r.json", tmp_path / "r.html"
    rc = main(["check", str(ROOT / "corpus" / "vector_add_1d"), "--backend", "cpu", "-q",
               "--translation", str(planted), "--json", str(js), "--html", str(page)])
    assert rc == 1
    text = capsys.readouterr().out
    assert "out-of-bounds-write" in text and "past the end" in text
    # the skipped launch's reason is in the terminal report too, not only in the JSON and HTML
    why = text[text.index("Not run or not judged, and why:"):]
    assert "- skipped: vector_add_1d[n=4099,dtype=bfloat16] -: configuration marked cpu=False" \
        in why
    data = json.loads(js.read_text())
    verdicts = [r["verdict"] for r in data["launches"]]
    assert verdicts.count("out-of-bounds-write") == 2 and verdicts.count("skipped") == 1
    assert data["references"] and all(r["ok"] for r in data["references"])
    html = page.read_text()
    assert html.count("<svg") >= 2 and "out-of-bounds-write" in html


@pytest.mark.parametrize("argv", [
    ["check"],
    ["check", "no/such/path"],
    ["check", "README.md"],
    ["check", "corpus/vector_add_1d", "--seeds", "0"],
])
def test_usage_errors_exit_2(argv, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2


def test_pytest_plugin_fails_a_test_whose_launch_disagrees(tmp_path):
    golden = (ROOT / "corpus" / "vector_add_1d" / "expected.py").read_text()
    planted = tmp_path / "nomask.py"
    old = "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n                mask=mask_out,\n"
    assert golden.count(old) == 1
    planted.write_text(golden.replace(old, "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n"))
    (tmp_path / "test_user.py").write_text(
        "import sys, torch\n"
        f"sys.path.insert(0, {str(ROOT / 'corpus' / 'vector_add_1d')!r})\n"
        "import kernel\n\n"
        "def test_add():\n"
        "    a, b, out = torch.randn(1000), torch.randn(1000), torch.empty(1000)\n"
        "    kernel.launch(None, a, b, out)\n"
        "    torch.testing.assert_close(out, a + b)\n\n"
        "def test_no_kernel():\n"
        "    assert True\n")
    js = tmp_path / "plugin.json"
    # the documented `-p` form, which must also work when the package is installed and its
    # pytest11 entry point registers the same plugin
    plugin = ["-p", "tile2triton.verify.pytest_plugin"]
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        *plugin, "--tile2triton",
                        "--tile2triton-backend", "cpu", "--tile2triton-json", str(js),
                        "--tile2triton-translation",
                        f"{ROOT / 'corpus' / 'vector_add_1d' / 'kernel.py'}={planted}",
                        "test_user.py"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "1 failed, 1 passed" in out and "out-of-bounds-write" in out
    data = json.loads(js.read_text())
    assert [r["verdict"] for r in data["launches"]] == ["out-of-bounds-write"]
    assert data["launches"][0]["case"] == "test_user.py::test_add"
