"""ct.floor / ct.ceil (patterns/math.py) of scalars that reach Triton as Python numbers: a
ct.Constant[float] parameter, and runtime scalar parameters (which the Triton interpreter
passes as Python numbers too). Compared with the cuTile reference interpreter and Python's
math on an output whose length is not a multiple of the tile."""
import math

import pytest
import torch

from side_by_side import Both

SRC = """
@ct.kernel
def const_floor(x: ct.Constant[float], y, T: ct.Constant[int]):
    c = ct.floor(x) + ct.ceil(x) * 100.0
    ct.store(y, index=(ct.bid(0),), tile=ct.full((T,), c, dtype=y.dtype))


@ct.kernel
def runtime_floor(x, n, y, T: ct.Constant[int]):
    c = ct.floor(x) + ct.ceil(x) * 100.0 + n * 10000.0
    ct.store(y, index=(ct.bid(0),), tile=ct.full((T,), c, dtype=y.dtype))
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("scalar_math"), SRC, "sm")


def _both(mods, kernel, grid, args):
    return mods.run(kernel, grid, args)


N, T = 203, 64


@pytest.mark.parametrize("x", [-5.5, 2.25, 7.0])
def test_constant_float(mods, x):
    y = torch.zeros(N, dtype=torch.float64)
    r1, r2 = _both(mods, "const_floor", (-(-N // T),), [x, y, T])
    want = math.floor(x) + math.ceil(x) * 100.0
    assert torch.equal(r2[1], torch.full((N,), want, dtype=torch.float64))
    assert torch.equal(r1[1], r2[1])


@pytest.mark.parametrize("x, n", [(-5.5, 3), (0.75, -4)])
def test_runtime_scalars(mods, x, n):
    y = torch.zeros(N, dtype=torch.float32)
    r1, r2 = _both(mods, "runtime_floor", (-(-N // T),), [x, n, y, T])
    want = math.floor(x) + math.ceil(x) * 100.0 + n * 10000.0
    assert torch.equal(r2[2], torch.full((N,), want, dtype=torch.float32))
    assert torch.equal(r1[2], r2[2])
