"""`convert PKG -o OUT/PKG --shared-runtime` inside a package: the translated modules import the
runtime relatively, so `import PKG.ops` (and a subpackage's module) works and computes what the
original computes; a folder that is not a package keeps the top-level import."""
import importlib
import shutil
import sys
from pathlib import Path

import pytest

from tile2triton.cli import convert as cli
from tile2triton.verify.corpus import compare, discover, run_case_config

ROOT = Path(__file__).resolve().parents[1]
CASES = {c.name: c for c in discover(ROOT / "corpus")}
RUNTIME = "_tile2triton_runtime"


@pytest.fixture
def package(tmp_path):
    pkg = tmp_path / "src" / "t2tpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "scripts").mkdir()
    (pkg / "__init__.py").write_text('"""a user package"""\n')
    (pkg / "sub" / "__init__.py").write_text("")
    shutil.copy(CASES["embedding_gather"].kernel_path, pkg / "ops.py")
    shutil.copy(CASES["histogram_atomic"].kernel_path, pkg / "sub" / "more.py")
    shutil.copy(CASES["vector_add_1d"].kernel_path, pkg / "scripts" / "standalone.py")
    out = tmp_path / "build" / "t2tpkg"
    assert cli.main(["convert", str(pkg), "-o", str(out), "--shared-runtime", "-q"]) == 0
    return out


def test_modules_in_a_package_import_the_runtime_relatively(package):
    assert f"from .{RUNTIME} import" in (package / "ops.py").read_text()
    assert f"from ..{RUNTIME} import" in (package / "sub" / "more.py").read_text()
    # scripts/ has no __init__.py: it is no subpackage, a relative import could not work there
    assert f"from {RUNTIME} import" in (package / "scripts" / "standalone.py").read_text()
    assert (package / "__init__.py").read_text() == '"""a user package"""\n'


@pytest.mark.parametrize("module, case", [("t2tpkg.ops", "embedding_gather"),
                                          ("t2tpkg.sub.more", "histogram_atomic")])
def test_converted_package_imports_and_matches_the_reference(package, module, case,
                                                              monkeypatch):
    monkeypatch.syspath_prepend(str(package.parent))
    for name in [m for m in sys.modules if m == "t2tpkg" or m.startswith("t2tpkg.")]:
        monkeypatch.delitem(sys.modules, name)
    try:
        mod = importlib.import_module(module)
        runtime = importlib.import_module(f"t2tpkg.{RUNTIME}")
        assert mod._as_tensor is runtime._as_tensor  # the helper came from the package's runtime
        spec = CASES[case].spec()
        results = run_case_config(mod, spec, spec.CASES[0], 0, "cpu")
        assert results
        for out_name, (actual, expected, tol) in results.items():
            m = compare(actual, expected, **tol)
            assert m["ok"], f"{module} output {out_name!r}: {m}"
    finally:
        for name in [m for m in sys.modules if m == "t2tpkg" or m.startswith("t2tpkg.")]:
            sys.modules.pop(name, None)
