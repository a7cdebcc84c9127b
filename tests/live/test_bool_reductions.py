"""ct.sum / ct.prod / ct.max / ct.min of a boolean tile reduce it as int32, as cuTile does
(the sum counts the true elements; it does not wrap back to bool). Random masks whose extents
are not multiples of the tile; the padding is False (zero); int64 reference."""
import pytest
import torch

import tile2triton
from tile2triton import interp


@pytest.fixture(scope="module")
def ct():
    with interp.install():
        import cuda.tile as ct
        yield ct


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_bool_rows_reduce_as_int32(ct, op):
    reduce_op = getattr(ct, op)

    @ct.kernel
    def rows(x, out, B: ct.Constant[int], N: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i, 0), shape=(B, N), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i,), tile=reduce_op(t, axis=1))

    g = torch.Generator().manual_seed(11)
    x = torch.randint(0, 2, (37, 30), generator=g).bool()
    if op == "prod":
        x[::3] = True                       # rows whose product is 1
    out = torch.zeros(37, dtype=torch.int32)
    t = tile2triton.translate_kernel(rows)
    t(None, (3,), x, out, 16, 32)
    xp = torch.zeros(48, 32, dtype=torch.int64)      # the padded tiles
    xp[:37, :30] = x.long()
    ref = {"sum": xp.sum(1), "prod": xp.prod(1), "max": xp.amax(1), "min": xp.amin(1)}[op]
    assert torch.equal(out.long(), ref[:37])


def test_bool_tile_sum_is_int32_statically(ct):
    @ct.kernel
    def count(x, out, N: ct.Constant[int]):
        t = ct.load(x, index=(0,), shape=(N,), padding_mode=ct.PaddingMode.ZERO) > 0
        s = ct.sum(t, axis=0)
        ct.store(out, index=(0,), tile=s.reshape((1,)) + 1000)

    x = torch.randn(50)
    out = torch.zeros(1, dtype=torch.int32)
    tile2triton.translate_kernel(count)(None, (1,), x, out, 64)
    assert out.item() == int((x > 0).sum()) + 1000
