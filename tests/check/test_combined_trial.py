"""Trials T1 (poison) and T2 (canary) in one run for launches without declared outputs (the
pytest plugin, --exec, check_launch): the canary holds the poison in a quarter of its elements.
Every bug the two trials found apart is still found; each launch runs each side once less."""
import sys
from pathlib import Path

import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor
from tile2triton.verify.verdicts import classify
from tile2triton.verify.worker import _canaries

HERE = Path(__file__).resolve().parent
nan = float("nan")


def _t(*v, dt=torch.float32):
    return torch.tensor(v, dtype=dt)


def _run(o, r, co, cr, canary, s=None):
    s = s if s is not None else [_t(*([0.0] * len(o[0])))]
    return classify(["out"], s, o, r, None, None, None, {0}, None, [], [], CO=co, CR=cr,
                    canary=canary)


def test_combined_trial_classify():
    canary = {0: _t(500.25, nan, -77.5, 3.75)}          # the second element is poison
    o = co = [_t(1, 2, 3, 4)]
    assert _run(o, o, co, [_t(1, 2, 3, 4)], canary)["verdict"] == "pass"
    # the last element never written: the canary's finite bits are still there
    res = _run(o, [_t(1, 2, 3, 0)], co, [_t(1, 2, 3, 3.75)], canary)
    assert res["verdict"] == "unwritten"
    assert next(f for f in res["findings"] if f["kind"] == "unwritten")["first_index"] == [3]
    # the poison element never written (or NaN read from it): drift, saying both
    res = _run(o, [_t(1, 2, 3, 4)], co, [_t(1, nan, 3, 4)], canary)
    assert res["verdict"] == "drift"
    assert any("still in 1 element" in f["detail"] for f in res["findings"])
    # accumulates into the output: right in T0 (zeros), wrong with the canary
    res = _run(o, o, co, [_t(501.25, nan, -74.5, 7.75)], canary)
    assert res["verdict"] == "drift"
    assert any("depends on what the array held" in f["detail"] for f in res["findings"])
    # writes an element the original leaves alone
    o2 = [_t(1, 2, 3, 3.75)]
    res = _run(o2, o2, [_t(1, 2, 3, 3.75)], [_t(1, 2, 3, 9.0)], canary)
    assert res["verdict"] == "drift"
    assert any("leaves untouched" in f["detail"] for f in res["findings"])
    # the original itself depends on the old contents: no verdict from the canary
    res = _run(o, o, [_t(2, 3, 4, 5)], [_t(9, 9, 9, 9)], canary)
    assert res["verdict"] == "pass" and res["arrays"][0]["canary"].startswith("inconclusive")


def test_canary_poison_share_is_random_and_spares_bools():
    vals = [torch.zeros(1000), torch.zeros(1000, dtype=torch.int32),
            torch.zeros(1000, dtype=torch.bool)]
    c = _canaries(vals, [0, 1, 2], 3, poison_share=0.25)
    share = float(torch.isnan(c[0]).float().mean())
    assert 0.18 < share < 0.32
    assert 0.18 < float((c[1] == torch.iinfo(torch.int32).min).float().mean()) < 0.32
    assert c[2].dtype == torch.bool
    plain = _canaries(vals, [0], 3)
    assert bool(torch.isfinite(plain[0]).all())


@pytest.fixture(scope="module")
def K():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import trial_kernels
            yield trial_kernels
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("trial_kernels", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


N, T = 301, 64


def _edited(kernel, tmp_path, old, new):
    src = tile2triton.translate_kernel(kernel).source
    assert old in src
    path = tmp_path / f"{kernel.__name__}_{abs(hash(new)) % 10**6}.py"
    path.write_text(src.replace(old, new))
    return path


@pytest.mark.parametrize("name", ["scale3", "scale3_int"])
def test_planted_bugs_found_by_the_combined_trial(K, sup, tmp_path, name):
    kern = getattr(K, name)
    g = torch.Generator().manual_seed(11)
    if name == "scale3":
        x, y = torch.randn(N, generator=g), torch.zeros(N)
    else:
        # no zeros: x * 3 + old == old would look unwritten (to the old trials too)
        x = torch.randint(1, 1000, (N,), generator=g, dtype=torch.int32)
        x = x * (torch.randint(0, 2, (N,), generator=g, dtype=torch.int32) * 2 - 1)
        y = torch.zeros(N, dtype=torch.int32)
    rec = check_launch(kern, ((N + T - 1) // T,), (x, y, T), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    assert "original-poisoned" not in rec["timings"] and "original-canary" in rec["timings"]
    # the last 5 elements never written; y arrives zeroed, so T0 can't see it for x == 0 only
    short = _edited(kern, tmp_path, "mask_y = offs_b < y_shape0",
                    "mask_y = offs_b < y_shape0 - 5")
    rec = check_launch(kern, ((N + T - 1) // T,), (x, y, T), supervisor=sup, translation=short)
    assert rec["verdict"] == "unwritten", rec["findings"]
    un = next(f for f in rec["findings"] if f["kind"] == "unwritten")
    assert 0 < un["count"] <= 5
    # accumulates into y, which the test zeroed: right in T0, caught by the trial
    three = "(t * 3.0)" if name == "scale3" else "(t * 3)"
    acc = _edited(kern, tmp_path, three,
                  f"({three} + tl.load(y_ptr + offs_b * y_stride0, mask=mask_y))")
    rec = check_launch(kern, ((N + T - 1) // T,), (x, y, T), supervisor=sup, translation=acc)
    assert rec["verdict"] == "drift", rec["findings"]
    assert any("depends on what the array held" in f["detail"] for f in rec["findings"])


def test_combined_trial_poison_kept_by_both_sides_is_no_finding():
    # x += y (or a NaN-propagating maximum) over a poison element: the original leaves a NaN
    # there too, with other bits; both sides agree, nothing is unwritten (GPU run 26 reported
    # such launches as drift)
    canary = {0: _t(500.25, nan, -77.5, 3.75)}
    o = [_t(1, 2, 3, 4)]
    co = [_t(501.25, float("nan"), -74.5, 7.75)]
    res = _run(o, o, co, [_t(501.25, -nan, -74.5, 7.75)], canary)
    assert res["verdict"] == "pass", res["findings"]
    # the original writes a value there, the translation keeps the poison: still drift
    res = _run(o, o, [_t(501.25, 2, -74.5, 7.75)], [_t(501.25, nan, -74.5, 7.75)], canary)
    assert res["verdict"] == "drift"
    assert any("still in 1 element" in f["detail"] for f in res["findings"])


@pytest.mark.parametrize("dt", [torch.uint16, torch.uint32, torch.uint64])
def test_canary_poison_share_for_unsigned_arrays(dt):
    # torch.where has no CPU kernel for these dtypes (GPU run 26: 316 launches errored)
    c = _canaries([torch.zeros(1000, dtype=dt)], [0], 5, poison_share=0.25)[0]
    assert c.dtype == dt
    lanes = c.view({torch.uint16: torch.int16, torch.uint32: torch.int32,
                    torch.uint64: torch.int64}[dt]) == 0     # the unsigned poison is 0
    assert 150 < int(lanes.sum()) < 350


@pytest.mark.parametrize("dt, step", [(torch.float16, 2 ** -5), (torch.bfloat16, 2 ** -2),
                                      (torch.float8_e4m3fn, 4.0)])
def test_a_written_value_equal_to_the_canary_is_not_unwritten(dt, step):
    """Issue 28 class 7: `unwritten` verdicts with tiny counts (1 of 524,288 in a rope kernel,
    17 of 260,000 in an fp8 quantization). In narrow dtypes a canary value is one of a few
    thousand (fp8: a few hundred), so the translation sometimes writes exactly the canary's
    bits, while the original's value is an ulp away (within tolerance). That element is
    written and matches; only an element whose canary bits differ from the original's value
    is one the translation missed."""
    canary = {0: torch.tensor([40.0, nan, -12.0, 48.0]).to(dt)}
    o = co = [torch.tensor([40.0 + step, 3.0, 5.0, 6.0]).to(dt)]
    assert not torch.equal(o[0][:1].float(), canary[0][:1].float())
    cr = [torch.tensor([40.0, 3.0, 5.0, 6.0]).to(dt)]      # the canary's bits, written
    res = _run(o, cr, co, cr, canary, s=[torch.zeros(4).to(dt)])
    assert res["verdict"] == "pass", res["findings"]
    # a real miss still shows: the last element keeps the canary, far from the original's 6.0
    cr = [torch.tensor([40.0, 3.0, 5.0, 48.0]).to(dt)]
    res = _run(o, [torch.tensor([40.0, 3.0, 5.0, 0.0]).to(dt)], co, cr, canary,
               s=[torch.zeros(4).to(dt)])
    assert res["verdict"] == "unwritten"
    assert next(f for f in res["findings"] if f["kind"] == "unwritten")["first_index"] == [3]
