"""TiledView.atomic_store_<op>, helpers that return a view's bound method (resolved where they are
called), one-line function bodies, and conditional expressions choosing a view. Each translation
runs (TRITON_INTERPRET=1) on random data whose extents are not multiples of the tile, against an
int64 / float64 torch reference."""
import pytest
import torch

import tile2triton
from tile2triton import interp, translate_source


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def add_of(tv): return tv.atomic_store_add     # noqa: E704 - one-line bodies, on purpose
def max_of(tv): return tv.atomic_store_max     # noqa: E704
def min_of(tv): return tv.atomic_store_min     # noqa: E704
def and_of(tv): return tv.atomic_store_and     # noqa: E704
def or_of(tv): return tv.atomic_store_or       # noqa: E704
def xor_of(tv): return tv.atomic_store_xor     # noqa: E704


OPS = {"add": (add_of, lambda a, b: a + b), "max": (max_of, torch.maximum),
       "min": (min_of, torch.minimum), "and": (and_of, lambda a, b: a & b),
       "or": (or_of, lambda a, b: a | b), "xor": (xor_of, lambda a, b: a ^ b)}


def make_kernel(ct, method_of, steps):
    @ct.kernel
    def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        tv = x.tiled_view((TM, TN), traversal_steps=steps)
        upd = y.tiled_view((TM, TN), traversal_steps=steps).load((i, j))
        method_of(tv)((i, j), upd)       # a closure helper giving a bound view method
    return k


def reference(x, y, op, tile, steps):
    """Each block combines its window of y into the same window of x (windows overlap when the
    steps are smaller than the tile: the overlap is combined once per window)."""
    out = x.clone()
    for r in range(0, x.shape[0], steps[0]):
        for c in range(0, x.shape[1], steps[1]):
            win = (slice(r, r + tile[0]), slice(c, c + tile[1]))
            out[win] = op(out[win], y[win])
    return out


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("steps", [None, (12, 20)])
def test_view_atomics_through_a_method_helper(ct, name, steps):
    method_of, op = OPS[name]
    g = torch.Generator().manual_seed(len(name) + (steps is not None))
    shape, tile = (45, 70), (16, 32)
    x = torch.randint(-1000, 1000, shape, generator=g, dtype=torch.int32)
    y = torch.randint(-1000, 1000, shape, generator=g, dtype=torch.int32)
    k = make_kernel(ct, method_of, steps)
    st = steps or tile
    grid = (-(-shape[0] // st[0]), -(-shape[1] // st[1]))
    t = tile2triton.translate_kernel(k, (x, y, *tile))
    assert f"tl.atomic_{name}(ptrs, value, mask=mask" in t.source
    want = reference(x.long(), y.long(), op, tile, st)
    t(None, grid, x, y, *tile)
    assert torch.equal(x.long(), want)


def test_view_atomic_add_casts_floats(ct):
    @ct.kernel
    def k(x, y, T: ct.Constant[int]):
        tv = x.tiled_view((T,))
        tv.atomic_store_add(ct.bid(0), y.tiled_view((T,)).load(ct.bid(0)))
        tv.atomic_store_add(ct.bid(0), 0.5)          # a scalar update

    g = torch.Generator().manual_seed(3)
    x = torch.randn(100, generator=g, dtype=torch.float64).float()
    y = torch.randn(100, generator=g, dtype=torch.float64).half()
    want = x.double() + y.double() + 0.5
    tile2triton.translate_kernel(k, (x, y, 32))(None, (4,), x, y, 32)
    torch.testing.assert_close(x.double(), want, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("tile,update", [((16, 16), ()), ((32, 16), (1, 16)),
                                         ((16, 32), (16, 1)), ((32, 16), (1, 1)),
                                         ((8, 16), (16,))])
def test_view_atomic_update_broadcasts(ct, tile, update):
    first = (0,) * len(update) if update else (0, 0)

    @ct.kernel
    def k(x, y):
        u = y.tiled_view(update).load(first)
        x.tiled_view(tile).atomic_store_add((ct.bid(0), 0), u)

    g = torch.Generator().manual_seed(5)
    rows = tile[0] * 2 + 3                      # the last block's window is partly outside
    x = torch.randn(rows, tile[1], generator=g, dtype=torch.float64).float()
    y = torch.randn(update if update else (1, 1), generator=g, dtype=torch.float64).float()
    want = x.double()
    for b in range(3):                          # each block adds the update, broadcast, to its tile
        part = want[b * tile[0]:(b + 1) * tile[0]]
        part += torch.broadcast_to(y.double(), tile)[:len(part)]
    tile2triton.translate_kernel(k, (x, y))(None, (3,), x, y)
    torch.testing.assert_close(x.double(), want, atol=1e-6, rtol=1e-6)


def test_view_atomic_zero_d_tiles(ct):
    @ct.kernel
    def k(x, y, n):
        tv = x.tiled_view((), traversal_steps=(2, 3))   # one element every 2 rows, 3 columns
        for i in range(n):
            tv.atomic_store_max((ct.bid(0), i), y.tiled_view(()).load((ct.bid(0), i)))

    g = torch.Generator().manual_seed(6)
    x = torch.randint(-50, 50, (9, 10), generator=g, dtype=torch.int64)
    y = torch.randint(-50, 50, (5, 4), generator=g, dtype=torch.int64)
    want = x.clone()
    want[::2, ::3] = torch.maximum(want[::2, ::3], y)
    tile2triton.translate_kernel(k, (x, y, 4))(None, (5,), x, y, 4)
    assert torch.equal(x, want)


def test_view_atomic_update_of_another_shape_is_reported():
    src = '''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    tv = x.tiled_view((16,))
    tv.atomic_store_add(0, y.tiled_view((8,)).load(0))
'''
    res = translate_source(src, "m.py")
    [d] = res.diagnostics()
    assert (d.code, d.line) == ("T2T105", 7)
    assert "(8,) is not broadcastable to the view's tile shape (16,)" in d.message


@pytest.mark.parametrize("use_x", [True, False])
def test_conditional_expression_chooses_a_view(ct, use_x):
    @ct.kernel
    def k(x, y, z, T: ct.Constant[int], USE_X: ct.Constant[bool]):
        tv = x.tiled_view(T, padding_mode=ct.PaddingMode.ZERO) if USE_X \
            else y.tiled_view(T, padding_mode=ct.PaddingMode.ZERO)
        src = x if USE_X else y
        out = z.tiled_view(T)
        for i in range(tv.num_tiles(0)):
            out.store(i, tv.load(i) + ct.load(src, (i,), (T,), padding_mode=ct.PaddingMode.ZERO))

    g = torch.Generator().manual_seed(7)
    x = torch.randn(100, generator=g, dtype=torch.float64).float()
    y = torch.randn(70, generator=g, dtype=torch.float64).float()   # fewer tiles than x
    z = torch.zeros(128)
    tile2triton.translate_kernel(k)(None, (1,), x, y, z, 32, use_x)
    chosen = (x if use_x else y).double()
    want = torch.zeros(128, dtype=torch.float64)
    want[:len(chosen)] = chosen * 2
    torch.testing.assert_close(z.double(), want, atol=1e-6, rtol=1e-6)


def test_conditional_views_of_other_tile_shapes_are_reported():
    src = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, z, USE_X: ct.Constant[bool]):
    tv = x.tiled_view(16) if USE_X else y.tiled_view(32)
    z.tiled_view(16).store(0, tv.load(0))
'''
    res = translate_source(src, "m.py")
    [d] = res.diagnostics()
    assert (d.code, d.line) == ("T2T105", 6)
    assert "different ranks, tile shapes" in d.message
