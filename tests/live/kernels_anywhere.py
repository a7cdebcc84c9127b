"""Kernels defined everywhere but at module level (used by test_live.py and the checker tests).

Imported under `tile2triton.interp.install()`, so `cuda.tile` is the reference interpreter."""
import math

import cuda.tile as ct

from helpers_other import axpy_tile  # noqa: E402  (a helper from another module)

LOG2E = 1.0 / math.log(2)
ConstInt = ct.Constant[int]


def make_scale_kernel(block, shift):
    """A factory: `block` and `shift` are closure constants of the kernel it returns."""
    zero = ct.PaddingMode.ZERO

    @ct.kernel
    def scale_shift(x, out):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(block,), padding_mode=zero)
        ct.store(out, index=(i,), tile=t * LOG2E + shift)
    return scale_shift


def make_axpy_kernel(alpha):
    def axpy(x, y, out, TILE: ConstInt):
        i = ct.bid(0)
        xt = ct.load(x, index=(i,), shape=(TILE,))
        yt = ct.load(y, index=(i,), shape=(TILE,))
        ct.store(out, index=(i,), tile=axpy_tile(alpha, xt, yt))
    return ct.kernel(axpy, occupancy=2)          # ct.kernel called as a function


REDUCTIONS = (ct.max, ct.sum)     # what make_row_reduce_kernel is made with (see below)


@ct.function
def sum_of_squares(t, axis):
    # (the row axis spelled here: a helper's `axis` argument is not a compile-time value
    # to the translator yet)
    return ct.sum(t * t, axis=1)


def make_row_reduce_kernel(reduce_op):
    """A factory whose kernel calls a function value: a construct or a helper."""
    @ct.kernel
    def row_reduce(x, out, B: ConstInt, N: ConstInt):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=reduce_op(ct.load(x, index=(i, 0), shape=(B, N)), axis=1))
    return row_reduce


ROW_REDUCERS = {"sumsq": sum_of_squares}   # (a helper named as a value: one of the choices)


def a_test_function_kernel():
    """A kernel defined in a function that uses no value of it, as a test function does."""
    @ct.kernel
    def local_kernel(x, out):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(32,)) - 1.0)
    return local_kernel


class Kernels:
    @staticmethod
    @ct.kernel
    def negate(x, out, TILE: ConstInt):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=-ct.load(x, index=(i,), shape=(TILE,)))


@ct.kernel
def broken(x, out):
    # cuTile can print from a kernel, but not with a Python f-string of a tile: untranslatable
    t = ct.load(x, index=(0,), shape=(16,))
    ct.store(out, index=(0,), tile=t.no_such_method())


@ct.kernel
def doubled(x, out, TILE: ConstInt):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) * 2)


STRING_KERNEL = '''
@ct.kernel
def from_string(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) + OFFSET)
'''


def make_string_kernel(path, offset):
    """A kernel built from a source string written to `path` (as test suites do)."""
    path.write_text(STRING_KERNEL)
    g = {"ct": ct, "OFFSET": offset}
    exec(compile(STRING_KERNEL, str(path), "exec"), g)
    return g["from_string"]


def host_uses_ct_elsewhere(stream, x):
    # host-side cuTile use with no Triton translation: must not affect other launches' verdicts
    return ct.compilation.export_kernel(doubled, [], None)
