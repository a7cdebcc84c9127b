"""Dataclasses a host function defines (a test function, a kernel factory) and the instances
it makes of constants, used by a kernel it defines, as cuTile's test_dataclass.py does for 11
of its launches: `class Selfish` in `test_dataclass_with_field_named_self`, `fb = FooBar(2, 7)`
captured by the kernel. They were the host function's values to the kernel (T2T101 "only
cuda.tile constructs and helper functions can be called", "attribute `.foo` is not supported
here"); now the host function's classes are known to its kernels as the module's dataclasses
are (frozen_dataclasses.rewrite_nested_kernel), bases defined there too, and an instance of
constants folds into the kernel as a module-level instance does. Each translation runs under
TRITON_INTERPRET=1 against the cuTile reference interpreter and a float64 reference, on random
data whose length is not a multiple of the tile."""
import importlib.util

import pytest
import torch

from tile2triton import interp, translate_source

SRC = '''
from dataclasses import dataclass
from typing import Any

import cuda.tile as ct
import torch


@dataclass(frozen=True)
class Span:
    lo: float
    hi: float = 1.0


def run_methods(x, tile):
    @dataclass(frozen=True)
    class Affine:
        scale: float
        shift: float

        NUMBER = 3

        def apply(self, t):
            return t * self.scale + self.shift

        @property
        def slope(self):
            return self.scale * 2

        def __call__(self, t, k):
            return self.apply(t) * k

    @ct.kernel
    def affine(x, y, z, T: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(T,))
        f = Affine(1.5, -0.25)
        ct.store(y, index=(i,), tile=f.apply(t) + f.slope + Affine.NUMBER)
        ct.store(z, index=(i,), tile=f(t, f.NUMBER))

    y, z = torch.zeros_like(x), torch.zeros_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), affine, (x, y, z, tile))
    return y, z


def run_dunders(x, tile):
    @dataclass(frozen=True)
    class Base:
        src: Any
        T: Any

    @dataclass(frozen=True)
    class Blocks(Base):
        dst: Any

        def __getitem__(self, i):
            return ct.load(self.src, index=(i,), shape=(self.T,))

        def __setitem__(self, i, tile):
            ct.store(self.dst, index=(i,), tile=tile)

    @dataclass(frozen=True)
    class Marked:
        out: Any
        at: Any

        def __post_init__(self):
            ct.scatter(self.out, self.at, 7.0)

    @ct.kernel
    def blocks(x, y, marks, T: ct.Constant[int]):
        i = ct.bid(0)
        b = Blocks(x, T, dst=y)
        b[i] = b[i] * 2.0
        Marked(marks, i)

    y = torch.zeros_like(x)
    grid = ct.cdiv(x.shape[0], tile)
    marks = torch.zeros(grid, dtype=x.dtype)
    ct.launch(None, (grid,), blocks, (x, y, marks, tile))
    return y, marks


def run_captured(x, tile):
    limits = Span(-0.5, hi=0.75)

    @dataclass(frozen=True)
    class Gain:
        k: float
        span: Any

        def __call__(self, t):
            return ct.minimum(ct.maximum(t * self.k, self.span.lo), self.span.hi)

    gain = Gain(2.0, Span(-1.0))

    @ct.kernel
    def clamp(x, y, T: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(T,))
        ct.store(y, index=(i,), tile=ct.minimum(gain(t), limits.hi) + limits.lo)

    y = torch.zeros_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), clamp, (x, y, tile))
    return y
'''


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("local_dataclasses")
    (tmp / "local_dc_cutile.py").write_text(SRC)
    orig = interp.load_module_with_interpreter(str(tmp / "local_dc_cutile.py"))
    res = translate_source(SRC, "local_dc.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp / "local_dc_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_local_dc", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans, res.output


def _x(seed, n=203):
    return torch.randn(n, generator=torch.Generator().manual_seed(seed)) * 2


def test_methods_property_call_and_class_constants(mods):
    orig, trans, out = mods
    x = _x(1)
    r = x.double()
    want_y = r * 1.5 - 0.25 + 3.0 + 3
    want_z = (r * 1.5 - 0.25) * 3
    for y, z in (trans.run_methods(x, 32), orig.run_methods(x, 32)):
        torch.testing.assert_close(y.double(), want_y, rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(z.double(), want_z, rtol=1e-6, atol=1e-6)
    assert "def Affine_apply(" in out         # the host function's class: device helpers


def test_dunders_post_init_and_a_base_class_of_the_host_function(mods):
    orig, trans, _ = mods
    x = _x(2)
    grid = -(-203 // 32)
    for y, marks in (trans.run_dunders(x, 32), orig.run_dunders(x, 32)):
        torch.testing.assert_close(y.double(), x.double() * 2, rtol=0, atol=0)
        assert torch.equal(marks, torch.full((grid,), 7.0))


def test_instances_of_constants_the_host_function_makes(mods):
    orig, trans, out = mods
    x = _x(3)
    want = torch.minimum((x.double() * 2).clamp(-1.0, 1.0), torch.tensor(0.75,
                         dtype=torch.float64)) - 0.5
    for y in (trans.run_captured(x, 32), orig.run_captured(x, 32)):
        torch.testing.assert_close(y.double(), want, rtol=1e-6, atol=1e-6)
    # the instances fold into the kernel: no launcher keyword carries them
    assert "functools.partial(launch_clamp" not in out
