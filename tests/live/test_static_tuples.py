"""Tuples built at translation time (`(0,) * len(shape)`, `t + (0,)`) as indices, tiles made
from nested tuples and stored whole, numbers reshaped into tiles, and new axes written with
`np.newaxis` and `...`. Each translation runs (TRITON_INTERPRET=1) on random data whose extents
are not multiples of the tile, against a torch reference."""
import importlib.util

import pytest
import torch

import tile2triton
from tile2triton import interp


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def _shape(v):
    return (len(v),) + _shape(v[0]) if isinstance(v, tuple) else ()


@pytest.mark.parametrize("value", [(3,), (((3,),),), (3, -4), ((1, 2), (3, 4)),
                                   (((1, 2), (3, 4)), ((5, 6), (7, 8)))])
def test_astile_stored_at_a_computed_index(ct, value):
    shape = _shape(value)

    @ct.kernel
    def k(X):
        t = ct.astile(value, dtype=ct.int32)
        idx = ct.static_eval((0,) * len(shape))          # the rank comes from the launch
        ct.store(X, idx, t + ct.bid(0))

    x = torch.zeros(shape, dtype=torch.int32)
    t = tile2triton.translate_kernel(k, (x,))
    t(None, (1,), x)
    assert torch.equal(x, torch.tensor(value, dtype=torch.int32))


def test_tuple_concatenation_is_an_index(ct):
    @ct.kernel
    def k(x, y, T: ct.Constant[int]):
        head = (ct.bid(0),)
        idx = head + (0,)
        ct.store(y, idx, ct.load(x, idx, (T, T), padding_mode=ct.PaddingMode.ZERO) * 3)

    g = torch.Generator().manual_seed(12)
    x = torch.randn(37, 20, generator=g, dtype=torch.float64).float()
    y = torch.zeros_like(x)
    tile2triton.translate_kernel(k, (x, y, 32))(None, (2,), x, y, 32)
    torch.testing.assert_close(y.double(), x.double() * 3)


def test_numbers_reshaped_into_tiles(ct):
    @ct.kernel
    def k(x, y):
        a = ct.reshape(4, (1, 1, 1))                      # int32
        b = ct.reshape(2.5, (1, 1))                       # float32
        ct.store(x, (0, 0, 0), a)
        ct.store(y, (0, 0), b * a.reshape((1, 1)))

    x = torch.zeros((1, 1, 1), dtype=torch.int32)
    y = torch.zeros((1, 1))
    tile2triton.translate_kernel(k, (x, y))(None, (1,), x, y)
    assert x.item() == 4 and y.item() == 10.0


NEW_AXES = [            # (expression, torch reference, store index)
    ("a[:, :, np.newaxis]", lambda t: t.unsqueeze(-1), "(i, j, 0)"),
    ("a[np.newaxis, np.newaxis, :, :]", lambda t: t[None, None], "(0, 0, i, j)"),
    ("a[..., None]", lambda t: t.unsqueeze(-1), "(i, j, 0)"),
    ("a[None, ...]", lambda t: t.unsqueeze(0), "(0, i, j)"),
    ("a[None, ..., np.newaxis]", lambda t: t[None, ..., None], "(0, i, j, 0)"),
    ("a[:, ..., :]", lambda t: t, "(i, j)"),
]


@pytest.mark.parametrize("expr,ref,index", NEW_AXES, ids=[e for e, _, _ in NEW_AXES])
def test_new_axes(tmp_path, expr, ref, index):
    src = f"""
import cuda.tile as ct
import numpy as np

@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(x, (i, j), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, {index}, {expr} * 2)
"""
    res = tile2triton.translate_source(src, "m.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    path = tmp_path / "new_axes_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location(f"t2t_new_axes_{len(expr)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g = torch.Generator().manual_seed(len(expr))
    x = torch.randn(37, 20, generator=g, dtype=torch.float64).float()
    y = torch.zeros(ref(x).shape)
    mod.launch_k(None, (3, 2), x, y, 16, 16)
    torch.testing.assert_close(y.double(), ref(x.double()) * 2)
