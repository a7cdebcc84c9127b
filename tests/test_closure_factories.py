"""Closures made by factory functions inside kernels (closure_factories.py): the captured
values are frozen when the closure is made, including non-constant values, values chosen per
branch, defaults of the inner function, and helpers of the closure that capture too. Each
translation runs under TRITON_INTERPRET=1 and is compared with the cuTile reference interpreter
and a float64 torch reference on data whose length is not a multiple of the tile."""
import textwrap

import pytest
import torch

from side_by_side import Both
from tile2triton import translate_source

HEADER = "import cuda.tile as ct\nimport torch\n"

SRC = """
def make_affine(scale, shift):
    bias = shift * 2.0

    def inner(t):
        return t * scale + bias

    def apply(t):
        return inner(t) - shift

    return apply, inner


@ct.kernel
def frozen(x, y, z, flag: int, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)

    def make_adder(k):
        def add(v, extra=k * 10.0):
            return v + k + extra
        return add

    s = ct.sum(t)
    if flag > 0:
        adder = make_adder(s)
    else:
        adder = make_adder(1.5)
    f = make_affine(3.0, 0.25)[0]
    ct.store(y, index=(i,), tile=adder(t))
    ct.store(z, index=(i,), tile=f(t))


@ct.kernel
def loop_constant(x, T: ct.Constant[int]):
    a = 0
    while True:
        if ct.bid(0) >= 0:
            a = 2
            break
        a += 1
    t = ct.full((a,), 7.0, ct.int32)
    ct.store(x, (0,), t)
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("closures"), SRC, "cl")


def _both(mods, kernel, grid, args):
    return mods.run(kernel, grid, args)


@pytest.mark.parametrize("flag", [0, 1])
def test_frozen_captures(mods, flag):
    n, T = 200, 64
    g = torch.Generator().manual_seed(5)
    x = torch.randn(n, generator=g)
    y, z = torch.zeros(n), torch.zeros(n)
    r1, r2 = _both(mods, "frozen", (-(-n // T),), [x, y, z, flag, T])
    xd = x.double()
    want_y = torch.empty(n, dtype=torch.float64)
    for b in range(-(-n // T)):
        blk = xd[b * T:(b + 1) * T]
        # the load pads the last block with zeros, which the sum then includes (as 0)
        k = blk.sum() if flag else 1.5
        want_y[b * T:(b + 1) * T] = blk + k + k * 10.0
    torch.testing.assert_close(r2[1].double(), want_y, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(r2[2].double(), xd * 3.0 + 0.5 - 0.25, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(r1[1], r2[1], rtol=1e-6, atol=1e-5)
    assert torch.equal(r1[2], r2[2])


def test_constant_left_by_every_break(mods):
    x = torch.zeros(3, dtype=torch.int32)
    r1, r2 = _both(mods, "loop_constant", (1,), [x, 4])
    assert r2[0].tolist() == [7, 7, 0] and torch.equal(r1[0], r2[0])


def test_different_constants_at_breaks_stay_runtime():
    src = HEADER + textwrap.dedent('''
    @ct.kernel
    def k(x):
        a = 0
        while True:
            if ct.bid(0) == 0:
                a = 1
                break
            a = 2
            break
        ct.store(x, (0,), ct.full((a,), 3.0, x.dtype))
    ''')
    res = translate_source(src, "<closures>")
    assert not res.ok
    assert any(d.code == "T2T103" for d in res.diagnostics())


ARRAY_CLOSURES = """
def make_writer(scale):
    def write(out, i, t, bias=scale * 0.5):
        ct.store(out, index=(i,), tile=t * scale + bias)
    return write


@ct.kernel
def module_factory(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    if i % 2 == 0:
        w = make_writer(2.0)
    else:
        w = make_writer(-3.0)
    w(y, i, t)


def run_host_factory(x, tile):
    def make_scatter(default):
        def put(out, i, v=default):
            ct.scatter(out, i, v)
        default = -1.0
        return put

    @ct.kernel
    def host_factory(x, out):
        i = ct.bid(0)
        if i == 0:
            c = make_scatter(3.0)
        else:
            c = make_scatter(ct.gather(x, i))
        c(out, i)

    out = torch.zeros(x.shape[0])
    ct.launch(None, (x.shape[0],), host_factory, (x, out))
    return out
"""


@pytest.fixture(scope="module")
def arrays(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("closure_arrays"), ARRAY_CLOSURES, "cla")


def test_a_module_factory_whose_closure_takes_an_array(arrays):
    """The closure's array parameter (`write(out, i, t)`) is an array of the kernel's: the
    rank scan follows `w = make_writer(2.0)` to the function it makes (recognize.
    _closure_made); the factory, inlined, leaves a note in the host module."""
    n, T = 203, 32
    x = torch.randn(n, generator=torch.Generator().manual_seed(8))
    r1, r2 = _both(arrays, "module_factory", (-(-n // T),), [x, torch.zeros(n), T])
    xd = x.double()
    want = torch.empty(n, dtype=torch.float64)
    for b in range(-(-n // T)):
        s = 2.0 if b % 2 == 0 else -3.0
        want[b * T:(b + 1) * T] = xd[b * T:(b + 1) * T] * s + s * 0.5
    torch.testing.assert_close(r2[1].double(), want, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(r1[1], r2[1], rtol=0, atol=0)
    assert "# `make_writer` (a closure factory of tile code) is inlined" in arrays.text


def test_a_host_function_factory_of_a_kernel_with_a_default_made_before_rebinding(arrays):
    """cuTile's test_closure_nonconst_default_arg: the factory is a function of the test
    function (hoisted with its kernel; its closure's parameters are no names of the test
    function), the default frozen when the closure is made, before `default = -1`."""
    x = torch.randn(7, generator=torch.Generator().manual_seed(9))
    want = x.clone()
    want[0] = 3.0
    for got in (arrays.trans.run_host_factory(x, 1), arrays.orig.run_host_factory(x, 1)):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
