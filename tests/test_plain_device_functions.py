"""Plain functions holding tile code (issue 28 class 9): on cuTile's test folder most T2T109
diagnostics ("host code uses ct.*") fell on functions that become kernels by being handed to
`ct.kernel` through a host helper, and on device helpers no kernel calls; one unused helper
made a whole file fail. A function of tile code handed on as a value is a kernel; one nobody
uses is left out with a note; host code that calls tile code itself is still T2T109."""
import math

import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct


def double_rows(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2)


def unused_scale(x, y, TILE: ct.Constant[int]):
    # a device helper that no kernel here calls
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 3)


def run(fn, x, y):
    """A host helper making a kernel of the function it is given."""
    kernel = ct.kernel(fn)
    ct.launch(None, (ct.cdiv(x.shape[0], 64),), kernel, (x, y, 64))


def main(x, y):
    run(double_rows, x, y)
'''


def test_a_function_handed_to_ct_kernel_through_a_helper_is_a_kernel(tmp_path):
    r = translate_source(SRC, "plain_kernels.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    assert "@triton.jit" in r.output and "def double_rows(" in r.output
    assert "# `unused_scale` is tile code (ct.bid, ct.load, ct.store) that nothing here calls: " \
        "not translated." in r.output
    assert "def unused_scale" not in r.output
    path = tmp_path / "plain_kernels_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_plain_kernels")
    g = torch.Generator().manual_seed(4)
    x = torch.randn(300, generator=g)
    y = torch.full((300,), math.nan)
    m.main(x, y)
    torch.testing.assert_close(y, x * 2)


def test_host_code_calling_tile_code_is_still_reported_with_useful_help():
    src = SRC + '''

def peek(x):
    return ct.load(x, index=(0,), shape=(4,))


def show(x):
    print(peek(x))
'''
    r = translate_source(src, "host_tile.py")
    assert not r.ok
    (d,) = [d for d in r.diagnostics() if d.code == "T2T109"]
    assert "ct.load" in d.message
    assert "@ct.kernel" in d.help and "@ct.function" in d.help


def test_a_kernel_convert_cannot_reach_is_one_diagnostic_not_one_per_construct():
    # (a kernel of a module-level class body is hoisted now: this one is a class deeper)
    src = '''import cuda.tile as ct


class Outer:
    class Kernels:
        @staticmethod
        @ct.kernel
        def plus_one(x, tile: ct.Constant[int]):
            i = ct.bid(0)
            ct.store(x, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) + 1)
'''
    r = translate_source(src, "in_class.py")
    (d,) = r.diagnostics()
    assert d.code == "T2T109" and "`plus_one` is defined where convert cannot translate it" \
        in d.message
    # one level up, in a module-level class, the kernel translates
    flat = "\n".join(line[4:] if line.startswith("    ") else line
                     for line in src.replace("class Outer:\n", "").splitlines())
    r = translate_source(flat, "in_class.py")
    assert r.ok and "plus_one = staticmethod(launch_plus_one)" in r.output, r.diagnostics()


def test_a_table_of_tile_functions_is_not_taken_for_kernels():
    """A module-level table of device helpers (kernels index it) holds tile code that host
    code references without running it: neither kernels nor unused code to drop."""
    src = '''import cuda.tile as ct


def relu(x):
    return ct.maximum(x, 0.0)


def negate(x):
    return -x * 1.0 + ct.zeros((1,), dtype=ct.float32)


ACTS = {"relu": relu, "negate": negate}


@ct.kernel
def act_kernel(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), ACTS["relu"](t))
'''
    r = translate_source(src, "acts.py")
    assert [k.kernel for k in r.kernels] == ["act_kernel"]


def test_a_host_function_defining_kernels_is_host_code():
    """A test function whose body defines kernels uses tile code only inside them: it is
    host code, kept (the kernels are hoisted), not tile code to leave out."""
    src = '''import cuda.tile as ct


def test_double():
    @ct.kernel
    def double(x, TILE: ct.Constant[int]):
        ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)

    return double
'''
    r = translate_source(src, "nested_host.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    assert "def test_double(" in r.output and "not translated" not in r.output


def test_tile_code_in_a_class_is_one_diagnostic_per_function():
    src = '''import cuda.tile as ct


class Cases:
    def store_twice(X, TILE: ct.Constant[int]):
        ct.store(X, index=(0,), tile=ct.arange(TILE, dtype=X.dtype))
        ct.store(X, index=(0,), tile=ct.load(X, index=(0,), shape=(TILE,)) * 2)
'''
    r = translate_source(src, "class_cases.py")
    (d,) = r.diagnostics()
    assert d.code == "T2T109" and "`store_twice` is defined where convert cannot" in d.message


NESTED = '''import cuda.tile as ct
import torch


def test_triple():
    @ct.kernel
    def triple(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        ct.store(y, index=(ct.bid(0),), tile=t * 3)

    x = torch.randn(100)
    y = torch.empty(100)
    ct.launch(None, (ct.cdiv(100, 32),), triple, (x, y, 32))
    torch.testing.assert_close(y.double(), x.double() * 3)
'''


def test_a_function_defining_a_kernel_is_host_code_not_tile_code(tmp_path):
    """cuTile's tests define kernels inside test functions: the tile code is the nested
    kernel's, not the test's, so the test stays (its kernel hoisted, its launch translated).
    It was left out as unused tile code, and the module failed its output check (T2T111)."""
    r = translate_source(NESTED, "test_nested.py")
    assert r.ok and r.output is not None, [d.format() for d in r.diagnostics()]
    assert "def test_triple():" in r.output and "launch_triple(" in r.output
    out = tmp_path / "test_nested_out.py"
    out.write_text(r.output)
    mod = load_module(out, "test_nested_out")
    mod.test_triple()        # runs the translation under TRITON_INTERPRET on random data


# A wrapper that uses no construct itself but calls a device helper (it computes an index and
# hands on): before, it was host code calling a tile function, T2T109, and the whole file was
# not written (a paged-attention module whose kernels call the helper directly).
WRAPPED = '''import cuda.tile as ct


def load_row(x, row, TILE):
    return ct.load(x, index=(row,), shape=(TILE,))


def load_row_of(x, block, step, TILE):
    row = block * 2 + step
    return load_row(x, row, TILE)


@ct.kernel
def pair_sum(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=load_row(x, b * 2, TILE) + load_row(x, b * 2 + 1, TILE))


def pair_sums(x, y):
    ct.launch(None, (ct.cdiv(y.shape[0], 64),), pair_sum, (x, y, 64))
'''


def test_a_wrapper_of_a_device_helper_that_nothing_calls_is_left_out(tmp_path):
    r = translate_source(WRAPPED, "wrapped.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    assert "# `load_row_of` is tile code (it calls tile helpers) that nothing here calls: " \
        "not translated." in r.output
    path = tmp_path / "wrapped_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_wrapped")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6 * 64, generator=g, dtype=torch.float64).float()
    y = torch.full((3 * 64 - 7,), math.nan)    # the last tile partly outside
    m.pair_sums(x, y)
    ref = x.double().reshape(3, 2, 64).sum(1).reshape(-1)[:3 * 64 - 7]
    torch.testing.assert_close(y.double(), ref, rtol=1e-6, atol=1e-6)


def test_host_code_calling_a_wrapper_of_tile_code_is_still_reported():
    r = translate_source(WRAPPED + '''

def first_row(x):
    return load_row_of(x, 0, 0, 64)
''', "wrapped_host.py")
    assert not r.ok     # the wrapper is host code then, and its call of the helper is located
    assert [(d.code, d.line) for d in r.diagnostics()] == [("T2T109", 10)]
    assert "`load_row`, a tile function" in r.diagnostics()[0].message
