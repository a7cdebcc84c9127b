"""Kernels for test_combined_trial.py."""
import cuda.tile as ct


@ct.kernel
def scale3(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t * 3.0)


@ct.kernel
def scale3_int(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t * 3)
