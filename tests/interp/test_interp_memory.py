"""Loads, stores, padding modes, orders, tile spaces, gathers/scatters, atomics, launches."""

import math
import sys
import textwrap
import warnings

import pytest
import torch

from tile2triton import interp
from tile2triton.interp import ct

ZERO = ct.PaddingMode.ZERO


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@ct.kernel
def _copy_1d(x, out, T: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(out, (b,), ct.load(x, (b,), (T,)))


def test_copy_non_multiple_shape_and_oob_store_dropped():
    x = torch.randn(1000, generator=gen())
    out = torch.full((1000,), math.nan)
    ct.launch(None, (ct.cdiv(1000, 128),), _copy_1d, (x, out, 128))   # last tile: 104 lanes
    assert torch.equal(out, x)
    big = torch.full((1010,), math.nan)
    ct.launch(None, (1,), _copy_1d, (x[:4], big[:6], 8))   # stores only the 6 in-bounds lanes
    assert torch.equal(big[:4], x[:4]) and torch.isnan(big[6:]).all()


@ct.kernel
def _add_2d(x, y, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(x, (i, j), (TM, TN))
    b = ct.load(y, index=(i, j), shape=(TM, TN))
    ct.store(out, (i, j), a * 2.0 - b)


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_elementwise_2d(dt):
    x = torch.randn(37, 70, generator=gen(1)).to(dt)
    y = torch.randn(37, 70, generator=gen(2)).to(dt)
    out = torch.empty(37, 70, dtype=dt)
    ct.launch(None, (ct.cdiv(37, 16), ct.cdiv(70, 32)), _add_2d, (x, y, out, 16, 32))
    # one rounding per operation in the array dtype
    cdt = torch.float64 if dt == torch.float64 else torch.float32
    exp = ((x.to(cdt) * 2.0).to(dt).to(cdt) - y.to(cdt)).to(dt)
    assert torch.equal(out, exp)


@ct.kernel
def _pad_probe(x, out, MODE: ct.Constant):
    ct.store(out, (0,), ct.load(x, (1,), (8,), padding_mode=MODE))


@pytest.mark.parametrize("mode,expect", [
    (ct.PaddingMode.ZERO, 0.0), (ct.PaddingMode.NEG_ZERO, -0.0),
    (ct.PaddingMode.NAN, math.nan), (ct.PaddingMode.POS_INF, math.inf),
    (ct.PaddingMode.NEG_INF, -math.inf)])
def test_padding_modes(mode, expect):
    x = torch.arange(11, dtype=torch.float32)
    out = torch.empty(8)
    ct.launch(None, (1,), _pad_probe, (x, out, mode))
    assert torch.equal(out[:3], x[8:11])
    tail = out[3:]
    if math.isnan(expect):
        assert torch.isnan(tail).all()
    else:
        assert (tail == expect).all()
        assert bool(torch.signbit(tail).all()) == (math.copysign(1, expect) < 0)


def test_padding_undetermined_differs_between_runs():
    x = torch.arange(11, dtype=torch.float32)
    outs = []
    for _ in range(3):
        out = torch.empty(8)
        ct.launch(None, (1,), _pad_probe, (x, out, ct.PaddingMode.UNDETERMINED))
        assert torch.equal(out[:3], x[8:11])
        outs.append(out[3:].clone())
    assert not torch.equal(outs[0], outs[1]) and not torch.equal(outs[1], outs[2])
    assert bool((torch.cat(outs).abs() > 1e3).any())           # includes large magnitudes


def test_padding_undetermined_is_seedable():
    x = torch.arange(11, dtype=torch.float32)
    res = []
    for _ in range(2):
        interp.seed_undetermined(1234)
        out = torch.empty(8)
        ct.launch(None, (1,), _pad_probe, (x, out, ct.PaddingMode.UNDETERMINED))
        res.append(out)
    assert torch.equal(res[0], res[1])


@ct.kernel
def _sum_with_default_padding(x, out, T: ct.Constant[int]):
    ct.store(out, (0,), ct.sum(ct.load(x, (0,), (T,))))


def test_result_depending_on_undetermined_padding_is_caught():
    x = torch.ones(5)
    vals = set()
    for _ in range(3):
        out = torch.empty(1)
        ct.launch(None, (1,), _sum_with_default_padding, (x, out, 8))
        vals.add(out.item())
    assert len(vals) > 1 and 5.0 not in vals


def test_nan_padding_on_int_array_is_an_error():
    x = torch.arange(11, dtype=torch.int32)
    out = torch.empty(8, dtype=torch.int32)
    with pytest.raises(interp.TileTypeError, match="ct.load"):
        ct.launch(None, (1,), _pad_probe, (x, out, ct.PaddingMode.NAN))


@ct.kernel
def _load_order_f(x, out):
    for i in range(4):
        ct.store(out, (i, 0), ct.load(x, (i, 0), shape=(1, 4), order="F"))


def test_order_f_matches_documented_example():
    x = torch.arange(16).reshape(4, 4)
    out = torch.empty(4, 4, dtype=torch.int64)
    ct.launch(None, (1,), _load_order_f, (x, out))
    assert out.tolist() == [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]


@ct.kernel
def _transpose_tiles(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (j, i), (TN, TM), order="F", padding_mode=ZERO)   # t[n, m] = x[i*TM+m, j*TN+n]
    ct.store(out, (j, i), t)


def test_order_f_transposes_non_multiple():
    x = torch.randn(45, 70, generator=gen(3))
    out = torch.full((70, 45), math.nan)
    ct.launch(None, (ct.cdiv(45, 16), ct.cdiv(70, 32)), _transpose_tiles, (x, out, 16, 32))
    assert torch.equal(out, x.T)


@ct.kernel
def _order_tuple(x, out):
    for i in range(2):
        ct.store(out, (i, 0, 0), ct.load(x, (i, 0, 0), shape=(1, 2, 2), order=(0, 2, 1)))


def test_order_tuple_3d():
    x = torch.arange(8).reshape(2, 2, 2)
    out = torch.empty(2, 2, 2, dtype=torch.int64)
    ct.launch(None, (1,), _order_tuple, (x, out))
    assert out.tolist() == [[[0, 2], [1, 3]], [[4, 6], [5, 7]]]


@ct.kernel
def _order_store(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (TM, TN))
    ct.store(out, (j, i), ct.transpose(t), order="F")   # writes out[i*TM+m, j*TN+n] = x[...]


def test_store_with_order_f():
    x = torch.randn(33, 20, generator=gen(4))
    out = torch.full((33, 20), math.nan)
    ct.launch(None, (ct.cdiv(33, 8), ct.cdiv(20, 8)), _order_store, (x, out, 8, 8))
    assert torch.equal(out, x)


@ct.kernel
def _scalar_stores(x):
    ct.store(x, (0, 0), tile=0)
    ct.store(x, (0, 1), tile=1)
    ct.store(x, (1, 0), tile=2)
    ct.store(x, (1, 1), tile=ct.full((), 3, ct.int32))


def test_scalar_store_broadcasts():
    x = torch.zeros(2, 2, dtype=torch.int32)
    ct.launch(None, (1,), _scalar_stores, (x,))
    assert x.tolist() == [[0, 1], [2, 3]]


@ct.kernel
def _scalar_loads(x, out):
    acc = ct.zeros((), ct.int64)
    for i in range(10):
        acc = acc + ct.load(x, (i,), shape=(), latency=3, allow_tma=False, check_bounds=True)
    ct.store(out, (0,), acc)


def test_scalar_load_and_hints():
    x = torch.arange(10)
    out = torch.zeros(1, dtype=torch.int64)
    ct.launch(None, (1,), _scalar_loads, (x, out))
    assert out.item() == 45


@ct.kernel
def _store_f32_into_f16(x, out):
    ct.store(out, (0,), ct.load(x, (0,), (4,)).astype(ct.float32))


def test_store_requires_implicitly_castable_dtype():
    x = torch.zeros(4, dtype=torch.float16)
    out = torch.zeros(4, dtype=torch.float16)
    with pytest.raises(interp.TileTypeError, match="ct.store.*float32 to float16"):
        ct.launch(None, (1,), _store_f32_into_f16, (x, out))


@ct.kernel
def _store_f16_into_f32(x, out):
    ct.store(out, (0,), ct.load(x, (0,), (4,)))


def test_store_widens_implicitly():
    x = torch.randn(4, generator=gen(5)).half()
    out = torch.zeros(4)
    ct.launch(None, (1,), _store_f16_into_f32, (x, out))
    assert torch.equal(out, x.float())


@ct.kernel
def _bad_rank(x):
    ct.load(x, (0,), (4, 4))


@ct.kernel
def _bad_index_rank(x):
    ct.load(x, (0,), (4,))


@ct.kernel
def _non_pow2(x):
    ct.load(x, (0, 0), (4, 3))


def test_misuse_errors_name_the_construct():
    x = torch.zeros(8, 8)
    with pytest.raises(interp.TileTypeError, match=r"ct\.load: index has 1 element"):
        ct.launch(None, (1,), _bad_index_rank, (x,))
    with pytest.raises(interp.TileTypeError, match=r"ct\.load: index has 1"):
        ct.launch(None, (1,), _bad_rank, (x,))
    with pytest.raises(interp.TileValueError, match=r"ct\.load: tile dimensions must be powers"):
        ct.launch(None, (1,), _non_pow2, (x,))


@ct.kernel
def _entirely_outside(x, out):
    ct.store(out, (0,), ct.load(x, (5,), (4,), padding_mode=ZERO))


def test_entirely_outside_warns_undefined_behavior():
    x = torch.ones(8)
    out = torch.zeros(4)
    with pytest.warns(interp.UndefinedBehaviorWarning, match="entirely outside"):
        ct.launch(None, (1,), _entirely_outside, (x, out))


@ct.kernel
def _grid_probe(out):
    b0, b1, b2 = ct.bid(0), ct.bid(1), ct.bid(2)
    n0, n1, n2 = ct.num_blocks(0), ct.num_blocks(1), ct.num_blocks(2)
    ct.store(out, (b0, b1, b2, 0), ct.full((1, 1, 1, 4), 0, ct.int32) + b0 * 100 + b1 * 10 + b2
             + ct.arange(4, dtype=ct.int32).reshape((1, 1, 1, 4)) * 0 + (n0 * n1 * n2 - 24) * 1000)


def test_3d_grid_bid_num_blocks():
    out = torch.full((2, 3, 4, 4), -1, dtype=torch.int32)
    ct.launch(None, (2, 3, 4), _grid_probe, (out,))
    exp = torch.tensor([[[[i * 100 + j * 10 + k] * 4 for k in range(4)] for j in range(3)]
                        for i in range(2)])
    assert torch.equal(out, exp.to(torch.int32))


@ct.kernel
def _num_tiles_probe(x, out):
    ct.store(out, (0,), ct.num_tiles(x, 0, shape=(4, 8)))
    ct.store(out, (1,), ct.num_tiles(x, 1, shape=(4, 8)))
    ct.store(out, (2,), ct.num_tiles(x, 0, shape=(4, 8), order="F"))


def test_num_tiles():
    x = torch.empty(42, 64)
    out = torch.zeros(3, dtype=torch.int32)
    ct.launch(None, (1,), _num_tiles_probe, (x, out))
    assert out.tolist() == [11, 8, 16]


@ct.kernel
def _arg_types(x, out, n, f, C: ct.Constant[int]):
    ct.store(out, (0,), ct.full((), 1 if isinstance(n, ct.Tile) and n.dtype == ct.int32 else 0,
                                ct.int32))
    ct.store(out, (1,), ct.full((), 1 if isinstance(f, ct.Tile) and f.dtype == ct.float32 else 0,
                                ct.int32))
    ct.store(out, (2,), ct.full((), 1 if type(C) is int else 0, ct.int32))
    ct.store(out, (3,), ct.full((), 1 if isinstance(x.shape[0], ct.Tile) else 0, ct.int32))


def test_kernel_argument_typing():
    out = torch.zeros(4, dtype=torch.int32)
    ct.launch(None, (1,), _arg_types, (torch.zeros(3), out, 7, 0.5, 3))
    assert out.tolist() == [1, 1, 1, 1]


@ct.kernel
def _gather_scatter(x, idx, out, T: ct.Constant[int]):
    i = ct.load(idx, (0,), (T,), padding_mode=ZERO)
    v = ct.gather(x, i, mask=i != 3, padding_value=-1.0)
    ct.scatter(out, ct.arange(T, dtype=ct.int32) * 2, v)


def test_gather_scatter_bounds_and_mask():
    x = torch.arange(10, dtype=torch.float32)
    idx = torch.tensor([0, 9, 10, -1, 3, 5, 7, 2], dtype=torch.int32)
    out = torch.full((9,), 100.0)
    ct.launch(None, (1,), _gather_scatter, (x, idx, out, 8))
    # gathered: [0, 9, -1(oob), -1(neg), -1(mask), 5, 7, 2]; scattered to 0,2,..,14 (oob dropped)
    assert out.tolist() == [0, 100, 9, 100, -1, 100, -1, 100, -1]


@ct.kernel
def _atomics(x, cnt):
    idx = ct.full((8,), 1, ct.int32)
    ct.atomic_add(cnt, idx, ct.ones((8,), ct.int32))
    old = ct.atomic_max(x, ct.arange(4, dtype=ct.int32), ct.full((4,), 2, ct.int32))
    ct.atomic_add(cnt, (0,), ct.sum(old))


def test_atomics_with_duplicate_indices():
    x = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    cnt = torch.zeros(2, dtype=torch.int32)
    ct.launch(None, (3,), _atomics, (x, cnt))
    assert cnt.tolist() == [6 + 9 + 9, 24]   # old values: [0,1,2,3] then [2,2,2,3] twice
    assert x.tolist() == [2, 2, 2, 3]


@ct.kernel
def _cas(x, out):
    old = ct.atomic_cas(x, ct.arange(4, dtype=ct.int32), ct.zeros((4,), ct.int32),
                        ct.full((4,), 42, ct.int32))
    ct.store(out, (0,), old)


def test_atomic_cas():
    x = torch.tensor([0, 1, 0, 1], dtype=torch.int32)
    out = torch.zeros(4, dtype=torch.int32)
    ct.launch(None, (1,), _cas, (x, out))
    assert out.tolist() == [0, 1, 0, 1] and x.tolist() == [42, 1, 42, 1]


@ct.kernel
def _views(x, y):
    tv = x.tiled_view((2, 4), padding_mode=ZERO)
    ct.store(y, (0, 0), tv.load((1, 0)))
    tv2 = x.tiled_view((2, 4), traversal_steps=(1, 4))
    ct.store(y, (1, 0), tv2.load((1, 0)))
    sub = x.slice(axis=0, start=1, stop=3)
    ct.store(y, (2, 0), ct.load(sub, (0, 0), shape=(2, 4)))


def test_tiled_view_and_slice():
    x = torch.arange(16).reshape(4, 4)
    y = torch.zeros(6, 4, dtype=torch.int64)
    ct.launch(None, (1,), _views, (x, y))
    assert y.tolist() == [[8, 9, 10, 11], [12, 13, 14, 15], [4, 5, 6, 7], [8, 9, 10, 11],
                          [4, 5, 6, 7], [8, 9, 10, 11]]


@ct.kernel
def _adv(x, y, col_start):
    rows = ct.arange(4, dtype=ct.int32)
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(col_start, 4)), padding_mode=ZERO)
    ct.store(y, (0, 0), t)


def test_load_advanced_indexing():
    x = torch.arange(64, dtype=torch.int32).reshape(8, 8)
    y = torch.zeros(4, 4, dtype=torch.int32)
    ct.launch(None, (1,), _adv, (x, y, 2))
    assert y.tolist() == [[2, 3, 4, 5], [10, 11, 12, 13], [18, 19, 20, 21], [26, 27, 28, 29]]
    ct.launch(None, (1,), _adv, (x, y, 6))
    assert y[0].tolist() == [6, 7, 0, 0]


def test_load_module_with_interpreter_and_install(tmp_path):
    src = tmp_path / "kern.py"
    src.write_text(textwrap.dedent("""
        import cuda.tile as ct
        from cuda.tile import bid, load, store, Constant

        def helper(t):
            return max(t, 0.0) * 2          # builtin max on tiles -> ct.maximum

        @ct.kernel
        def relu2(x, out, T: Constant[int]):
            store(out, (bid(0),), helper(load(x, (bid(0),), (T,))))

        def launch(stream, x, out):
            ct.launch(stream, (ct.cdiv(x.shape[0], 32),), relu2, (x, out, 32))
    """))
    before = sys.modules.get("cuda.tile")
    mod = interp.load_module_with_interpreter(src)
    assert sys.modules.get("cuda.tile") is before
    assert mod.ct is interp.ct
    x = torch.randn(100, generator=gen(6))
    out = torch.empty(100)
    mod.launch(None, x=x, out=out)
    assert torch.equal(out, torch.clamp(x, min=0) * 2)


def test_run_kernel_rebinds_a_real_cuda_tile_kernel():
    real = pytest.importorskip("cuda.tile")
    if getattr(real, "__interpreter__", False):
        pytest.skip("cuda.tile is the interpreter here")
    ns = {}
    exec(textwrap.dedent("""
        import cuda.tile as ct
        from cuda.tile import exp

        def twice(t):
            return t * 2

        @ct.kernel
        def k(x, out, T: ct.Constant[int]):
            ct.store(out, (ct.bid(0),), twice(exp(ct.load(x, (ct.bid(0),), (T,)))))
    """), ns)
    x = torch.randn(50, generator=gen(7))
    out = torch.empty(50)
    interp.run_kernel(ns["k"], (2,), (x, out, 32))
    torch.testing.assert_close(out, torch.exp(x) * 2)


@ct.kernel
def _raises_in_block(x):
    if ct.bid(0) == 2:
        ct.load(x, (0, 0), (4,))


def test_errors_carry_the_block():
    with pytest.raises(interp.TileTypeError) as ei:
        ct.launch(None, (4,), _raises_in_block, (torch.zeros(4),))
    assert "bid=(2, 0, 0)" in "".join(getattr(ei.value, "__notes__", []))


@ct.kernel
def _raw(x, out):
    mem = x.get_raw_memory()
    v = mem.load_offset(ct.arange(4, dtype=ct.int32) * 2)
    ct.store(out, (0,), v)


def test_raw_memory_load_offset():
    x = torch.arange(8, dtype=torch.float32)
    out = torch.zeros(4)
    ct.launch(None, (1,), _raw, (x, out))
    assert out.tolist() == [0, 2, 4, 6]


def test_check_bounds_false_out_of_bounds_warns():
    @ct.kernel
    def k(x, out):
        ct.store(out, (0,), ct.load(x, (0,), (8,), check_bounds=False))

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ct.launch(None, (1,), k, (torch.ones(5), torch.zeros(8)))
    assert any(issubclass(x.category, interp.UndefinedBehaviorWarning) for x in w)


@ct.kernel(occupancy=2, num_ctas=1)
def _array_attrs(x, out):
    ok = (x.ndim == 2) and (x.dtype == ct.float32) and (x.shape[0] == 3) \
        and (x.shape[1] == 5) and (x.strides[0] == 5)
    t = ct.load(x, (0, 0), (4, 8), padding_mode=ct.PaddingMode.ZERO,
                memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.DEVICE)
    ok = ok and t.shape == (4, 8) and t.ndim == 2 and t.dtype == x.dtype
    ct.store(out, (0,), ct.full((), 1 if ok else 0, ct.int32), memory_order=ct.MemoryOrder.WEAK)


def test_kernel_options_and_array_attributes():
    out = torch.zeros(1, dtype=torch.int32)
    ct.launch(None, (1,), _array_attrs, (torch.zeros(3, 5), out))
    assert out.item() == 1
    k2 = _array_attrs.replace_hints(occupancy=4)
    out.zero_()
    ct.launch(None, (1,), k2, (torch.zeros(3, 5), out))
    assert out.item() == 1
    with pytest.raises(TypeError, match="cannot be called directly"):
        _array_attrs(torch.zeros(3, 5), out)


@ct.function
def _helper(t, s):
    return t * s


@ct.kernel
def _with_helper(x, out, s):
    ct.store(out, (0,), _helper(ct.load(x, (0,), (4,)), s))


def test_ct_function_helpers_and_float_scalar_args():
    x = torch.randn(4, generator=gen(9)).half()
    out = torch.empty(4)
    ct.launch(None, (1,), _with_helper, (x, out, 0.1))
    # a float kernel argument is a float32 scalar, so float16 * it computes in float32
    assert torch.equal(out, x.float() * torch.tensor(0.1, dtype=torch.float32))
