"""The translated module's imports (tile2triton/imports.py): an import the translation left
unused goes, one the user never used stays, and the block holding the generated imports is
sorted as ruff's isort rules (I001) expect; the result passes `ruff check --select F,I`."""
import subprocess
import sys

import pytest

from tile2triton import translate_source

SRC = '''"""Scale rows by pi."""

import os  # unused in the input too: the user's to remove

import cuda.tile as ct
import numpy as np
import torch


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * np.pi)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 128),), scale, (x, y, 128))
    return y
'''


def assert_ruff_clean(tmp_path, text, select="I", ignore=()):
    """`ruff check --select SELECT --line-length 100` finds nothing in `text`."""
    pytest.importorskip("ruff")
    path = tmp_path / "translated.py"
    path.write_text(text)
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", select,
                        *(["--ignore", ",".join(ignore)] if ignore else []), "--line-length",
                        "100", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout


def test_orphaned_import_removed_user_import_kept_block_sorted(tmp_path):
    res = translate_source(SRC, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    text = res.output
    assert "import numpy" not in text           # only the kernel used it: now unused
    # one sorted block: standard library (the launcher's contextlib among the user's), then
    # third party (the user's torch among the generated)
    assert ('"""Scale rows by pi."""\n\nimport contextlib\nimport functools\nimport math\n'
            "import os  # unused in the input too: the user's to remove\n\n"
            "import torch\nimport triton\nimport triton.language as tl\n\n") in text, text[:400]
    assert_ruff_clean(tmp_path, text, "F,I", ignore=("F401",))


def test_names_of_a_from_import_sorted_as_isort_does(tmp_path):
    """cuTile's AttentionFMHA sample writes `from torch.nn.attention import sdpa_kernel,
    SDPBackend`; in the block the pass sorts, the names follow isort's order (constants,
    classes, then the rest), and ruff's I001 is satisfied."""
    src = SRC.replace("import os  #", "from os.path import join, SEP_X, Path2, dirname\nimport os  #")
    src = src.replace("t * np.pi)", "t * np.pi)\n\n\nUSED = (join, SEP_X, Path2, dirname)")
    res = translate_source(src, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "from os.path import SEP_X, Path2, dirname, join\n" in res.output
    assert_ruff_clean(tmp_path, res.output)


def test_parenthesized_import_keeps_its_comments():
    """A parenthesized `from` import may hold comments between its names: it stays exactly as
    written (the names were re-comma'd before, which dropped the comment)."""
    written = "from re import (sub,  # why: the user's\n    escape)\n"
    src = SRC.replace("import os  #", written + "import os  #")
    src = src.replace("t * math.pi)", "t * math.pi)\n\n\nUSED = (sub, escape)")
    res = translate_source(src, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert written in res.output


@pytest.mark.parametrize("written,laid_out", [
    # too long for one line: a name per line, sorted, with a trailing comma (cuTile's
    # VectorAddition template writes its kernel import this way)
    ("from os.path import (\n    splitext, commonprefix, expanduser, expandvars, normcase, "
     "samefile, islink, abspath\n)\n",
     "from os.path import (\n    abspath,\n    commonprefix,\n    expanduser,\n    expandvars,\n"
     "    islink,\n    normcase,\n    samefile,\n    splitext,\n)\n"),
    # it fits, and had no trailing comma: one line
    ("from os.path import (splitext,\n    islink)\n", "from os.path import islink, splitext\n"),
    # a trailing comma keeps a name per line, as isort's split-on-trailing-comma does
    ("from os.path import (splitext, islink,)\n",
     "from os.path import (\n    islink,\n    splitext,\n)\n"),
])
def test_parenthesized_import_without_comments_laid_out_as_isort_does(tmp_path, written,
                                                                       laid_out):
    names = written.split("(")[1].replace(")", "").replace("\n", " ")
    src = SRC.replace("import os  #", written + "import os  #")
    src = src.replace("t * math.pi)", f"t * math.pi)\n\n\nUSED = ({names})")
    res = translate_source(src, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert laid_out in res.output, res.output[:600]
    assert_ruff_clean(tmp_path, res.output)


def test_aliases_of_a_from_import_split_as_isort_does(tmp_path):
    """ruff's isort (no combine-as-imports) writes each `a as b` of a `from` import as its own
    statement, the plain names together, in member order."""
    written = "from os.path import join as j, dirname, abspath as ap, basename\n"
    src = SRC.replace("import os  #", written + "import os  #")
    src = src.replace("t * math.pi)", "t * math.pi)\n\n\nUSED = (j, dirname, ap, basename)")
    res = translate_source(src, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert ("from os.path import abspath as ap\nfrom os.path import basename, dirname\n"
            "from os.path import join as j\n") in res.output, res.output[:600]
    assert_ruff_clean(tmp_path, res.output)
