"""Kernels for test_undetermined.py: a tile load whose out-of-bounds lanes reach the output."""
import cuda.tile as ct


@ct.kernel
def pad_scale(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bx = ct.bid(0)
    by = ct.bid(1)
    t = ct.load(x, index=(bx, by), shape=(TM, TN))          # default: UNDETERMINED padding
    ct.store(y, index=(bx, by), tile=t * 2.0)


@ct.kernel
def pad_scale_zero(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bx = ct.bid(0)
    by = ct.bid(1)
    t = ct.load(x, index=(bx, by), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(bx, by), tile=t * 2.0)


@ct.kernel
def pad_rank3(x, y, TM: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0, 0), shape=(TM, 2, 4))      # through the tile helper
    ct.store(y, index=(b, 0, 0), tile=t + 1.0)
