"""Where the files of a corpus case are (docs/corpus-format.md). Torch-free: the command line
resolves case folders with it before anything heavy is imported.

A case folder holds case.py and either kernel.py (one module, golden expected.py) or a package:
a subfolder with __init__.py and launch.py (the module whose `launch(stream, **args)` the case
calls), translated as a unit, with one golden per module under expected/<package>/.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_ENTRY = "launch"   # the module of a package case that defines launch(stream, **args)
EXPECTED_DIR = "expected"  # a package case's goldens: expected/<package>/<module>.py


def package_of(folder) -> Path | None:
    """The package of a package case (None for a kernel.py case)."""
    folder = Path(folder)
    if not folder.is_dir() or (folder / "kernel.py").is_file():
        return None
    for p in sorted(folder.iterdir()):
        if p.is_dir() and p.name != EXPECTED_DIR and (p / "__init__.py").is_file() \
                and (p / f"{PACKAGE_ENTRY}.py").is_file():
            return p
    return None


def is_case(folder) -> bool:
    folder = Path(folder)
    return (folder / "case.py").is_file() and (
        (folder / "kernel.py").is_file() or package_of(folder) is not None)


def sources(folder) -> list[Path]:
    """The case's cuTile modules: kernel.py, or every module of its package."""
    folder = Path(folder)
    pkg = package_of(folder)
    return [folder / "kernel.py"] if pkg is None else sorted(pkg.glob("*.py"))


def golden_of(folder, source) -> Path:
    """The golden translation of one of the case's modules."""
    folder, source = Path(folder), Path(source)
    pkg = package_of(folder)
    if pkg is None:
        return folder / "expected.py"
    return folder / EXPECTED_DIR / pkg.name / source.name


def entry(folder) -> Path:
    """The module whose launch(stream, **args) the case calls."""
    folder = Path(folder)
    pkg = package_of(folder)
    return folder / "kernel.py" if pkg is None else pkg / f"{PACKAGE_ENTRY}.py"
