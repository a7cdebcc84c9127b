"""What the checker checks (verify/artifacts.py, issue 21 item 1): by default every launch is
judged against the static translation of its kernel's module, the text `tile2triton convert`
writes, per kernel (a failed kernel or host statement elsewhere in the file changes nothing);
`--mode live` / `--tile2triton-mode live` is the per-launch translation; `--translation` and
`--tile2triton-translation` are honoured (a kernel's name works as KERNEL) or refused, never
ignored; every report names the artifact."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.cli import main
from tile2triton.verify import artifacts as A

ROOT = Path(__file__).resolve().parents[2]

KERNELS = '''\
import cuda.tile as ct


@ct.kernel
def scale_add(x, y, alpha, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t * alpha + 1.0)


@ct.kernel
def negate(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=-ct.load(x, index=(b,), shape=(T,)))


@ct.kernel
def never_launched(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=t + not_defined_anywhere)


def host_function_convert_refuses(x):
    return ct.load(x, index=(0,), shape=(4,))
'''

TESTS = '''\
import pytest
import torch
import cuda.tile as ct

import kernels


def test_plain_launch():
    x = torch.randn(130, dtype=torch.float64).float()
    y = torch.empty(130)
    ct.launch(None, (ct.cdiv(130, 32),), kernels.scale_add, (x, y, 2.0, 32))
    torch.testing.assert_close(y.double(), x.double() * 2.0 + 1.0)


@pytest.mark.parametrize("scale", [3.0])
def test_kernel_of_the_test_function(scale):
    @ct.kernel
    def times(x, y, T: ct.Constant[int]):
        b = ct.bid(0)
        ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(T,)) * scale)

    x = torch.randn(70)
    y = torch.empty(70)
    ct.launch(None, (ct.cdiv(70, 16),), times, (x, y, 16))
    torch.testing.assert_close(y.double(), x.double() * scale)


def test_overridden():
    x = torch.randn(50)
    y = torch.empty(50)
    ct.launch(None, (ct.cdiv(50, 16),), kernels.negate, (x, y, 16))
    torch.testing.assert_close(y, -x)
'''

BROKEN = '''\
def launch_negate(*args, **kwargs):
    raise RuntimeError("broken on purpose")


launch_scale_add = launch_negate
'''

PROGRAM = '''\
import torch
import cuda.tile as ct

import kernels

x = torch.randn(100)
y = torch.empty(100)
ct.launch(None, (ct.cdiv(100, 32),), kernels.scale_add, (x, y, 0.5, 32))
ct.launch(None, (ct.cdiv(100, 32),), kernels.negate, (x, y, 32))
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


# -- the artifact itself, without running anything ------------------------------------------

def test_a_module_that_translates_whole_is_checked_against_exactly_what_convert_prints(
        tmp_path, capsys):
    src = tmp_path / "good.py"
    src.write_text(KERNELS.split("@ct.kernel\ndef never_launched")[0])
    assert main(["convert", str(src)]) == 0
    printed = capsys.readouterr().out
    art = A.module_artifact(str(src))
    assert art.mode == "static" and art.text == printed
    assert art.sha256 == A.sha256(printed)
    assert art.find(lambda: 0)[0] is None            # not a kernel of this module


def test_a_failed_kernel_and_a_refused_host_statement_leave_the_other_kernels_checkable(
        tmp_path):
    src = tmp_path / "kernels.py"
    src.write_text(KERNELS)
    assert main(["convert", str(src), "-o", str(tmp_path / "out.py")]) == 1  # writes nothing
    art = A.module_artifact(str(src))
    assert art.mode == "static-partial"
    assert art.kernels["never_launched"].status == "failed"
    assert {art.kernels[k].status for k in ("scale_add", "negate")} == {"translated"}
    assert any("never_launched" in why for why in art.left_out)
    assert any("T2T109" in why for why in art.left_out), art.left_out
    ns: dict = {}
    exec(compile(art.text, "partial", "exec"), ns)       # a module that imports
    assert callable(ns["launch_scale_add"]) and callable(ns["launch_negate"])
    assert "launch_never_launched" not in ns


def test_a_failed_kernel_that_module_code_names_stays_defined_in_the_partial_artifact(
        tmp_path):
    """cuTile's own tests list their kernels at module level (`@pytest.mark.parametrize(...,
    [k1, k2])`): with a failed kernel replaced by `pass`, importing the artifact raised
    NameError, and every launch of the file's good kernels was an `error` verdict (H200, 6,623
    launches). The partial artifact is what `convert --keep-unconverted` writes."""
    src = tmp_path / "listed.py"
    src.write_text(KERNELS.split("\n\ndef host_function")[0]
                   + "\n\nALL_KERNELS = [scale_add, negate, never_launched]\n")
    art = A.module_artifact(str(src))
    assert art.mode == "static-partial"
    assert art.kernels["never_launched"].status == "failed"
    assert any("never_launched" in why for why in art.left_out)
    ns: dict = {}
    exec(compile(art.text, "partial", "exec"), ns)       # imports: no NameError
    assert callable(ns["launch_scale_add"]) and "launch_never_launched" not in ns
    assert len(ns["ALL_KERNELS"]) == 3


def test_a_kernel_of_a_host_function_maps_to_its_hoisted_launcher(tmp_path):
    src = tmp_path / "test_nested.py"
    src.write_text(TESTS)
    art = A.module_artifact(str(src))
    def times():
        pass
    times.__qualname__ = "test_kernel_of_the_test_function.<locals>.times"
    rep, launcher = art.find(times)
    assert rep is not None and launcher == "launch_times" and rep.closure == ["scale"]
    times.__qualname__ = "Cls.method.<locals>.times"
    assert art.find(times)[0] is None


def test_translation_option_keys_are_files_or_kernel_names_and_nothing_else(tmp_path):
    f = tmp_path / "t.py"
    f.write_text("")
    got = A.parse_translation_option([f"{f}={f}", f"my_kernel={f}"], "--translation",
                                     ValueError)
    assert got == {str(f.resolve()): str(f.resolve()), "my_kernel": str(f.resolve())}
    for bad in (f"no/such/file.py={f}", "k=missing.py", "k"):
        with pytest.raises(ValueError):
            A.parse_translation_option([bad], "--translation", ValueError)


# -- through the pytest plugin and check --exec ---------------------------------------------

def test_plugin_checks_the_static_translation_and_honours_a_named_translation(tmp_path):
    """Default mode: the module's static translation, per kernel (kernels.py has a kernel and
    a host function convert refuses); the kernel of a test function runs through its hoisted
    launcher with the test's value; `--tile2triton-translation negate=FILE` replaces negate's
    translation (its test fails: that FILE raises); a translation nothing launched is refused
    (pytest's usage-error status). Every report names the artifact."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "test_user.py").write_text(TESTS)
    (tmp_path / "broken.py").write_text(BROKEN)
    js, jl, html = tmp_path / "out.json", tmp_path / "out.jsonl", tmp_path / "out.html"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                        "--tile2triton-backend", "cpu", "--tile2triton-json", str(js),
                        "--tile2triton-jsonl", str(jl), "--tile2triton-html", str(html),
                        "--tile2triton-jobs", "1",
                        "--tile2triton-translation", "negate=broken.py",
                        "--tile2triton-translation", "nosuch_kernel=broken.py",
                        "test_user.py"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == pytest.ExitCode.USAGE_ERROR, out
    assert "nosuch_kernel=" in out and "no launch was checked against it" in out
    assert "1 failed, 2 passed" in out and "FAILED test_user.py::test_overridden" in out
    by_test = {r["test"].split("::")[-1].split("[")[0]: r
               for r in json.loads(js.read_text())["launches"]}
    plain = by_test["test_plain_launch"]
    assert plain["verdict"] == "pass", plain
    art = plain["artifact"]
    assert art["mode"] == "static-partial" and art["module"] == str(tmp_path / "kernels.py")
    assert len(art["sha256"]) == 64 and any("never_launched" in w for w in art["left_out"])
    nested = by_test["test_kernel_of_the_test_function"]
    assert nested["verdict"] == "pass", nested
    assert nested["artifact"]["module"] == str(tmp_path / "test_user.py")
    over = by_test["test_overridden"]
    assert over["verdict"] == "error" and over["artifact"]["mode"] == "override"
    assert over["artifact"]["file"] == str(tmp_path / "broken.py")
    assert "broken on purpose" in json.dumps(over["findings"])
    streamed = [json.loads(line) for line in jl.read_text().splitlines()]
    assert {r["artifact"]["mode"] for r in streamed} == {"static-partial", "static",
                                                         "override"}
    page = html.read_text()
    assert "Checked against" in page and art["sha256"] in page
    assert "mode static" in out and "Checked against:" in out


def test_exec_honours_a_translation_named_by_kernel_and_refuses_an_unused_one(tmp_path):
    """The issue's case: `check --exec` with --translation KERNEL=FILE naming the kernel was
    reported `pass` while FILE raised on every call (the name was taken for a path and matched
    nothing). In live mode, so the report names that mode too."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "broken.py").write_text(BROKEN)
    js = tmp_path / "out.json"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        rc = main(["check", "--exec", "python prog.py", "--backend", "cpu", "-q", "--mode",
                   "live", "--json", str(js), "--translation", "scale_add=broken.py",
                   "--translation", "other=broken.py", "--jobs", "1"])
    finally:
        os.chdir(cwd)
    assert rc == 2
    launches = {r["kernel"]: r for r in json.loads(js.read_text())["launches"]}
    assert launches["scale_add"]["verdict"] == "error"
    assert launches["scale_add"]["artifact"]["mode"] == "override"
    assert launches["negate"]["verdict"] == "pass"
    assert launches["negate"]["artifact"]["mode"] == "live"
