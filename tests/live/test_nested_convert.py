"""`tile2triton convert` of kernels defined inside host functions: a kernel factory whose kernel
closes over the factory's parameters (constexpr parameters of the hoisted Triton kernel) and a
local cuTile constant (folded), and a kernel defined inside a test function. The converted
module is run (TRITON_INTERPRET=1) against float64 references."""
import ast
import math
import os
import subprocess
import sys

import torch

from tile2triton.translate import translate_source

SOURCE = '''
import cuda.tile as ct


def make_kernel(block, shift):
    zero = ct.PaddingMode.ZERO

    @ct.kernel
    def shifted(x, out):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(block,), padding_mode=zero)
        ct.store(out, index=(i,), tile=t + shift)
    return shifted


def run_local(stream, x, out):
    tile = 32

    @ct.kernel
    def shifted(x, out):          # same name as the factory's kernel: hoisted under another
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * 2)

    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), shifted, (x, out))


def run_factory(stream, x, out, block, shift):
    k = make_kernel(block, shift)
    ct.launch(stream, (ct.cdiv(x.shape[0], block),), k, (x, out))
'''


def test_nested_and_factory_kernels_convert_and_run(tmp_path):
    res = translate_source(SOURCE, "nested_kernels.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    # no cuTile left: no cuda import, no `ct` name (the launcher helpers may name cuda.tile in
    # the message refusing an untranslated cuTile kernel); the run below hides cuda.tile
    tree = ast.parse(out)
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in imported if m and m.split(".")[0] == "cuda"], imported
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "ct"]
    assert "block: tl.constexpr" in out and "shift: tl.constexpr" in out
    assert "shifted = functools.partial(launch_shifted, block=block, shift=shift)" in out
    assert "def run_local_shifted(" in out and "shifted = launch_run_local_shifted" in out
    assert "other=0.0)" in out                           # the local padding alias folded
    path = tmp_path / "nested_kernels_triton.py"
    path.write_text(out)
    # run in a child process: the interpreter patches triton.language in the process that
    # runs it, which would break later real compilations (tests/test_inspect.py) in this worker
    script = ("import math, sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import nested_kernels_triton as mod\n"
              "g = torch.Generator().manual_seed(3)\nx = torch.randn(203, generator=g)\n"
              "y = torch.full_like(x, float('nan'))\nmod.run_local(None, x, y)\nys = [y]\n"
              "for block, shift in ((16, 0.75), (64, -2.5)):\n"
              "    y = torch.full_like(x, float('nan'))\n"
              "    mod.run_factory(None, x, y, block, shift)\n    ys.append(y)\n"
              "torch.save((x, ys), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, ys = torch.load(tmp_path / "res.pt")
    torch.testing.assert_close(ys[0].double(), x.double() * 2, atol=0, rtol=0)
    for y, shift in zip(ys[1:], (0.75, -2.5)):
        torch.testing.assert_close(y.double(), x.double() + shift, atol=1e-6, rtol=1e-6)
        assert not math.isnan(float(y.sum()))

def test_tile_code_convert_cannot_hoist_gets_one_diagnostic_at_its_definition():
    src = ("import cuda.tile as ct\n\n\ndef outer():\n    def inner():\n        @ct.kernel\n"
           "        def deep(x):\n            ct.store(x, index=(0,), tile=ct.load(x, index=(0,),"
           " shape=(16,)) + 1)\n        return deep\n    return inner()\n")
    res = translate_source(src, "deep.py")
    assert not res.ok
    diags = res.diagnostics()
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", 7, 13)], \
        [d.format() for d in diags]
    assert "`deep`" in diags[0].message and "translate_kernel" in diags[0].help


FACTORY_AND_CLASS = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.function
def axpy_tile(a, x, y):
    return a * x + y


def make_axpy_kernel(alpha):
    def axpy(x, y, out, TILE: ConstInt):
        i = ct.bid(0)
        xt = ct.load(x, index=(i,), shape=(TILE,))
        yt = ct.load(y, index=(i,), shape=(TILE,))
        ct.store(out, index=(i,), tile=axpy_tile(alpha, xt, yt))
    return ct.kernel(axpy, occupancy=2)          # ct.kernel called as a function


class Kernels:
    @staticmethod
    @ct.kernel
    def negate(x, out, TILE: ConstInt):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=-ct.load(x, index=(i,), shape=(TILE,)))

    @ct.kernel
    def twice(x, out, TILE: ConstInt):         # no staticmethod: still a kernel value
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) * 2)


class TestRunner:
    def run_local(self, stream, x, out, scale):      # a kernel of a method (a test class)
        tile = 16

        @ct.kernel
        def scaled(x, out):
            i = ct.bid(0)
            ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * scale)

        ct.launch(stream, (ct.cdiv(x.shape[0], tile),), scaled, (x, out))


def run(stream, x, y, out, alpha, tile):
    k = make_axpy_kernel(alpha)
    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), k, (x, y, out, tile))


def run_class(stream, x, out, tile, which):
    k = Kernels.negate if which == 0 else Kernels().twice
    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), k, (x, out, tile))
'''


def test_factory_of_ct_kernel_call_and_class_kernels_convert_and_run(tmp_path):
    """`ct.kernel(f, **hints)` of a function defined in a factory, kernels of a class body and
    of a method are hoisted: the host function's names its kernel reads become launcher
    keywords, the class keeps each kernel of its body as `staticmethod(launcher)`."""
    res = translate_source(FACTORY_AND_CLASS, "factory_kernels.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert "axpy = functools.partial(launch_axpy, alpha=alpha)" in out
    assert "return _with_hints(axpy, occupancy=2)" in out
    assert "negate = staticmethod(launch_negate)" in out
    assert "twice = staticmethod(launch_twice)" in out
    assert "scaled = functools.partial(launch_scaled, scale=scale)" in out
    # every hoisted kernel is at module level, before the class
    assert out.index("def launch_scaled(") < out.index("class TestRunner:")
    (tmp_path / "factory_kernels_triton.py").write_text(out)
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import factory_kernels_triton as mod\n"
              "g = torch.Generator().manual_seed(5)\n"
              "x = torch.randn(301, generator=g)\ny = torch.randn(301, generator=g)\nres = []\n"
              "for alpha, tile in ((1.5, 32), (-0.25, 64)):\n"
              "    o = torch.full_like(x, float('nan'))\n"
              "    mod.run(None, x, y, o, alpha, tile)\n    res.append(o)\n"
              "for which in (0, 1):\n"
              "    o = torch.full_like(x, float('nan'))\n"
              "    mod.run_class(None, x, o, 16, which)\n    res.append(o)\n"
              "o = torch.full_like(x, float('nan'))\n"
              "mod.TestRunner().run_local(None, x, o, -3.0)\nres.append(o)\n"
              "torch.save((x, y, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, y, res = torch.load(tmp_path / "res.pt")
    xd, yd = x.double(), y.double()
    for o, alpha in zip(res[:2], (1.5, -0.25)):
        torch.testing.assert_close(o.double(), alpha * xd + yd, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(res[2].double(), -xd, atol=0, rtol=0)
    torch.testing.assert_close(res[3].double(), 2 * xd, atol=0, rtol=0)
    torch.testing.assert_close(res[4].double(), -3 * xd, atol=1e-6, rtol=1e-6)


FUNCTION_VALUES = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.function
def sum_of_squares(t, axis):
    return ct.sum(t * t, axis=1)


CASES = [(ct.max, "max"), (ct.sum, "sum"), (sum_of_squares, "sumsq")]


def make_row_reduce(reduce_op):
    @ct.kernel
    def row_reduce(x, out, B: ConstInt, N: ConstInt):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=reduce_op(ct.load(x, index=(i, 0), shape=(B, N)),
                                                 axis=1))
    return row_reduce


def run(stream, x, out, which):
    op = [c for c, name in CASES if name == which][0]
    ct.launch(stream, (ct.cdiv(x.shape[0], 16),), make_row_reduce(op), (x, out, 16, 32))
'''


def test_factory_function_values_are_a_choice_by_name(tmp_path):
    """A factory's parameter that its kernel calls (`reduce_op`): the kernel is translated
    for each construct and helper the module names as a value, chosen by a constexpr name;
    host code passes constructs by name (`ct.max` is "max")."""
    res = translate_source(FUNCTION_VALUES, "function_values.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert 'CASES = [("max", "max"), ("sum", "sum"), (sum_of_squares, "sumsq")]' in out
    assert "reduce_op: tl.constexpr" in out and 'if reduce_op == "max"' in out
    assert "functools.partial(launch_row_reduce, reduce_op=_choice_name(reduce_op))" in out
    (tmp_path / "function_values_triton.py").write_text(out)
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import function_values_triton as mod\n"
              "g = torch.Generator().manual_seed(9)\n"
              "x = torch.randn(203, 32, generator=g)\nres = []\n"      # 13 tiles, last partial
              "for which in ('max', 'sum', 'sumsq'):\n"
              "    o = torch.full((203,), float('nan'))\n"
              "    mod.run(None, x, o, which)\n    res.append(o)\n"
              "torch.save((x, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, res = torch.load(tmp_path / "res.pt")
    xd = x.double()
    torch.testing.assert_close(res[0].double(), xd.amax(dim=1), atol=0, rtol=0)
    torch.testing.assert_close(res[1].double(), xd.sum(dim=1), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(res[2].double(), (xd * xd).sum(dim=1), atol=1e-4, rtol=1e-5)
