"""The generated docs match the patterns and codes they are generated from."""
from pathlib import Path

from tile2triton.cli.docs import constructs_md, diagnostics_md

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_constructs_doc_is_current():
    assert (DOCS / "constructs.md").read_text() == constructs_md(), \
        "docs/constructs.md is stale: run python -m tile2triton.cli.docs"


def test_diagnostics_doc_is_current():
    assert (DOCS / "diagnostics.md").read_text() == diagnostics_md(), \
        "docs/diagnostics.md is stale: run python -m tile2triton.cli.docs"
