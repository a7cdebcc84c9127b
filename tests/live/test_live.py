"""`tile2triton.translate_kernel` on live kernel objects defined anywhere: in factories (closure
constants), in a test function, as static methods, from `ct.kernel(fn)`, from source strings, with
helpers imported from another module. Each translation is run (TRITON_INTERPRET=1) and compared
with a float64 reference on random data whose length is not a multiple of the tile."""
import linecache
import re
import sys
from pathlib import Path

import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.diagnostics import TranslationError
from tile2triton.live import extract, register_source

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ka():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_anywhere
            import cuda.tile as ct
            yield kernels_anywhere, ct
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_anywhere", None)
        sys.modules.pop("helpers_other", None)


def _data(n=300, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, generator=g), torch.randn(n, generator=g)


def test_factory_closure_constants(ka):
    mod, _ = ka
    k = mod.make_scale_kernel(64, 0.25)
    t = tile2triton.translate_kernel(k)
    # `block`, a closure value, is a constexpr of its value at the kernel's top
    assert "    block: tl.constexpr = 64\n" in t.source
    assert re.search(r"offs_i = tl\.cast\(i, OFFSET_DTYPE\) \* block \+ tl\.arange\(0, block\)",
                     t.source)
    x, _ = _data()
    out = torch.empty_like(x)
    t(None, (5,), x, out)
    ref = x.double() / torch.log(torch.tensor(2.0, dtype=torch.float64)) + 0.25
    torch.testing.assert_close(out.double(), ref, atol=1e-5, rtol=1e-5)
    # cached per (kernel, closure values): same values -> same object; other values -> other code
    assert tile2triton.translate_kernel(k) is t
    k2 = mod.make_scale_kernel(128, 0.25)
    t2 = tile2triton.translate_kernel(k2)
    assert t2 is not t and "    block: tl.constexpr = 128\n" in t2.source


def test_ct_kernel_called_as_function_with_imported_helper(ka):
    mod, _ = ka
    k = mod.make_axpy_kernel(1.5)
    ex = extract(k)
    assert "@ct.kernel(occupancy=2)" in ex.text        # options of ct.kernel(fn, ...) kept
    assert "def axpy_tile(a, x, y):" in ex.text         # helper from helpers_other.py
    t = tile2triton.translate_kernel(k)
    x, y = _data(333, 1)
    out = torch.empty_like(x)
    t(None, ((333 + 63) // 64,), x, y, out, 64)
    torch.testing.assert_close(out.double(), 1.5 * x.double() + y.double(), atol=1e-5, rtol=1e-5)


def test_static_method_kernel(ka):
    mod, _ = ka
    t = tile2triton.translate_kernel(mod.Kernels.negate)
    x, _ = _data(77)
    out = torch.empty_like(x)
    t(None, (3,), x, out, 32)
    assert torch.equal(out, -x)


def test_kernel_defined_in_a_test_function(ka):
    _, ct = ka
    tile = 16
    bias = 3

    @ct.kernel
    def add_bias(x, out):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) + bias)

    t = tile2triton.translate_kernel(add_bias)
    x = torch.randint(-50, 50, (41,), dtype=torch.int32)
    out = torch.empty_like(x)
    t(None, (3,), x, out)
    assert torch.equal(out, x + 3)


def test_kernel_built_from_a_string(ka, tmp_path):
    mod, _ = ka
    k = mod.make_string_kernel(tmp_path / "gen_kernel.py", 7.0)
    t = tile2triton.translate_kernel(k)
    x, _ = _data(50)
    out = torch.empty_like(x)
    t(None, (4,), x, out, 16)
    torch.testing.assert_close(out, x + 7.0)


def test_string_kernel_through_linecache_or_registered_source(ka):
    _, ct = ka
    src = ("def twice(x, out, TILE: ct.Constant[int]):\n"
           "    i = ct.bid(0)\n"
           "    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) * 2)\n")
    fname = "<t2t-test-linecache>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    g = {"ct": ct}
    exec(compile(src, fname, "exec"), g)
    t = tile2triton.translate_kernel(ct.kernel(g["twice"]))
    x, _ = _data(40)
    out = torch.empty_like(x)
    t(None, (3,), x, out, 16)
    assert torch.equal(out, x * 2)
    # no file, no linecache: located T2T110 until the source is registered
    g2 = {"ct": ct}
    exec(compile(src, "<nowhere>", "exec"), g2)
    with pytest.raises(TranslationError) as e:
        tile2triton.translate_kernel(g2["twice"])
    assert e.value.diagnostic.code == "T2T110" and "register_source" in e.value.diagnostic.help
    register_source(g2["twice"], src)
    assert "def twice(" in tile2triton.translate_kernel(g2["twice"]).source


def test_untranslatable_kernel_is_located_and_named(ka):
    mod, _ = ka
    with pytest.raises(TranslationError) as e:
        tile2triton.translate_kernel(mod.broken)
    d = e.value.diagnostic
    assert d.path.endswith("kernels_anywhere.py")
    assert "no_such_method" in d.source_line and "`broken`" in d.message
    src = (HERE / "kernels_anywhere.py").read_text().splitlines()
    assert src[d.line - 1] == d.source_line
    assert d.source_line[d.col - 1:].startswith("t.no_such_method") or \
        d.source_line[d.col - 1:].startswith("no_such_method")


def test_non_constant_global_is_a_located_diagnostic(ka):
    _, ct = ka
    table = {"a": object()}

    @ct.kernel
    def uses_object(x):
        ct.store(x, index=(0,), tile=table["a"])

    with pytest.raises(TranslationError) as e:
        tile2triton.translate_kernel(uses_object)
    d = e.value.diagnostic
    assert d.code == "T2T110" and "`table`" in d.message and "`uses_object`" in d.message
    assert d.path == __file__ and "table" in d.source_line
    assert d.source_line[d.col - 1:].startswith("table")
