"""Translation bugs found by cuTile's own test suite through the checker (docs/conformance.md,
"Launches that did not pass"), each run side by side with the cuTile reference interpreter on
random data whose length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, gen

NEG_SRC = """
@ct.kernel
def neg_loaded(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=-t)


@ct.kernel
def neg_functional(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=ct.negative(t) * 3 + -(t * 2))
"""


@pytest.fixture(scope="module")
def neg(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("neg"), NEG_SRC, "neg")


N, T = 203, 64
GRID = (-(-N // T),)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.int32, torch.float32,
                                   torch.float64])
@pytest.mark.parametrize("kernel", ["neg_loaded", "neg_functional"])
def test_negating_a_loaded_tile(neg, kernel, dtype):
    """cuTile negates a boolean as an int32 (-True == -1); the tile's dtype is known only at
    launch, so the translation's `_negative` decides there."""
    if dtype == torch.bool:
        x = torch.rand(N, generator=gen(1)) < 0.5
    elif dtype.is_floating_point:
        x = torch.randn(N, generator=gen(1), dtype=torch.float64).to(dtype)
    else:
        x = torch.randint(-20, 20, (N,), generator=gen(1)).to(dtype)
    out_dtype = torch.int32 if dtype == torch.bool else dtype
    y = torch.zeros(N, dtype=out_dtype)
    r1, r2 = neg.run(kernel, GRID, [x, y, T])
    xi = x.to(torch.float64)
    want = -xi if kernel == "neg_loaded" else -xi * 3 - xi * 2
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=0)
    assert torch.equal(r1[1], r2[1])
    if kernel == "neg_functional":
        # `t * 2` is never bool (cuTile's arithmetic rejects bool), so `-` stays an operator
        assert "_negative(t) * 3 + -(t * 2)" in neg.text
