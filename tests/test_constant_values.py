"""Compile-time values the way cuTile folds them (constants converted by dtype calls, names
re-bound to constants, tuples carrying constants), each run side by side with the cuTile
reference interpreter on random data whose length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, gen

N, M, T = 203, 7, 64
GRID = (-(-N // T),)

MAX_SRC = """
@ct.kernel
def row_max(x, y, T: ct.Constant[int]):
    m = ct.full((T, 1), ct.float32("-inf"), dtype=ct.float32)
    for j in range(x.shape[1]):
        m = max(m, ct.load(x, index=(ct.bid(0), j), shape=(T, 1)))
    big = ct.float32("1e30")
    ct.store(y, index=(ct.bid(0), 0), tile=ct.minimum(m, big))
"""


@pytest.fixture(scope="module")
def maxes(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("max"), MAX_SRC, "max")


def test_dtype_of_a_number_written_as_a_string(maxes):
    """`ct.float32("-inf")` converts the string with Python's float first, as cuTile does."""
    x = torch.randn(N, M, generator=gen(1), dtype=torch.float64)
    x[5, :] = 3e30                                    # clamped by the 1e30 bound
    x = x.to(torch.float32)
    y = torch.zeros(N, 1)
    r1, r2 = maxes.run("row_max", GRID, [x, y, T])
    want = x.to(torch.float64).amax(dim=1, keepdim=True).clamp(max=1e30)
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-7)
    assert torch.equal(r1[1], r2[1])
    assert 'float("-inf")' in maxes.text or "float('-inf')" in maxes.text \
        or "-float(\"inf\")" in maxes.text
