"""Helpers taking `**kwargs` (a dict known at translation time: one Triton parameter per
keyword), `**d` at a call, helpers passed to helpers, and helpers returning compile-time
values, each run side by side with the cuTile reference interpreter on random data whose
length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, compile_messages, gen

N, T = 203, 64
GRID = (-(-N // T),)

SRC = """
def scale_shift(t, **opts):
    if "shift" in opts:
        t = t + opts["shift"]
    if "bias" not in opts:
        t = t * opts.get("scale", 1.0)
    return t


def apply(f, t, **opts):
    return f(t, **opts)


def doubled(**kw):
    return kw["n"] * 2


def checked(**kw):
    ct.static_assert(kw == {"n": 4})
    return 7


@ct.kernel
def affine(x, y, T: ct.Constant[int], S: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    u = apply(scale_shift, t, shift=ct.bid(0) * 1.0, scale=S)
    v = scale_shift(t)
    half = ct.arange(doubled(n=T // 4), dtype=ct.float32)
    w = ct.cat((half, half + checked(n=4)), 0)
    ct.store(y, index=(ct.bid(0),), tile=u + v + w)
"""


@pytest.fixture(scope="module")
def kw(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("kw"), SRC, "kw")


@pytest.mark.parametrize("s", [2, 3])
def test_kwargs_helpers(kw, s):
    x = torch.randn(N, generator=gen(7), dtype=torch.float64).to(torch.float32)
    y = torch.zeros(N)
    r1, r2 = kw.run("affine", GRID, [x, y, T, s])
    xd = x.to(torch.float64)
    block = torch.arange(N) // T
    lane = torch.arange(N) % T
    w = torch.where(lane < T // 2, lane, lane - T // 2 + 7).to(torch.float64)
    want = (xd + block) * s + xd + w
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=1e-5)
    assert torch.equal(r1[1], r2[1])
    # one parameter per keyword; the constant-valued helpers fold where they are called
    assert "opts_shift" in kw.text and "opts_scale" in kw.text
    assert "tl.arange(0, ((T // 4) * 2))" in kw.text and "    checked(4)" in kw.text


def test_kwargs_helpers_compile_for_sm90(kw):
    assert compile_messages(kw.path, "affine",
                            "[((4,), torch.randn(203), torch.zeros(203), 64, 2)]") == ["ok"]
