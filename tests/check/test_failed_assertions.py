"""A launch whose device assertion fails (ct.assert_) is judged honestly: on the CPU both sides
run it (the reference interpreter's ct.assert_, and the translation's tl.device_assert, which
Triton's interpreter otherwise skips) and agree only when both fail; on the GPU a CUDA error of
the original is the original's failure, never an illegal address of the translation."""
import sys
from pathlib import Path

import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor
from tile2triton.verify.worker import Fatal, fatal_result

HERE = Path(__file__).resolve().parent
N, T = 300, 128                                   # 3 blocks, the last one partial


@pytest.fixture(scope="module")
def K():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import assert_kernels
            yield assert_kernels
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("assert_kernels", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


def _x(seed, bad=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(N, generator=g) * 10 - 5
    if bad:
        x[int(torch.randint(0, N, (1,), generator=g))] = -1000.0
    return x


def test_assertion_that_holds_passes(K, sup):
    rec = check_launch(K.checked_copy, (3,), (_x(1), torch.randn(N), T), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]


def test_assertion_failing_on_both_sides_agrees(K, sup):
    rec = check_launch(K.checked_copy, (3,), (_x(2, bad=True), torch.randn(N), T),
                       supervisor=sup)
    assert rec["verdict"] == "both-failed-assert", rec["findings"]
    f = rec["findings"][0]
    assert "inputs must exceed -100" in f["original"]
    assert "inputs must exceed -100" in f["translation"]


def test_translation_without_the_assertion_is_a_difference(K, sup, tmp_path):
    src = tile2triton.translate_kernel(K.checked_copy).source
    line = next(ln for ln in src.splitlines() if "tl.device_assert(" in ln)
    bad = tmp_path / "no_assert.py"
    bad.write_text(src.replace(line, ""))
    rec = check_launch(K.checked_copy, (3,), (_x(3, bad=True), torch.randn(N), T),
                       supervisor=sup, translation=bad)
    assert rec["verdict"] == "drift", rec["findings"]
    assert "ran through" in rec["findings"][0]["detail"]
    # and one whose assertion fires where the original's holds is not an agreement either
    worse = tmp_path / "always.py"
    worse.write_text(src.replace(line, line.replace("> -100.0", "> 100.0")))
    assert src.replace(line, line.replace("> -100.0", "> 100.0")) != src
    rec = check_launch(K.checked_copy, (3,), (_x(4), torch.randn(N), T), supervisor=sup,
                       translation=worse)
    assert rec["verdict"] not in ("pass", "both-failed-assert"), rec["findings"]


def test_cuda_error_of_the_original_is_not_an_illegal_address():
    err = RuntimeError("CUDA error: unspecified launch failure")
    try:
        raise Fatal(err, side="original", has_assert=True) from err
    except Fatal as e:
        res = fatal_result(e)
    assert res["verdict"] == "original-failed" and res["fatal"]
    assert res["findings"][0]["cuda_error"] and res["findings"][0]["has_assert"]
    try:
        raise Fatal(err) from err
    except Fatal as e:
        assert fatal_result(e)["verdict"] == "illegal-address"
    # the launch call returned in the program (the kernel's failure shows later): not-checked,
    # saying why, and that the kernel has an assertion
    s = Supervisor(backend="cpu")
    try:
        rec = s._record(0, "job.pt", dict(kernel="k", program_ok=True), res)
    finally:
        s.close()
    assert rec["verdict"] == "not-checked"
    assert "unspecified launch failure" in rec["reason"] and "not known" in rec["reason"]
    assert "ct.assert_" in rec["reason"]
