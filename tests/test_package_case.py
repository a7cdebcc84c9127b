"""A package corpus case (corpus/package_cross_module, docs/corpus-format.md): a helper module,
a kernel module importing it, a launch module importing the kernel, translated as a unit with
one golden per module. tests/test_corpus.py runs it like every case (goldens, CPU run against
the float64 reference) and tests/check/test_check_corpus.py checks it against its original on
the interpreter; here: `check --use-expected` takes every module's golden, an edited golden is
caught, and the GPU runner's loading (original and golden packages side by side) works."""
import json
from pathlib import Path

import pytest

from tile2triton.cli import main
from tile2triton.verify.corpus import CorpusCase

ROOT = Path(__file__).resolve().parents[1]
CASE = CorpusCase("package_cross_module", ROOT / "corpus" / "package_cross_module")
KERNELS = CASE.package / "kernels.py"


def test_the_case_is_a_package_with_a_golden_per_module():
    assert CASE.package is not None and CASE.kernel_path == CASE.package / "launch.py"
    names = [s.name for s in CASE.sources]
    assert names == ["__init__.py", "helpers.py", "kernels.py", "launch.py"]
    for src in CASE.sources:
        assert CASE.expected_for(src) == CASE.folder / "expected" / "rowscale" / src.name
    kern = CASE.expected_for(KERNELS).read_text()
    assert "@triton.jit\ndef row_scale(" in kern and "from .helpers" not in kern  # linked in
    launch = CASE.expected_path.read_text()
    # the kernel is called through its launcher: its own import, now unused, is gone
    assert "from .kernels import launch_scaled_add_rows\n" in launch
    assert "launch_scaled_add_rows(stream, grid," in launch


def test_use_expected_maps_every_module_to_its_golden():
    from tile2triton.verify.cli import parse_overrides
    out = parse_overrides([], [CASE.folder], True)
    assert out == {str(s): str(CASE.expected_for(s)) for s in CASE.sources}


def test_check_runs_an_edited_golden_and_sees_the_edit(tmp_path, capsys):
    """The golden of kernels.py with the helper's scale dropped: the check (which loads the
    package's original by its name and the golden with the corpus runtime) fails it."""
    text = CASE.expected_for(KERNELS).read_text()
    old = "(xt * row_scale(wt, alpha, TM) + yt)"
    assert text.count(old) == 1
    planted = tmp_path / "kernels_no_scale.py"
    planted.write_text(text.replace(old, "(xt + yt)"))
    js = tmp_path / "r.json"
    rc = main(["check", str(CASE.folder), "--backend", "cpu", "-q", "--json", str(js),
               "--no-race", "--translation", f"{KERNELS}={planted}"])
    out = capsys.readouterr().out
    assert rc == 1, out[-3000:]
    launches = json.loads(js.read_text())["launches"]
    ran = [r for r in launches if r["verdict"] != "skipped"]
    assert ran and "pass" not in {r["verdict"] for r in ran}, out[-3000:]
    assert {r["translation_file"] for r in ran} == {str(planted)}


def test_original_and_golden_packages_load_side_by_side():
    """What verify/gpu_corpus.py does before it launches on the GPU."""
    pytest.importorskip("cuda.tile")
    original = CASE.load_original("t2t_test_pkg_orig")
    translated = CASE.load_translation("t2t_test_pkg_trans")
    assert original.__name__ == "t2t_test_pkg_orig.launch"
    assert Path(translated.__file__) == CASE.expected_path
    assert type(original.scaled_add_rows).__module__.startswith("cuda.tile")
    kernels = __import__("sys").modules["t2t_test_pkg_trans.kernels"]
    assert hasattr(kernels.row_scale, "fn")    # a @triton.jit function, helper linked in
    assert translated.launch_scaled_add_rows is kernels.launch_scaled_add_rows
