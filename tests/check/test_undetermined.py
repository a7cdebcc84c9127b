"""Elements whose value cuTile leaves undefined (a store of UNDETERMINED padding, the default
padding mode) are not compared, and are reported; every other element still is
(verify/undetermined.py). CPU backend: the reference interpreter fills undetermined lanes with
random values, the translation under TRITON_INTERPRET with zeros, so the situation of the H200
(cuTile's NaN against Triton's 0) arises here too."""
import os
import sys
from pathlib import Path

import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor
from tile2triton.verify.undetermined import FILL, fill_variant

HERE = Path(__file__).resolve().parent
M, N, TM, TN = 37, 21, 16, 8          # ragged: 3 x 3 tiles, the last row and column partial


@pytest.fixture(scope="module")
def K():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import undetermined_kernels
            yield undetermined_kernels
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("undetermined_kernels", None)


@pytest.fixture(scope="module", params=["original", "translation"])
def sup(request):
    # the worker reads the probe from its environment when it starts: the GPU's probe
    # ("translation") runs here too
    old = os.environ.get("T2T_UNDETERMINED_PROBE")
    os.environ["T2T_UNDETERMINED_PROBE"] = request.param
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    try:
        yield request.param, s
    finally:
        s.close()
        if old is None:
            os.environ.pop("T2T_UNDETERMINED_PROBE", None)
        else:
            os.environ["T2T_UNDETERMINED_PROBE"] = old


def _args(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(M, N, generator=g)
    y = torch.randn(3 * TM, 3 * TN, generator=g)         # larger than x: padding is stored
    return x, y


def _edited(kernel, tmp_path, old, new):
    src = tile2triton.translate_kernel(kernel).source
    assert old in src
    path = tmp_path / f"edited_{kernel.__name__}.py"
    path.write_text(src.replace(old, new))
    return path


def test_stored_undetermined_padding_is_not_compared(K, sup):
    probe, s = sup
    x, y = _args(3)
    rec = check_launch(K.pad_scale, (3, 3, 1), (x, y, TM, TN), supervisor=s)
    assert rec["verdict"] == "pass", rec["findings"]
    n = 3 * TM * 3 * TN - M * N
    assert rec["undetermined"] == dict(probe=probe, elements={"y": n})
    assert [a.get("undetermined") for a in rec["arrays"]] == [None, n]
    assert any(f"{n} element(s) of `y` not compared" in t for t in rec["notes"])


def test_defined_padding_is_compared_and_needs_no_probe(K, sup, tmp_path):
    _, s = sup
    x, y = _args(4)
    rec = check_launch(K.pad_scale_zero, (3, 3, 1), (x, y, TM, TN), supervisor=s)
    assert rec["verdict"] == "pass", rec["findings"]
    assert "undetermined" not in rec and "undetermined" not in rec["timings"]
    # ZERO padding is defined: a translation that pads with something else is drift there
    bad = _edited(K.pad_scale_zero, tmp_path, "other=0.0", "other=0.5")
    rec = check_launch(K.pad_scale_zero, (3, 3, 1), (x, y, TM, TN), supervisor=s,
                       translation=bad)
    assert rec["verdict"] == "drift", rec["findings"]
    assert rec["metrics"]["mismatches"] == 3 * TM * 3 * TN - M * N
    assert "undetermined" not in rec


def test_real_drift_beside_undetermined_lanes_is_reported(K, sup, tmp_path):
    _, s = sup
    x, y = _args(5)
    bad = _edited(K.pad_scale, tmp_path, "(t * 2.0)", "(t * 2.5)")
    rec = check_launch(K.pad_scale, (3, 3, 1), (x, y, TM, TN), supervisor=s,
                       translation=bad)
    assert rec["verdict"] == "drift"
    drift = [f for f in rec["findings"] if f["kind"] == "drift" and f.get("array") == "y"]
    # exactly the determined elements differ; the undetermined ones are left out
    assert drift and drift[0]["metrics"]["mismatches"] == M * N
    assert rec["undetermined"]["elements"] == {"y": 3 * TM * 3 * TN - M * N}


def test_cpu_probe_keeps_comparing_padding_that_leaks_into_data(K, monkeypatch, tmp_path):
    # the translation pads one column too many: its last data column holds padding, which the
    # original computes from x. The original's probe decides what is undefined: still drift.
    monkeypatch.setenv("T2T_UNDETERMINED_PROBE", "original")
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    try:
        x, y = _args(6)
        bad = _edited(K.pad_scale, tmp_path, "(offs_by[None, :] < x_shape1)",
                      "(offs_by[None, :] < x_shape1 - 1)")
        rec = check_launch(K.pad_scale, (3, 3, 1), (x, y, TM, TN), supervisor=s,
                           translation=bad)
    finally:
        s.close()
    assert rec["verdict"] == "drift", rec["findings"]
    drift = [f for f in rec["findings"] if f["kind"] == "drift"]
    assert drift[0]["metrics"]["mismatches"] == M
    assert drift[0]["metrics"]["first_mismatch"]["index"] == [0, N - 1]


def test_rank3_helper_padding(K, sup):
    probe, s = sup
    g = torch.Generator().manual_seed(7)
    x = torch.randn(13, 2, 3, generator=g)             # the last dimension is padded 3 -> 4
    y = torch.randn(16, 2, 4, generator=g)
    rec = check_launch(K.pad_rank3, (4, 1, 1), (x, y, 4), supervisor=s)
    assert rec["verdict"] == "pass", rec["findings"]
    assert rec["undetermined"]["elements"] == {"y": 16 * 2 * 4 - 13 * 2 * 3}


def test_fill_variant_rewrites_undetermined_loads_only(K):
    src = tile2triton.translate_kernel(K.pad_scale).source
    var = fill_variant(src)
    assert var is not None and f"other={FILL}" in var
    zero = tile2triton.translate_kernel(K.pad_scale_zero).source
    assert fill_variant(zero) is None                     # ZERO padding: nothing to vary
    helper = fill_variant(tile2triton.translate_kernel(K.pad_rank3).source)
    # the tile helper's PADDING default (None: undetermined) now fills; its one load reads it
    assert f"PADDING={FILL}" in helper.replace(" = ", "=")
    assert "tl.load(ptrs, mask=mask, other=PADDING)" in helper
