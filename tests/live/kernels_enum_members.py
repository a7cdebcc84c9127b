"""Kernel factories handed cuTile enum members (used by test_enum_members.py): the kernel
passes the member on to a construct (`rounding_mode=`, `padding_mode=`), so it is known only
per launch. Imported under `tile2triton.interp.install()` by the checker tests, and converted
(with its host code) by the convert test."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def make_narrowing(rounding_mode):
    """float64 -> float32 in the factory's rounding mode."""
    @ct.kernel
    def narrow(x, out, TILE: ConstInt):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(TILE,))
        ct.store(out, index=(i,), tile=t.astype(ct.float32, rounding_mode=rounding_mode))
    return narrow


def make_padded_max(padding_mode):
    """The max of each row of a (rows, 24) array read as (TILE, 32) tiles: the 8 padded
    columns take the factory's padding mode, which the max sees."""
    @ct.kernel
    def padded_max(x, out, TILE: ConstInt):
        i = ct.bid(0)
        t = ct.load(x, index=(i, 0), shape=(TILE, 32), padding_mode=padding_mode)
        ct.store(out, index=(i,), tile=ct.max(t, axis=1))
    return padded_max


def make_sum(rounding_mode):
    @ct.kernel
    def row_sum(x, out, TILE: ConstInt):
        i = ct.bid(0)
        t = ct.load(x, index=(i, 0), shape=(TILE, 32))
        ct.store(out, index=(i,), tile=ct.sum(t, axis=1, rounding_mode=rounding_mode))
    return row_sum


def narrowing(x, mode_name):
    """Host code handing the factory a member it names (`ct.RoundingMode.RZ`)."""
    modes = {"RN": ct.RoundingMode.RN, "RZ": ct.RoundingMode.RZ, "RM": ct.RoundingMode.RM,
             "RP": ct.RoundingMode.RP, None: None}
    out = torch.empty(x.shape[0], dtype=torch.float32)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_narrowing(modes[mode_name]), (x, out, 16))
    return out


def padded_max(x, zero):
    out = torch.empty(x.shape[0], dtype=x.dtype)
    mode = ct.PaddingMode.ZERO if zero else ct.PaddingMode.NEG_INF
    ct.launch(None, (ct.cdiv(x.shape[0], 8),), make_padded_max(mode), (x, out, 8))
    return out


def full_rounding_sum(x):
    out = torch.empty(x.shape[0], dtype=x.dtype)
    ct.launch(None, (ct.cdiv(x.shape[0], 8),), make_sum(ct.RoundingMode.FULL), (x, out, 8))
    return out
