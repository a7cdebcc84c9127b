"""The translated module's imports (tile2triton/imports.py): an import the translation left
unused goes, one the user never used stays, and the block holding the generated imports is
sorted as ruff's isort rules (I001) expect; the result passes `ruff check --select F,I`."""
import subprocess
import sys

import pytest

from tile2triton import translate_source

SRC = '''"""Scale rows by pi."""

import math
import os  # unused in the input too: the user's to remove

import cuda.tile as ct
import torch


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * math.pi)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 128),), scale, (x, y, 128))
    return y
'''


def test_orphaned_import_removed_user_import_kept_block_sorted(tmp_path):
    res = translate_source(SRC, "scale_pi.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    text = res.output
    assert "import math" not in text            # only the kernel used it: now unused
    # one sorted block: standard library (the launcher's contextlib among the user's), then
    # third party (the user's torch among the generated)
    assert ('"""Scale rows by pi."""\n\nimport contextlib\nimport functools\n'
            "import os  # unused in the input too: the user's to remove\n\n"
            "import torch\nimport triton\nimport triton.language as tl\n\n") in text, text[:400]
    pytest.importorskip("ruff")
    path = tmp_path / "scale_pi_triton.py"
    path.write_text(text)
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F,I",
                        "--ignore", "F401", "--line-length", "100", str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout
