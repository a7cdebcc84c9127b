"""A numpy integer scalar a kernel closes over is a strictly typed constant in cuTile: its
`.dtype` is that dtype (`np.int16(300).dtype == ct.int16`). The extracted module keeps it a
numpy scalar, not a bare int; random data of a length that is not a multiple of the tile."""
import numpy as np
import pytest
import torch

import tile2triton
from tile2triton import interp


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def test_numpy_scalar_keeps_its_dtype(ct):
    bias = np.int16(300)

    @ct.kernel
    def add_bias(x, y, T: ct.Constant[int]):
        ct.static_assert(bias.dtype == ct.int16)
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        b = ct.full((T,), bias, dtype=bias.dtype)
        ct.store(y, index=(ct.bid(0),), tile=t + b)

    g = torch.Generator().manual_seed(3)
    x = torch.randint(-1000, 1000, (203,), generator=g).to(torch.int16)
    y1, y2 = torch.zeros_like(x), torch.zeros_like(x)
    t = tile2triton.translate_kernel(add_bias)
    assert "np.int16(300)" in t.cutile_source
    t(None, (4,), x, y2, 64)
    interp.run_kernel(add_bias, (4,), (x, y1, 64))
    assert torch.equal(y2.long(), x.long() + 300)
    assert torch.equal(y1, y2)
