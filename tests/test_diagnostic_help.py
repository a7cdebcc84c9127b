"""Every diagnostic tile2triton can raise has a `help:` line saying what to do (the README
promises one for every problem).

Diagnostics are made at a few hundred call sites; this test walks the source of the engine and
the patterns for every construction (`Diagnostic(...)`, `*.error(node, code, message, ...)`,
`FileProblem(...)` and the modules' own error wrappers) and requires a help argument that is
not None. The rendered invalid pattern examples (tests/snapshots/patterns) are checked too.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src" / "tile2triton").rglob("*.py")) + sorted(
    (ROOT / "patterns").glob("*.py"))
SNAPSHOTS = ROOT / "tests" / "snapshots" / "patterns"

# callee name -> index of the positional `help` argument
MAKERS = {"Diagnostic": 5, "error": 3, "diagnostic": 3, "_error": 2, "FileProblem": 4}


def _constructions():
    """(file, line, source, has help) of every diagnostic construction."""
    for path in SOURCES:
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name not in MAKERS:
                continue
            if name == "error" and len(node.args) < 2:
                continue  # parser.error(message) and the like: no diagnostic
            given = {k.arg: k.value for k in node.keywords}
            help_node = given.get("help")
            if help_node is None and len(node.args) > MAKERS[name]:
                help_node = node.args[MAKERS[name]]
            has = help_node is not None and not (
                isinstance(help_node, ast.Constant) and help_node.value is None)
            yield path.relative_to(ROOT), node.lineno, ast.get_source_segment(text, node), has


def test_the_walk_finds_the_construction_sites():
    sites = list(_constructions())
    files = {str(f) for f, *_ in sites}
    assert len(sites) > 300, len(sites)
    assert {"patterns/load_store.py", "src/tile2triton/rewrite/frozen_dataclasses.py",
            "src/tile2triton/cli/convert.py", "src/tile2triton/cli/files.py",
            "src/tile2triton/parse/source.py"} <= files


def test_every_diagnostic_construction_has_help():
    missing = [f"{f}:{line}: {src.splitlines()[0]}" for f, line, src, has in _constructions()
               if not has]
    assert not missing, f"{len(missing)} diagnostics without help:\n" + "\n".join(missing)


def test_every_rendered_invalid_example_has_help():
    rendered = [p for p in sorted(SNAPSHOTS.glob("*.snap"))
                if ": T2T" in p.read_text().split("\n", 1)[0]]
    assert len(rendered) > 20
    without = [p.name for p in rendered if "\nhelp: " not in p.read_text()]
    assert not without, without
