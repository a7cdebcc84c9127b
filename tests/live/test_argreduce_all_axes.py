"""ct.argmax / ct.argmin over all axes of an n-D tile: the smallest row-major index of the
extremum of the tile (ties are frequent here: small integers as floats), computed without
reshaping the tile. Arrays are smaller than the tile (padding fills the rest); the reference is
torch's first-occurrence argmax of the padded tile in float64."""
import pytest
import torch

import tile2triton
from tile2triton import interp


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


def _kernels(ct):
    @ct.kernel
    def arg2(x, out, B: ct.Constant[int], N: ct.Constant[int], is_max: ct.Constant[bool]):
        if is_max:
            t = ct.load(x, index=(0, 0), shape=(B, N), padding_mode=ct.PaddingMode.NEG_INF)
            ct.store(out, index=(0,), tile=ct.argmax(t, keepdims=False).reshape((1,)))
        else:
            t = ct.load(x, index=(0, 0), shape=(B, N), padding_mode=ct.PaddingMode.POS_INF)
            ct.store(out, index=(0,), tile=ct.argmin(t, axis=None, keepdims=False).reshape((1,)))

    @ct.kernel
    def arg3(x, out, A: ct.Constant[int], B: ct.Constant[int], N: ct.Constant[int]):
        t = ct.load(x, index=(0, 0, 0), shape=(A, B, N), padding_mode=ct.PaddingMode.NEG_INF)
        ct.store(out, index=(0, 0, 0), tile=ct.argmax(t, keepdims=True))

    return arg2, arg3


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("is_max", [True, False])
def test_argmax_argmin_2d(ct, seed, is_max):
    arg2, _ = _kernels(ct)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-4, 5, (13, 27), generator=g).float()
    out = torch.zeros(1, dtype=torch.int32)
    args = (x, out, 16, 32, is_max)
    t = tile2triton.translate_kernel(arg2, args)
    assert "_argmax_all_2" in t.source if is_max else "_argmin_all_2" in t.source
    assert "tl.reshape(t" not in t.source
    t(None, (1,), *args)
    fill = float("-inf") if is_max else float("inf")
    padded = torch.full((16, 32), fill, dtype=torch.float64)
    padded[:13, :27] = x.double()
    ref = padded.flatten().argmax() if is_max else padded.flatten().argmin()
    assert out.item() == ref.item()


@pytest.mark.parametrize("seed", [0, 1])
def test_argmax_3d_keepdims(ct, seed):
    _, arg3 = _kernels(ct)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-3, 4, (3, 5, 7), generator=g).float()
    out = torch.zeros(1, 1, 1, dtype=torch.int32)
    args = (x, out, 4, 8, 8)
    tile2triton.translate_kernel(arg3, args)(None, (1,), *args)
    padded = torch.full((4, 8, 8), float("-inf"), dtype=torch.float64)
    padded[:3, :5, :7] = x.double()
    assert out.item() == padded.flatten().argmax().item()
