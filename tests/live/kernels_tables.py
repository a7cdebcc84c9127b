"""Kernels that pick constructs out of module-level tables and compare members of the module's
own enum classes: cuTile evaluates these while compiling (tests/live/test_tables.py)."""
import enum
import operator
from typing import Annotated

import cuda.tile as ct


class Combine(enum.Enum):
    ADD = 1
    MAX = 2
    SWAP = 5


class Mode(enum.IntEnum):
    SCALE = 3
    SHIFT = 7


COMBINERS = {Combine.ADD: ct.atomic_add, Combine.MAX: ct.atomic_max, Combine.SWAP: ct.atomic_xchg}


def raw_adder(a):
    return a.get_raw_memory().atomic_add_offset


def raw_minner(a):
    """The handle of a raw-memory atomic: a compile-time value, evaluated where it is called."""
    return a.get_raw_memory().atomic_min_offset


RAW_OPS = (raw_adder, raw_minner)
ARITH = [operator.sub, operator.mul, max]


@ct.kernel
def combine_into(acc, upd, old, TILE: ct.Constant[int], which: ct.Constant[int]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    u = ct.gather(upd, offs)
    op = ct.static_eval(COMBINERS[Combine(which)])
    ct.scatter(old, offs, op(acc, offs, u))


@ct.kernel
def combine_fixed(acc, upd, TILE: ct.Constant[int]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    COMBINERS[Combine.MAX](acc, offs, ct.gather(upd, offs))


@ct.kernel
def raw_combine(acc, upd, TILE: ct.Constant[int], k: ct.Constant[int]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    handle = RAW_OPS[k](acc)
    handle(offs, ct.gather(upd, offs), mask=offs < acc.shape[0])


@ct.kernel
def by_mode(x, y, TILE: ct.Constant[int], m: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    mode = Mode(m)
    if mode == Mode.SCALE:
        t = t * Mode.SCALE.value
    else:
        t = t + Mode(7).value
    if Combine.ADD != Combine.MAX and Combine(5) is Combine.SWAP:
        t = t - 0.5
    if Mode.SCALE < Mode.SHIFT and Mode.SHIFT == 7 and Mode(m).name == "SHIFT":
        t = t * 2.0
    ct.store(y, (ct.bid(0),), t)


@ct.kernel
def missing_key(acc, upd, TILE: ct.Constant[int]):
    offs = ct.arange(TILE, dtype=ct.int32)
    COMBINERS[Combine(4)](acc, offs, ct.gather(upd, offs))


@ct.kernel
def unordered(x, TILE: ct.Constant[int]):
    if Combine.ADD < Combine.MAX:
        ct.store(x, (0,), ct.zeros((TILE,), dtype=ct.float32))


@ct.kernel
def arith(x, y, out, TILE: ct.Constant[int], k: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    b = ct.load(y, (ct.bid(0),), (TILE,))
    f = ARITH[k]
    ct.store(out, (ct.bid(0),), operator.add(f(a, b), operator.truediv(1, 4)))


Rows = Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation(static_shape_dims=(1,)))]


@ct.kernel
def sum_rows(xs: Rows, out: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,))],
             TILE: ct.Constant[int]):
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for i in range(len(xs)):
        acc += ct.load(xs[i], (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (ct.bid(0),), acc)


@ct.kernel
def copy_pitched(x: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0,))], y,
                 TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0), ct.bid(1)), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (ct.bid(0), ct.bid(1)), t * 2.0)
