"""ct.num_tiles with a 0-d tile shape (cuTile reads `()` as a shape of ones) and negative axes,
and compile-time scalars (a ct.Constant, a static stride) stored with ct.store: run side by
side with the cuTile reference interpreter on arrays whose extents are not tile multiples."""
from typing import Annotated  # noqa: F401 (the kernels' annotations)

import pytest
import torch

from side_by_side import Both, gen

SRC = """
from typing import Annotated


@ct.kernel
def counts(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    ct.store(out, (0,), ct.num_tiles(x, 0, ()))
    ct.store(out, (1,), ct.num_tiles(x, -1, ()))
    ct.store(out, (2,), ct.num_tiles(x, -2, (TM, TN)))
    ct.store(out, (3,), ct.num_tiles(x, 0, (TM, TN), order="F"))
    ct.store(out, (4,), ct.num_tiles(x, 1, (1, TN)))


@ct.kernel
def row_sums(x, out, TN: ct.Constant[int]):
    row = ct.bid(0)
    acc = ct.zeros((1, TN), dtype=ct.float32)
    for j in range(ct.num_tiles(x, 1, (1, TN))):
        acc += ct.load(x, (row, j), (1, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (row,), ct.sum(acc) * (row < ct.num_tiles(x, 0, ())))


@ct.kernel
def constants(x: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0, 1))], out,
              K: ct.Constant[int], F: ct.Constant[float]):
    ct.store(out, (0,), K)
    ct.store(out, (1,), x.strides[0])
    ct.store(out, (2,), x.strides[1])
    ct.store(out, (3,), F)
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("tile_counts"), SRC, "tile_counts")


@pytest.mark.parametrize("shape", [(37, 203), (5, 1), (64, 48)])
def test_num_tiles_of_a_zero_d_shape_counts_elements(both, shape):
    x = torch.zeros(shape, dtype=torch.float32)
    out = torch.full((5,), -1, dtype=torch.int32)
    r1, r2 = both.run("counts", (1,), [x, out, 16, 32])
    m, n = shape
    want = [m, n, -(-m // 16), -(-n // 16), -(-n // 32)]
    assert r2[1].tolist() == want and torch.equal(r1[1], r2[1])


def test_num_tiles_bounds_a_loop(both):
    x = torch.randn(19, 203, generator=gen(4), dtype=torch.float64).to(torch.float32)
    out = torch.zeros(19, dtype=torch.float32)
    r1, r2 = both.run("row_sums", (19,), [x, out, 32])
    want = x.to(torch.float64).sum(dim=1)
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-5, atol=1e-5)
    assert torch.allclose(r1[1], r2[1], rtol=1e-5, atol=1e-6)
    assert "for j in range(tl.cdiv(x_shape1, TN)):" in both.text


def test_num_tiles_of_ones_is_the_extent(both):
    assert "tl.cdiv(x_shape0, 1)" not in both.text and "tl.cdiv(x_shape1, 1)" not in both.text


@pytest.mark.parametrize("transposed", [False, True])
def test_storing_compile_time_scalars(both, transposed):
    # (the side-by-side runner clones its arguments: a layout with gaps would come back dense)
    x = torch.randn(7, 5, generator=gen(5))
    x = x.t() if transposed else x
    out = torch.zeros(4, dtype=torch.float64)
    r1, r2 = both.run("constants", (1,), [x, out, 12, 2.5])
    assert r2[1].tolist() == [12.0, float(x.stride(0)), float(x.stride(1)), 2.5]
    assert torch.equal(r1[1], r2[1])


HELPER_SRC = """
def pick(a, b, c):
    return c, (a, b), c.shape[0]


def swapped(a, b):
    return b, a


@ct.kernel
def via_helper(x: ct.Array, y: ct.Array, z: ct.Array, T: ct.Constant[int]):
    n = x.shape[0] + y.shape[0]     # (ranks: arrays used only through helpers are not ranked)
    first = pick(x, y, z)[1:]
    inner = first[0]
    dst = swapped(x, y)[:1][0]
    t = ct.load(inner[0], (ct.bid(0),), (T,)) + ct.load(z, (ct.bid(0),), (T,))
    ct.store(dst, (ct.bid(0),), t * (1, 2, 3, 4)[::-2][1])
"""


def test_tuple_slices_and_arrays_returned_by_helpers(tmp_path):
    """`t[a:b:c]` with constant bounds, on a tuple of tiles or of arrays; an array a helper
    returns (its own parameter) is the caller's argument."""
    h = Both(tmp_path, HELPER_SRC, "helper_arrays")
    n, T = 203, 64
    x = torch.randn(n, generator=gen(6), dtype=torch.float64)
    y = torch.zeros(n, dtype=torch.float64)
    z = torch.randn(n, generator=gen(7), dtype=torch.float64)
    r1, r2 = h.run("via_helper", (-(-n // T),), [x, y, z, T])
    assert torch.allclose(r2[1], (x + z) * 2, rtol=1e-12, atol=0)
    assert torch.equal(r1[1], r2[1])
    assert "return (c_ptr, (a_ptr, b_ptr), c_shape0)" in h.text
