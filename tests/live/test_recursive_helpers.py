"""A helper calling itself with a compile-time argument: cuTile unrolls the recursion at compile
time (its constant branches end it), and so does the translation, one Triton function per
level. Random data of a length that is not a multiple of the tile, float64 reference."""
import pytest
import torch

import tile2triton
from tile2triton import interp


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def poly(t, N):
    if N > 0:
        r = poly(t, N - 1) * t + N
    else:
        r = t * 0.0 + 1.0
    return r


@pytest.mark.parametrize("n", [0, 3, 6])
def test_recursion_on_a_constant_unrolls(ct, n):
    @ct.kernel
    def horner(x, y, T: ct.Constant[int], N: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        ct.store(y, index=(ct.bid(0),), tile=poly(t, N))

    g = torch.Generator().manual_seed(n)
    x = torch.rand(203, generator=g, dtype=torch.float64).to(torch.float32) * 2 - 1
    y1, y2 = torch.zeros_like(x), torch.zeros_like(x)
    args = (x, y2, 64, n)
    t = tile2triton.translate_kernel(horner, args)
    assert t.source.count("def poly") == n + 1
    t(None, (4,), *args)
    interp.run_kernel(horner, (4,), (x, y1, 64, n))
    want = torch.ones(203, dtype=torch.float64)
    for k in range(1, n + 1):
        want = want * x.double() + k
    assert torch.allclose(y2.double(), want, rtol=1e-5, atol=1e-5)
    assert torch.allclose(y1, y2, rtol=1e-6, atol=1e-6)


def test_too_deep_a_recursion_is_a_located_diagnostic(ct):
    @ct.kernel
    def deep(x, y, N: ct.Constant[int]):
        ct.store(y, index=(0,), tile=poly(ct.load(x, index=(0,), shape=(4,)), N))

    with pytest.raises(tile2triton.TranslationError, match="calls itself more than 32 deep"):
        tile2triton.translate_kernel(deep, (torch.zeros(4), torch.zeros(4), 40))
