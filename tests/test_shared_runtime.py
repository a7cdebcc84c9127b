"""`convert DIR -o OUT --shared-runtime`: the helpers are written once, as a module in OUT that
the translated modules import; the translations still compute what the originals compute."""
import ast
import shutil
from pathlib import Path

import pytest

from tile2triton.cli import convert as cli
from tile2triton.verify.corpus import compare, discover, load_module, run_case_config

ROOT = Path(__file__).resolve().parents[1]
CASES = {c.name: c for c in discover(ROOT / "corpus")}
RUNTIME = "_tile2triton_runtime"
# two corpus kernels that both need the device helper `_elem_index` (and others of their own)
KERNELS = ("embedding_gather", "histogram_atomic")


def _top_level_names(path: Path) -> list:
    tree = ast.parse(path.read_text())
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    base = tmp_path_factory.mktemp("shared")
    src, out = base / "src", base / "out"
    src.mkdir()
    for name in KERNELS:
        shutil.copy(CASES[name].kernel_path, src / f"{name}.py")
    # a host function spelled like a host helper: imported under another name
    (src / "own_grid.py").write_text(
        CASES["vector_add_1d"].kernel_path.read_text()
        + "\n\ndef _grid(n):\n    return (n,)\n")
    assert cli.main(["convert", str(src), "-o", str(out), "--shared-runtime", "-q"]) == 0
    return out


def test_helpers_are_written_once_and_imported(converted):
    runtime = converted / f"{RUNTIME}.py"
    helpers = _top_level_names(runtime)
    assert {"_as_tensor", "_grid", "_on_stream", "_check_ndim"} <= set(helpers)
    assert {"_elem_index", "_gather_2d", "_atomic_add_1d"} <= set(helpers)  # device helpers
    assert len(helpers) == len(set(helpers)), "a helper written twice in the runtime"
    for module in KERNELS + ("own_grid",):
        path = converted / f"{module}.py"
        defined = set(_top_level_names(path))
        assert not defined & set(helpers) - {"_grid"}, f"{module} defines a shared helper"
        text = path.read_text()
        assert f"from {RUNTIME} import" in text
        compile(text, str(path), "exec")
    own = (converted / "own_grid.py").read_text()
    assert "_grid as _grid_1" in own and "def _grid(n):" in own


@pytest.mark.parametrize("name", KERNELS)
def test_translations_importing_the_runtime_match_the_reference(converted, name, monkeypatch):
    monkeypatch.syspath_prepend(str(converted))
    module = load_module(converted / f"{name}.py", f"t2t_shared_{name}")
    spec = CASES[name].spec()
    results = run_case_config(module, spec, spec.CASES[0], 0, "cpu")
    assert results
    for out_name, (actual, expected, tol) in results.items():
        m = compare(actual, expected, **tol)
        assert m["ok"], f"{name} output {out_name!r}: {m}"


def test_a_user_module_named_like_the_runtime_is_refused(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copy(CASES["vector_add_1d"].kernel_path, src / f"{RUNTIME}.py")
    shutil.copy(CASES["vector_add_1d"].kernel_path, src / "k.py")
    assert cli.main(["convert", str(src), "-o", str(out), "--shared-runtime"]) == 2
    assert "named like the shared runtime module" in capsys.readouterr().err
    assert not out.exists()


def test_a_foreign_file_in_the_runtime_place_is_refused(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    shutil.copy(CASES["vector_add_1d"].kernel_path, src / "k.py")
    (out / f"{RUNTIME}.py").write_text("MINE = 1\n")
    assert cli.main(["convert", str(src), "-o", str(out), "--shared-runtime"]) == 2
    assert "was not written by tile2triton" in capsys.readouterr().err
    assert (out / f"{RUNTIME}.py").read_text() == "MINE = 1\n" and not (out / "k.py").exists()
    # its own runtime from an earlier run is simply replaced
    (out / f"{RUNTIME}.py").unlink()
    assert cli.main(["convert", str(src), "-o", str(out), "--shared-runtime", "-q"]) == 0
    assert cli.main(["convert", str(src), "-o", str(out), "--shared-runtime", "-q"]) == 0


def test_shared_runtime_needs_an_output_folder(tmp_path, capsys):
    shutil.copy(CASES["vector_add_1d"].kernel_path, tmp_path / "k.py")
    assert cli.main(["convert", str(tmp_path / "k.py"), "--shared-runtime"]) == 2
    assert "--shared-runtime needs -o OUT" in capsys.readouterr().err
