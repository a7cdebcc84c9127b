"""Every example of every pattern in patterns/: valid ones must translate, contain the expected
Triton text in order, and produce exactly the kernel pinned in tests/snapshots/patterns/;
invalid ones must fail with the stated code and message, rendered exactly as pinned (location,
source line, caret and help included).

T2T_REGEN=1 rewrites the snapshots from the current translator; review the diff.
"""
import ast
import os
import re
from pathlib import Path

import pytest

from tile2triton import translate_source
from tile2triton.registry import all_patterns

PRELUDE = "import cuda.tile as ct\n"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots" / "patterns"


def _examples():
    for pattern in all_patterns():
        for i, ex in enumerate(pattern.examples):
            name = f"{type(pattern).__module__.split('.')[-1]}.{type(pattern).__name__}[{i}]"
            yield pytest.param(pattern, ex, name, id=name)


def translated_functions(output: str) -> str:
    """The @triton.jit functions translated from the example's own code (kernels, its helpers,
    lambdas), without the device-helper library, the host prelude and the launchers."""
    lines = output.splitlines()
    keep = []
    for node in ast.parse(output).body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list and (
                not node.name.startswith("_") or node.name.startswith("_lambda_")):
            start = node.decorator_list[0].lineno
            keep.append("\n".join(lines[start - 1:node.end_lineno]))
    return "\n\n\n".join(keep) + "\n"


def _flat(text: str) -> str:
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", text))


def _check_snapshot(name: str, text: str):
    path = SNAPSHOTS / (name.replace("[", ".").replace("]", "") + ".snap")
    if os.environ.get("T2T_REGEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing snapshot {path}; run with T2T_REGEN=1 and review it"
    assert text == path.read_text(), (
        f"{name} differs from {path.name}; if intended, regenerate with T2T_REGEN=1:\n{text}")


@pytest.mark.parametrize("pattern,example,name", list(_examples()))
def test_pattern_example(pattern, example, name):
    src = PRELUDE + example.cutile.lstrip("\n")
    # each construct's own translation, without the launcher's block coarsening (coarsen.py)
    result = translate_source(src, "example.py", coarsen=False)
    if example.error:
        diags = result.diagnostics()
        assert diags, f"expected {example.error}, but the example translated:\n{result.output}"
        d = diags[0]
        assert d.code == example.error, d.format()
        assert example.message in d.message, d.format()
        assert d.line > 1 and d.col >= 1, "diagnostic must point into the example"
        _check_snapshot(name, d.format() + "\n")
        return
    assert result.ok, "\n".join(d.format() for d in result.diagnostics())
    pos = 0
    # the output is laid out like ruff would (layout.py): pieces are matched whatever the line
    # breaks, indentation and trailing commas around them
    flat = _flat(result.output)
    for piece in example.expect:
        found = flat.find(_flat(piece), pos)
        assert found >= 0, f"missing (in order) {piece!r} in:\n{result.output}"
        pos = found + len(_flat(piece))
    compile(result.output, "example_triton.py", "exec")  # the output is valid Python
    _check_snapshot(name, translated_functions(result.output))


def test_every_construct_has_an_example():
    for pattern in all_patterns():
        assert pattern.examples, f"{type(pattern).__name__} has no examples"
        assert pattern.summary and pattern.triton, f"{type(pattern).__name__} lacks docs text"


def test_every_snapshot_belongs_to_an_example():
    names = {p.values[2].replace("[", ".").replace("]", "") + ".snap" for p in _examples()}
    stale = sorted(p.name for p in SNAPSHOTS.glob("*.snap") if p.name not in names)
    assert not stale, f"snapshots of examples that no longer exist: {stale}"
