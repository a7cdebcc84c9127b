"""Verdicts that need the worker machinery: a hang is a timeout, a memory fault replaces the
worker without affecting later verdicts, two differing runs are a race, a failing original is
reported as such, and a translation that is not Python is a compile error."""
from pathlib import Path

import pytest
import torch

from tile2triton import interp
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
GOLDEN = CORPUS / "vector_add_1d" / "expected.py"


def _edit(tmp_path, name, old, new=None, append=None):
    text = GOLDEN.read_text()
    if old is not None:
        assert old in text, f"{old!r} not in the golden translation"
        text = text.replace(old, new, 1)
    if append:
        text += append
    p = tmp_path / f"{name}.py"
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def kernel():
    return interp.load_module_with_interpreter(CORPUS / "vector_add_1d" / "kernel.py") \
        .vector_add_kernel


@pytest.fixture(scope="module")
def sup():
    # 12 s: a launch of this kernel takes well under a second, but CI runs two test processes
    # on two cores and a 4 s limit timed out the passing launches there
    s = Supervisor(backend="cpu", workers=1, timeout=12.0, race=True)
    yield s
    s.close()


def _args(n=300):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(n, generator=g), torch.randn(n, generator=g), torch.empty(n), 128)


def test_hang_is_a_timeout_then_crash_replaces_worker_then_pass(kernel, sup, tmp_path):
    # (the golden runs its blocks inside the launcher's block coarsening loop, coarsen.py)
    hang = _edit(tmp_path, "hang", "            pid = block_x\n",
                 "            pid = block_x\n            while pid >= 0:\n"
                 "                pid = pid + 0\n")
    rec = check_launch(kernel, (3,), _args(), translation=hang, supervisor=sup)
    assert rec["verdict"] == "timeout", rec["findings"]
    assert rec["findings"][0]["stage"] == "translation"
    assert "running (and compiling) the translation" in rec["findings"][0]["detail"]

    wild = _edit(tmp_path, "wild", "tl.store(\n                out_ptr + offs_pid",
                 "tl.store(\n                out_ptr + (1 << 44) + offs_pid")
    rec = check_launch(kernel, (3,), _args(), translation=wild, supervisor=sup)
    assert rec["verdict"] == "illegal-address", rec["findings"]
    assert "died" in rec["findings"][0]["detail"]

    args = _args()
    before = [a.clone() for a in args[:3]]
    rec = check_launch(kernel, (3,), args, translation=GOLDEN, supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    # bit patterns: `out` is torch.empty, whose garbage may hold NaNs (NaN != NaN)
    assert all(torch.equal(a.view(torch.int32), b.view(torch.int32))
               for a, b in zip(args[:3], before)), "arguments were modified"


def test_race_original_failed_and_syntax_error(kernel, sup, tmp_path):
    noisy = _edit(tmp_path, "noisy", None, append=(
        "\n\nimport torch  # noqa: E402\n\n_t2t_inner = launch_vector_add_kernel\n\n\n"
        "def launch_vector_add_kernel(stream, grid, a, b, out, TILE, **kw):\n"
        "    _t2t_inner(stream, grid, a, b, out, TILE, **kw)\n"
        "    out[0] += float(torch.rand(()))\n"))
    rec = check_launch(kernel, (3,), _args(), translation=noisy, supervisor=sup)
    assert rec["verdict"] == "race", rec["findings"]

    bad_rank = (torch.randn(4, 100), torch.randn(4, 100), torch.empty(4, 100), 128)
    rec = check_launch(kernel, (3,), bad_rank, translation=GOLDEN, supervisor=sup)
    assert rec["verdict"] == "original-failed", rec["findings"]

    broken = _edit(tmp_path, "broken", None, append="\ndef oops(:\n")
    rec = check_launch(kernel, (3,), _args(), translation=broken, supervisor=sup)
    assert rec["verdict"] == "compile-error", rec["findings"]
    assert "not valid Python" in rec["findings"][0]["plain"]
