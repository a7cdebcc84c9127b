"""Kernels for test_failed_assertions.py."""
import cuda.tile as ct


@ct.kernel
def checked_copy(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.assert_(t > -100.0, "inputs must exceed -100")
    ct.store(y, index=(b,), tile=t * 3.0)
