"""ct.floor / ct.ceil (patterns/math.py) of scalars that reach Triton as Python numbers: a
ct.Constant[float] parameter, and runtime scalar parameters (which the Triton interpreter
passes as Python numbers too). Compared with the cuTile reference interpreter and Python's
math on an output whose length is not a multiple of the tile."""
import importlib.util
import math
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport torch\n"

SRC = """
@ct.kernel
def const_floor(x: ct.Constant[float], y, T: ct.Constant[int]):
    c = ct.floor(x) + ct.ceil(x) * 100.0
    ct.store(y, index=(ct.bid(0),), tile=ct.full((T,), c, dtype=y.dtype))


@ct.kernel
def runtime_floor(x, n, y, T: ct.Constant[int]):
    c = ct.floor(x) + ct.ceil(x) * 100.0 + n * 10000.0
    ct.store(y, index=(ct.bid(0),), tile=ct.full((T,), c, dtype=y.dtype))
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scalar_math")
    (tmp / "sm_cutile.py").write_text(HEADER + textwrap.dedent(SRC))
    orig = interp.load_module_with_interpreter(str(tmp / "sm_cutile.py"))
    res = translate_source(HEADER + textwrap.dedent(SRC), "<scalar-math>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp / "sm_triton.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_scalar_math", tmp / "sm_triton.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans


def _both(mods, kernel, grid, args):
    orig, trans = mods
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


N, T = 203, 64


@pytest.mark.parametrize("x", [-5.5, 2.25, 7.0])
def test_constant_float(mods, x):
    y = torch.zeros(N, dtype=torch.float64)
    r1, r2 = _both(mods, "const_floor", (-(-N // T),), [x, y, T])
    want = math.floor(x) + math.ceil(x) * 100.0
    assert torch.equal(r2[1], torch.full((N,), want, dtype=torch.float64))
    assert torch.equal(r1[1], r2[1])


@pytest.mark.parametrize("x, n", [(-5.5, 3), (0.75, -4)])
def test_runtime_scalars(mods, x, n):
    y = torch.zeros(N, dtype=torch.float32)
    r1, r2 = _both(mods, "runtime_floor", (-(-N // T),), [x, n, y, T])
    want = math.floor(x) + math.ceil(x) * 100.0 + n * 10000.0
    assert torch.equal(r2[2], torch.full((N,), want, dtype=torch.float32))
    assert torch.equal(r1[2], r2[2])
