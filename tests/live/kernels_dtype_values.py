"""Kernel factories handed a dtype known only at launch (used by test_dtype_values.py): the
kernel passes the factory's parameter to a construct as its `dtype` (`ct.astype(t, to_dtype)`,
`t.astype(dt)`, `ct.full(shape, v, dtype=dt)`, `ct.zeros(shape, dt)`), as cuTile's
test_cast.py does with torch dtypes. Imported under `tile2triton.interp.install()` by the
checker tests, and converted (with its host code) by the convert test."""
import cuda.tile as ct
import numpy as np
import torch

ConstInt = ct.Constant[int]


def make_astype(to_dtype):
    """x converted to the factory's dtype, tile by tile."""
    @ct.kernel
    def astype(x, y, TILE: ConstInt):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(TILE,))
        ct.store(y, index=(i,), tile=ct.astype(t, to_dtype))
    return astype


def make_offset(dtype, use_method):
    """x in the factory's dtype plus a tile of ones made in that dtype, and zeros of it."""
    @ct.kernel
    def offset(x, y, TILE: ConstInt):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(TILE,))
        if use_method:
            t = t.astype(dtype)
        else:
            t = ct.astype(t, dtype)
        one = ct.full((TILE,), 1, dtype=dtype)
        ct.store(y, index=(i,), tile=t + one + ct.zeros((TILE,), dtype))
    return offset


def converted(x, to_dtype):
    """Host code handing the factory a torch dtype."""
    y = torch.empty(x.shape, dtype=to_dtype)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_astype(to_dtype), (x, y, 16))
    return y


def converted_np(x):
    """... a NumPy scalar type."""
    y = torch.empty(x.shape, dtype=torch.int16)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_astype(np.int16), (x, y, 16))
    return y


def converted_ct(x):
    """... a cuTile dtype (a Triton dtype in the converted module)."""
    y = torch.empty(x.shape, dtype=torch.float16)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_astype(ct.float16), (x, y, 16))
    return y


def offset(x, dtype, use_method):
    y = torch.empty(x.shape, dtype=dtype)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_offset(dtype, use_method), (x, y, 16))
    return y
