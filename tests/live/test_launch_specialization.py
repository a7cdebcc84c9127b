"""`translate_kernel(kernel, args)`: a kernel that does not translate on its own is translated
for one launch, as cuTile compiles it per launch. The arguments' ranks decide the rank of an
array that compile-time branches index with different ranks; ct.Constant parameters take the
launch's values, so their branches fold and `keepdims=` reads a known bool. Every translation is
run (TRITON_INTERPRET=1) on random data whose extents are not multiples of the tile and compared
with a float64 reference."""
import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.live import launch_specialization
from tile2triton.verify.intercept import Unjudged, translate_launched


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def _rows_kernel(ct, reduce_op):
    @ct.kernel
    def rows(x, out, B: ct.Constant[int], N: ct.Constant[int], keep: ct.Constant[bool]):
        i = ct.bid(0)
        t = ct.load(x, index=(i, 0), shape=(B, N), padding_mode=ct.PaddingMode.ZERO)
        r = reduce_op(t, axis=1, keepdims=keep)
        if keep:
            ct.store(out, index=(i, 0), tile=r)
        else:
            ct.store(out, index=(i,), tile=r)
    return rows


@pytest.mark.parametrize("keep", [True, False])
def test_ranks_and_branches_follow_the_launch(ct, keep):
    k = _rows_kernel(ct, ct.sum)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(45, 50, generator=g, dtype=torch.float64).float()
    out = torch.zeros((45, 1) if keep else (45,))
    args = (x, out, 16, 64, keep)
    # `out`'s rank follows `keep`: the kernel translates on its own, one variant per value of
    # the bool constant (and rank of `out`), and a launch takes the one its arguments name
    t = tile2triton.translate_kernel(k)
    assert "def rows_keep_0_1d(" in t.source and "def rows_keep_1_2d(" in t.source
    assert tile2triton.translate_kernel(k, args) is t
    t(None, (3,), *args)
    ref = x.double().sum(dim=1, keepdim=keep)
    torch.testing.assert_close(out.double(), ref, atol=1e-5, rtol=1e-5)
    other = torch.zeros((45,) if keep else (45, 1))
    t(None, (3,), x, other, 16, 64, not keep)
    ref = x.double().sum(dim=1, keepdim=not keep)
    torch.testing.assert_close(other.double(), ref, atol=1e-5, rtol=1e-5)


def test_keepdims_from_a_constant_parameter(ct):
    @ct.kernel
    def total(x, out, B: ct.Constant[int], N: ct.Constant[int], keep: ct.Constant[bool]):
        t = ct.load(x, index=(0, 0), shape=(B, N), padding_mode=ct.PaddingMode.NEG_INF)
        m = ct.max(t, axis=None, keepdims=keep)
        if keep:
            ct.store(out, index=(0, 0), tile=m)
        else:
            ct.store(out, index=(0, 0), tile=ct.full((1, 1), m.item(), dtype=m.dtype))

    g = torch.Generator().manual_seed(5)
    x = torch.randn(27, 13, generator=g, dtype=torch.float64).float()
    for keep in (True, False):
        out = torch.zeros(1, 1)
        args = (x, out, 32, 16, keep)
        t = tile2triton.translate_kernel(total, args)
        t(None, (1,), *args)
        assert out.item() == x.double().max().item()


def test_a_kernel_that_translates_is_not_specialized(ct):
    @ct.kernel
    def scale(x, out, T: ct.Constant[int], flip: ct.Constant[bool]):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(T,))
        if flip:
            t = -t
        ct.store(out, index=(i,), tile=t)

    x = torch.randn(70)
    out = torch.empty_like(x)
    t = tile2triton.translate_kernel(scale)
    assert tile2triton.translate_kernel(scale, (x, out, 32, True)) is t
    t(None, (3,), x, out, 32, True)
    assert torch.equal(out, -x)
    t(None, (3,), x, out, 32, False)
    assert torch.equal(out, x)


def test_specialization_of_arguments(ct):
    k = _rows_kernel(ct, ct.max)
    x = torch.zeros(4, 4)
    spec = launch_specialization(tile2triton.live.kernel_function(k), (x, x[0], 16, 4, True))
    assert spec.kernel == "rows"
    assert dict(spec.ranks) == {"x": 2, "out": 1}
    assert dict(spec.values) == {"B": 16, "N": 4, "keep": True}
    too_many = (x, x, 1, 2, True, 5)
    assert launch_specialization(tile2triton.live.kernel_function(k), too_many) is None


def test_the_checker_translates_each_launch(ct):
    k = _rows_kernel(ct, ct.min)
    x = torch.randn(20, 30)
    out = torch.zeros(20)
    plan = translate_launched(k, (x, out, 8, 32, False))
    assert not isinstance(plan, Unjudged)
    plan(None, (3,), x, out, 8, 32, False)
    xp = torch.nn.functional.pad(x, (0, 2))             # the zero padding of the last tile
    torch.testing.assert_close(out, xp.amin(dim=1))

    # without a launch too: one variant per value of `keep` and rank of `out`
    assert not isinstance(translate_launched(k), Unjudged)


def test_unknown_rank_comes_from_the_launch(ct):
    @ct.kernel
    def fill(out, v: ct.Constant[float], two_d: ct.Constant[bool]):
        if two_d:
            ct.store(out, index=(ct.bid(0), 0), tile=ct.full((8, 4), v, dtype=ct.float32))
        else:
            ct.store(out, index=(ct.bid(0),), tile=ct.full((8,), v, dtype=ct.float32))

    for shape, two_d in (((19, 3), True), ((19,), False)):
        out = torch.zeros(shape)
        t = tile2triton.translate_kernel(fill, (out, 2.5, two_d))
        t(None, (3,), out, 2.5, two_d)
        assert torch.equal(out, torch.full(shape, 2.5))
