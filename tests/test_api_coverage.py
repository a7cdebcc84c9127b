"""docs/api-coverage.md lists every public name of the installed cuda.tile, and each name it says
gets a diagnostic does get a located one (not an internal error, not a silent translation)."""
import textwrap
from pathlib import Path

import pytest

from tile2triton import translate_source
from tile2triton.cli.api_coverage import NOT_TRANSLATED, api_coverage_md, public_names, status
from tile2triton.registry import load_patterns

ct = pytest.importorskip("cuda.tile")
DOC = Path(__file__).resolve().parents[1] / "docs" / "api-coverage.md"


def test_every_public_name_is_in_the_committed_doc():
    text = DOC.read_text()
    missing = [n for n in public_names(ct) if f"| `{n}` |" not in text]
    assert not missing, f"docs/api-coverage.md lacks {missing}: run python -m tile2triton.cli.docs"


def test_every_public_name_has_a_status():
    patterns = load_patterns()
    missing = [n for n in public_names(ct) if status(n, patterns)[0] == "missing"]
    assert not missing, f"no pattern, engine entry or diagnostic for {missing} " \
                        "(src/tile2triton/cli/api_coverage.py)"


def test_no_diagnostic_entry_for_a_translated_name():
    # a construct's pattern file wins over coverage.py; a stale "not translated" entry would
    # only mislead the next reader
    patterns = load_patterns()
    stale = [n for n in NOT_TRANSLATED if n in patterns]
    assert not stale, f"coverage.NOT_TRANSLATED lists {stale}, which have patterns now"


def test_doc_is_current():
    assert DOC.read_text() == api_coverage_md(), \
        "docs/api-coverage.md is stale: run python -m tile2triton.cli.docs"


def test_public_names_include_classes_and_enums():
    names = set(public_names(ct))
    assert {"load", "Array.slice", "Tile.astype", "TiledView.load", "PaddingMode.ZERO",
            "MemoryOrder.ACQUIRE"} <= names


# A kernel using each name marked "diagnostic" (inside the kernel, or on the host for host-only
# names). `t` is a float32 tile of 16 elements, `x` a 1-D array, `v` a tiled view of it.
KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, n):
    t = ct.load(x, (0,), (16,))
    v = x.tiled_view((16,))
    {use}
    ct.store(y, (0,), t)
"""
USES = {
    "compilation": None,  # host-only: see HOST
    "Array.from_foreign": None,
    "static_exception": "raise ct.static_exception(ValueError('bad'))",
    "astile": "w = ct.astile((1.0, 2.0), dtype=ct.float32)",
    "assume_divisible_by": "m = ct.assume_divisible_by(n, 16)",
    "ensure_constant": "c = ct.ensure_constant(4)",
    "static_iter": "for i in ct.static_iter((1, 2)):\n        t = t + i",
    "load_advanced_indexing": "w = ct.load_advanced_indexing(x, (ct.arange(16, dtype=ct.int32),))",
    "store_advanced_indexing": "ct.store_advanced_indexing(x, (ct.arange(16, dtype=ct.int32),), t)",
    "grid_dependency_control_wait": "ct.grid_dependency_control_wait()",
    "grid_dependency_control_launch_dependents": "ct.grid_dependency_control_launch_dependents()",
    "Slice": "s = ct.Slice(0, 16)",
    "Array.foreign_pointer": "p = x.foreign_pointer",
    "TiledView.traversal_steps": "s = v.traversal_steps",
    "MemoryScope.CLUSTER": "ct.atomic_add(x, 0, 1.0, memory_scope=ct.MemoryScope.CLUSTER)",
}
HOST = {
    "compilation": "def host():\n    return ct.compilation.export_kernel(k)\n",
    "Array.from_foreign": "def host(p):\n    return ct.Array.from_foreign(p)\n",
}


def _use(name):
    if name in USES:
        return USES[name]
    if name.startswith("RoundingMode."):
        return f"t = ct.add(t, t, rounding_mode=ct.{name})"
    # dtypes
    return f"t = t.astype(ct.{name})"


@pytest.mark.parametrize("name", sorted(NOT_TRANSLATED))
def test_names_without_translation_get_their_located_diagnostic(name):
    code, _ = NOT_TRANSLATED[name]
    if name in HOST:
        src = textwrap.dedent(KERNEL.format(use="pass")) + "\n\n" + HOST[name]
    else:
        src = textwrap.dedent(KERNEL).format(use=_use(name))
    res = translate_source(src, "cov.py")
    diags = res.diagnostics()
    assert diags, f"{name}: translated without a diagnostic"
    d = diags[0]
    assert d.code == code, f"{name}: got {d.format()}"
    assert d.line > 0 and d.source_line, f"{name}: diagnostic without a location"
