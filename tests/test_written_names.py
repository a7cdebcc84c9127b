"""No written module has an undefined name that its input did not have (issue 21 item 4), over
the whole corpus. The judge is ruff (F821), which shares nothing with tile2triton's own check
(module_check.py, Python's symtable); the goldens are what `convert` writes for each case
(tests/test_corpus.py pins them to the current translation). Both judges must agree."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tile2triton.emit.module_check import unbound_names

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"


def _pairs():
    """(input, golden) for every corpus module."""
    out = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "case.py").exists()):
        if (case / "kernel.py").exists():
            out.append((case / "kernel.py", case / "expected.py"))
        for golden in sorted((case / "expected").rglob("*.py")) if (case / "expected").is_dir() \
                else []:
            src = case / golden.relative_to(case / "expected")
            out.append((src, golden))
    return out


def _ruff_undefined(paths) -> dict:
    run = subprocess.run(["ruff", "check", "--isolated", "--no-cache", "--select", "F821",
                          "--output-format", "json", *map(str, paths)],
                         capture_output=True, text=True)
    out: dict = {str(p): set() for p in paths}
    for item in json.loads(run.stdout or "[]"):
        out[str(Path(item["filename"]))].add(item["message"].split("`")[1])
    return out


def test_every_corpus_module_has_a_golden():
    pairs = _pairs()
    assert len(pairs) >= 60
    assert all(src.exists() and golden.exists() for src, golden in pairs)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff (the test extra) not installed")
def test_no_golden_reads_a_name_its_input_did_not_leave_undefined():
    pairs = _pairs()
    found = _ruff_undefined([p for pair in pairs for p in pair])
    new = {str(golden): sorted(found[str(golden)] - found[str(src)]) for src, golden in pairs
           if found[str(golden)] - found[str(src)]}
    assert new == {}
    # tile2triton's own check agrees with ruff on every golden (and on every input)
    for src, golden in pairs:
        for path in (src, golden):
            mine = unbound_names(path.read_text())
            assert mine is not None and set(mine) == found[str(path)], path


def test_ruff_sees_what_the_check_refuses(tmp_path):
    """The oracle is not blind: a dropped alias that host code still reads is F821 for ruff
    and for module_check alike."""
    bad = tmp_path / "bad.py"
    bad.write_text("import triton\n\n\ndef mode():\n    return PAD\n")
    if shutil.which("ruff") is not None:
        assert _ruff_undefined([bad])[str(bad)] == {"PAD"}
    assert set(unbound_names(bad.read_text())) == {"PAD"}
