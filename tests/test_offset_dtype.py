"""64-bit offsets are chosen once per function: its inline tile accesses cast their tile index to
one constexpr dtype defined at the function's top from the launcher's USE_INT64, instead of an
`if USE_INT64:` block before every access."""
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct


@ct.kernel
def scale_rows(x, y, w, TN: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, TN), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(w, (row,), (1,))
    ct.store(y, (row, 0), t * ct.reshape(s, (1, 1)))
'''


def test_one_offset_dtype_per_function_and_no_branch_per_access():
    res = translate_source(SRC, "scale_rows.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    text = res.output
    assert "if USE_INT64:" not in text
    assert text.count("OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32") == 1
    assert "offs_row = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)" in text
    assert "offs_tn = tl.arange(0, TN).to(OFFSET_DTYPE)" in text


def test_both_offset_widths_compute_the_same(tmp_path, monkeypatch):
    path = tmp_path / "scale_rows_triton.py"
    path.write_text(translate_source(SRC, "scale_rows.py").output)
    mod = load_module(path, "scale_rows_triton")
    g = torch.Generator().manual_seed(3)
    x = torch.randn(7, 45, generator=g)
    w = torch.randn(7, generator=g)
    want = x.double() * w.double()[:, None]
    for wide in (False, True):
        monkeypatch.setattr(mod, "_needs_int64", lambda *a, wide=wide: wide)
        y = torch.full((7, 45), float("nan"))
        mod.launch_scale_rows(None, (7,), x, y, w, 64)
        assert torch.allclose(y.double(), want, rtol=1e-6, atol=1e-6), wide
