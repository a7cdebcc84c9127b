"""Tiled views and dtypes passed to helpers, helpers called with several kinds of arguments,
compile-time tuple comparisons, and tiled views whose tile shape is () (one element per tile).
Each translation runs (TRITON_INTERPRET=1) on random data whose length is not a multiple of the
tile, against a float64 reference."""
import pytest
import torch

import tile2triton
from tile2triton import interp, translate_source


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def test_view_dtype_and_shape_checked_in_a_helper(ct):
    def check(view, dtype, tile_shape):
        got_dtype, got_shape = view.dtype, view.tile_shape
        ct.static_assert(got_dtype == dtype)
        ct.static_assert(got_shape == tile_shape)

    def twice(view, i, j):
        return view.load((i, j)) * 2

    @ct.kernel
    def k(x, y, n, TM: ct.Constant[int], TN: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        vx = x.tiled_view((TM, TN), padding_mode=ct.PaddingMode.ZERO)
        check(vx, x.dtype, (TM, TN))
        vy = y.tiled_view((TM, TN))
        check(vy, y.dtype, (TM, TN))
        vn = n.tiled_view(())                      # one element per tile
        check(vn, n.dtype, ())
        vy.store((i, j), twice(vx, i, j))
        if i == 0 and j == 0:
            vn.store(0, vx.num_tiles(0))
            vn.store(1, vx.num_tiles(1))

    g = torch.Generator().manual_seed(2)
    x = torch.randn(45, 70, generator=g, dtype=torch.float64).float()
    y = torch.zeros_like(x)
    n = torch.zeros(2, dtype=torch.int32)
    args = (x, y, n, 16, 32)
    t = tile2triton.translate_kernel(k, args)
    assert "def check_2(" in t.source            # a second specialization of `check`
    t(None, (3, 3), *args)
    torch.testing.assert_close(y.double(), x.double() * 2)
    assert n.tolist() == [3, 3]


def test_tuple_comparisons_fold():
    src = '''
import cuda.tile as ct

@ct.kernel
def k(x, TM: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(TM,))
    ct.static_assert(t.shape == (TM,))
    ct.static_assert((TM, 4) != (TM, 5))
    ct.static_assert((1, 2) != (1, 2, 3))
    ct.store(x, index=(0,), tile=t)
'''
    res = translate_source(src, "m.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert res.output.count("tl.static_assert(True") == 3


def test_false_tuple_comparison_is_reported_by_triton():
    src = '''
import cuda.tile as ct

@ct.kernel
def k(x, TM: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(TM,))
    ct.static_assert(t.shape == (TM, TM), "rank")
    ct.store(x, index=(0,), tile=t)
'''
    res = translate_source(src, "m.py")
    assert res.ok and 'tl.static_assert(False, "rank")' in res.output


def test_helper_specialized_per_array_rank(ct):
    def double(a, idx, shape):
        return ct.load(a, index=idx, shape=shape) * 2

    @ct.kernel
    def k(x1, y1, x2, y2, T: ct.Constant[int]):
        ct.store(y1, index=(0,), tile=double(x1, (0,), (T,)))
        ct.store(y2, index=(0, 0), tile=double(x2, (0, 0), (T, T)))

    g = torch.Generator().manual_seed(4)
    x1 = torch.randn(50, generator=g)
    x2 = torch.randn(50, 8, generator=g)
    y1, y2 = torch.zeros_like(x1), torch.zeros_like(x2)
    # the arrays are only indexed through the helper, by a tuple parameter: the launch
    # tells their ranks
    t = tile2triton.translate_kernel(k, (x1, y1, x2, y2, 64))
    assert "def double(" in t.source and "def double_2(" in t.source
    t(None, (1,), x1, y1, x2, y2, 64)
    torch.testing.assert_close(y1.double(), x1.double() * 2)
    torch.testing.assert_close(y2.double(), x2.double() * 2)


def test_view_store_broadcasts_to_the_view_tile(ct):
    @ct.kernel
    def k(x, y, s, TM: ct.Constant[int], TN: ct.Constant[int]):
        row = x.tiled_view((1, TN)).load((0, 0))           # (1, TN) -> (TM, TN)
        y.tiled_view((TM, TN)).store((ct.bid(0), 0), row)
        one = s.tiled_view(()).load((0, 0))                # 0-d -> (TM, TN)
        y.tiled_view((TM, TN)).store((ct.bid(0), 1), one)

    g = torch.Generator().manual_seed(6)
    x = torch.randn(1, 32, generator=g)
    s = torch.randn(1, 1, generator=g)
    y = torch.zeros(37, 64)
    args = (x, y, s, 16, 32)
    tile2triton.translate_kernel(k, args)(None, (3,), *args)
    ref = torch.cat([x.expand(37, 32), s.expand(37, 32)], dim=1)
    assert torch.equal(y, ref)


def test_zero_d_tiles_with_traversal_steps(ct):
    @ct.kernel
    def k(x, out, SH: ct.Constant[int], SW: ct.Constant[int], NH: ct.Constant[int],
          NW: ct.Constant[int]):
        tv = x.tiled_view((), traversal_steps=(SH, SW))
        ct.static_assert(tv.traversal_steps == (SH, SW))
        ct.static_assert(out.tiled_view(()).traversal_steps == (1,))
        o = out.tiled_view(())
        for i in range(NH):
            for j in range(NW):
                o.store(i * NW + j, tv.load((i, j)))

    g = torch.Generator().manual_seed(8)
    x = torch.randn(7, 11, generator=g)
    out = torch.zeros(4 * 4)
    args = (x, out, 2, 3, 4, 4)
    tile2triton.translate_kernel(k, args)(None, (1,), *args)
    assert torch.equal(out, x[::2, ::3].flatten())


def test_view_rebound_in_a_loop_is_a_runtime_choice(ct):
    @ct.kernel
    def k(x, y, z, T: ct.Constant[int]):
        tv = x.tiled_view(T)
        out = z.tiled_view(T)
        for i in range(out.num_tiles(0)):
            out.store(i, tv.load(0) + 1)
            tv = y.tiled_view(T)

    g = torch.Generator().manual_seed(9)
    x, y = torch.randn(64, generator=g), torch.randn(64, generator=g)
    z = torch.zeros(192)
    tile2triton.translate_kernel(k)(None, (1,), x, y, z, 64)
    torch.testing.assert_close(z.double(), torch.cat([x, y, y]).double() + 1)


def test_tile_shape_from_a_closure_tuple_gives_the_rank(ct):
    shape = (8, 16)

    @ct.kernel
    def k(x, y):
        tv = x.tiled_view(shape, padding_mode=ct.PaddingMode.ZERO)
        ct.static_assert(tv.traversal_steps == shape)
        y.tiled_view(shape).store((ct.bid(0), ct.bid(1)), tv.load((ct.bid(0), ct.bid(1))))

    g = torch.Generator().manual_seed(10)
    x = torch.randn(19, 30, generator=g)
    y = torch.zeros_like(x)
    tile2triton.translate_kernel(k)(None, (3, 2), x, y)
    assert torch.equal(y, x)
