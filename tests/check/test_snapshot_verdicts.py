"""Unit tests of the checker's pieces: snapshots and sentinel bands, verdict classification,
plain-words compile errors, and the reports (no worker processes here)."""
import json
import xml.etree.ElementTree as ET

import pytest
import torch

from tile2triton.verify import report
from tile2triton.verify import snapshot as S
from tile2triton.verify.explain import compile_error_record, mlir_diagnostics
from tile2triton.verify.verdicts import classify, metrics, pick


def test_snapshot_roundtrip_keeps_layout_and_aliasing(tmp_path):
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    view_t = base.t()                       # strided
    row = base[2]                           # aliases base
    snap = S.take((base, view_t, row, 3, 2.5, [base[::2, ::3]], "s", torch.float16))
    S.save(tmp_path / "j.pt", {"kernel": "k"}, snap)
    meta, snap2 = S.load(tmp_path / "j.pt")
    assert meta["kernel"] == "k"
    pl = S.Placement(snap2, device="cpu")
    b, vt, r, i, f, lst, s, dt = pl.args
    assert (i, f, s, dt) == (3, 2.5, "s", torch.float16)
    assert torch.equal(b, base) and torch.equal(vt, view_t) and torch.equal(r, row)
    assert vt.stride() == view_t.stride()
    assert torch.equal(lst[0], base[::2, ::3]) and lst[0].stride() == (20, 3)
    r.fill_(-1)                             # aliasing is rebuilt: the row is inside `b`
    assert bool((b[2] == -1).all())
    assert pl.band_writes() == []


def test_broadcast_arrays_are_placed_and_poisoned():
    # An `expand`ed array shares one location along its stride-0 axis; torch refuses to write such
    # a view, so the checker writes one element per location.
    col = torch.randn(7, 1, dtype=torch.float64)
    x = col.expand(7, 5)
    pl = S.Placement(S.take((x, torch.randn(3))), device="cpu")
    v = pl.views[0]
    assert v.stride() == (1, 0) and torch.equal(v, x)
    assert pl.band_writes() == []
    poisoned = S.Placement(S.take((x,)), device="cpu", poison=(0,)).views[0]
    assert bool(torch.isnan(poisoned).all()) and poisoned.stride() == (1, 0)
    other = torch.randn(7, 5, dtype=torch.float64)[:, :1].expand(7, 5)
    replaced = S.Placement(S.take((x,)), device="cpu", values={0: other}).views[0]
    assert torch.equal(replaced, other)


def test_alignment_is_preserved():
    storage = torch.zeros(1000)
    x = storage[3:503]                      # 12 bytes past an aligned start
    snap = S.take((x,))
    pl = S.Placement(snap, device="cpu")
    assert pl.views[0].data_ptr() % S.ALIGN == x.data_ptr() % S.ALIGN


def test_band_writes_before_after_and_in_gaps():
    x = torch.randn(4, 8)[:, ::2]           # gaps between the elements of each row
    pl = S.Placement(S.take((x, torch.zeros(5))), device="cpu")
    v, w = pl.views
    raw = torch.empty(0, dtype=v.dtype).set_(v.untyped_storage(), v.storage_offset() - 2, (30,),
                                             (1,))
    raw[0] = 1.0                            # 2 elements before the start
    raw[3] = 1.0                            # a gap between x[0, 0] and x[0, 1]
    tail = torch.empty(0, dtype=w.dtype).set_(w.untyped_storage(), w.storage_offset(), (7,),
                                              (1,))
    tail[6] = 5.0                           # one past the end of the 5-element array
    found = {f["tensor"]: f for f in pl.band_writes()}
    assert found[0]["bytes_before"] == 4 and found[0]["lowest_element"] == -2
    assert found[0]["bytes_in_gaps"] == 4
    assert found[1]["bytes_after"] == 4 and found[1]["highest_element"] == 6


def test_oob_reads_see_nan():
    pl = S.Placement(S.take((torch.ones(4),)), device="cpu")
    v = pl.views[0]
    past = torch.empty(0, dtype=v.dtype).set_(v.untyped_storage(), v.storage_offset(), (8,), (1,))
    assert torch.isnan(past[4:]).all()


def test_poison_and_bits():
    for dt in (torch.float32, torch.float16, torch.int32, torch.int64):
        t = torch.zeros(3, dtype=dt)
        S.fill_poison(t)
        assert bool(S.is_poison(t).all())
    a = torch.tensor([float("nan"), 1.0])
    assert S.same_bits(a, a.clone()).all()


def _t(*v, dt=torch.float32):
    return torch.tensor(v, dtype=dt)


def test_classify_pass_drift_unwritten_read_first():
    s = [_t(1, 2, 3, 4), _t(9, 9, 9, 9)]                 # x (input), out
    o = [s[0].clone(), _t(2, 4, 6, 8)]
    nan = float("nan")
    res = classify(["x", "out"], s, o, [s[0].clone(), _t(2, 4, 6, 8)], None,
                   [s[0].clone(), _t(2, 4, 6, 8)], [s[0].clone(), _t(2, 4, 6, 8)], {1}, None,
                   [], [])
    assert res["verdict"] == "pass"
    # the last element never written: T0 leaves the old 9, T1 leaves the poison
    res = classify(["x", "out"], s, o, [s[0].clone(), _t(2, 4, 6, 9)], None,
                   [s[0].clone(), _t(2, 4, 6, 8)], [s[0].clone(), _t(2, 4, 6, nan)], {1}, None,
                   [], [])
    assert res["verdict"] == "unwritten"
    # accumulates into the output: T0 wrong value, T1 NaN from the poison
    res = classify(["x", "out"], s, o, [s[0].clone(), _t(11, 13, 15, 17)], None,
                   [s[0].clone(), _t(2, 4, 6, 8)], [s[0].clone(), _t(nan, nan, nan, nan)], {1},
                   None, [], [])
    assert res["verdict"] == "drift"
    assert any("reads the output before writing" in f.get("detail", "")
               for f in res["findings"])
    # an input modified by the translation
    res = classify(["x", "out"], s, o, [_t(0, 2, 3, 4), _t(2, 4, 6, 8)], None, None, None,
                   {1}, None, [], [])
    assert res["verdict"] == "drift" and "leaves unchanged" in res["findings"][0]["detail"]


def test_classify_race_and_oob_priority():
    s, o = [_t(0, 0)], [_t(1, 2)]
    res = classify(["out"], s, o, [_t(1, 2)], [_t(1, 3)], None, None, {0}, None, [], [])
    assert res["verdict"] == "race"
    oob = [dict(tensor=0, name="out", path="args[0]", bytes_before=0, bytes_after=8,
                bytes_in_gaps=0, highest_element=3)]
    res = classify(["out"], s, o, [_t(1, 5)], None, None, None, {0}, None, oob, [])
    assert res["verdict"] == "out-of-bounds-write"
    assert pick([dict(kind="drift"), dict(kind="compile-error")]) == "compile-error"


def test_metrics_tolerance_and_heatmap():
    e = torch.ones(40, 30)
    a = e.clone()
    a[5:9, 10:12] = 2.0
    m = metrics(a, e, atol=1e-4, rtol=1e-4)
    assert m["mismatches"] == 8 and m["first_mismatch"]["index"] == [5, 10]
    assert m["max_abs"] == pytest.approx(1.0)
    res = classify(["out"], [torch.zeros(40, 30)], [e], [a], None, None, None, {0}, None, [], [])
    hm = res["heatmap"]
    assert hm["array"] == "out" and hm["shape"] == [40, 30]
    assert max(max(r) for r in hm["cells"]) == 1.0
    ints = metrics(_t(1, 2, dt=torch.int32), _t(1, 3, dt=torch.int32), atol=0, rtol=0)
    assert ints["mismatches"] == 1


def test_plain_words_for_atomic_shape_mismatch(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("a\nb\n    tl.atomic_add(ptr, value)\n")
    diags = mlir_diagnostics(f"{src}:3:5: error: 'tt.atomic_rmw' op failed to verify that ptr "
                             "type matches value type\n")
    rec = compile_error_record("RuntimeError: error encountered during parsing", diags)
    assert rec["line"] == 3 and rec["source"] == "tl.atomic_add(ptr, value)"
    assert "pointer and value disagree in shape" in rec["plain"]
    assert "tt.atomic_rmw" in rec["triton_message"]


def _records():
    return [
        dict(case="c1", config="n=3", seed=0, launch_index=0, kernel="k", verdict="pass",
             metrics=dict(max_abs=0.0, max_rel=0.0, norm_rel=0.0, mismatches=0),
             error_hist=[10] + [0] * 18, findings=[]),
        dict(case="c2", seed=1, launch_index=0, kernel="k2", verdict="drift",
             metrics=dict(max_abs=0.5, max_rel=0.1, norm_rel=0.02, mismatches=3,
                          first_mismatch=dict(array="out", index=[1, 2], actual=1.0,
                                              expected=0.5)),
             error_hist=[5] + [1] * 17 + [2], findings=[dict(kind="drift", detail="3 differ")],
             heatmap=dict(array="out", shape=[4, 4], cells=[[0, 0.5], [1, 0]])),
        dict(case="c3", kernel=None, verdict="skipped", findings=[]),
    ]


def test_reports(tmp_path):
    recs = _records()
    text = report.terminal_report(recs, references=[dict(case="c1", ok=True)])
    assert "drift" in text and "3 differ" in text and "first mismatch: out(1, 2)" in text
    assert "Checked 3 launches: 1 drift, 1 skipped, 1 pass" in text
    report.write_json(tmp_path / "r.json", recs, "cpu")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["ok"] is False and len(data["launches"]) == 3
    for rec in data["launches"]:
        assert {"case", "kernel", "backend", "verdict", "metrics"} <= set(rec)
    page = report.html_report(recs, "cpu")
    svgs = page.count("<svg")
    assert svgs >= 3                        # per case, distribution, heat map
    for chunk in page.split("<svg")[1:]:
        ET.fromstring("<svg" + chunk.split("</svg>")[0] + "</svg>")   # well-formed SVG
    assert "matplotlib" not in page


def test_classify_with_canary_trial():
    nan = float("nan")
    s = [_t(nan, nan, nan)]                 # outputs arrive poisoned (corpus): T1 is T0
    o = [_t(1, 2, 3)]
    canary = {0: _t(500.25, -77.5, 3.75)}
    co = [_t(1, 2, 3)]
    # never writes the last element: it keeps the poison, then the canary's exact bits
    r = [_t(1, 2, nan)]
    res = classify(["out"], s, o, r, None, o, r, {0}, None, [], [], CO=co,
                   CR=[_t(1, 2, 3.75)], canary=canary)
    assert res["verdict"] == "unwritten"
    # accumulates into the output: NaN + x in T0/T1, canary + x in T2
    r = [_t(nan, nan, nan)]
    res = classify(["out"], s, o, r, None, o, r, {0}, None, [], [], CO=co,
                   CR=[_t(501.25, -75.5, 6.75)], canary=canary)
    assert res["verdict"] == "drift"
    assert any("reads the output before writing" in f.get("detail", "")
               for f in res["findings"])
