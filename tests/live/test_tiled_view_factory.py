"""A factory's `traversal_steps` (None or a tuple, its rank unknown at translation) and a
plain host function returning a bound method of a tiled view (`get_tv_method(tv)(idx, t)`),
as cuTile's test_tiled_view.py hands `make_tv_atomic_kernel` (issue 21: that kernel did not
translate, "traversal_steps of rank 1", so static mode served none of its launches)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tile2triton import interp
from tile2triton.translate import translate_source
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor

HERE = Path(__file__).resolve().parent
TILE = (4, 8)


def _reference(x, y, op, steps):
    """float64: each window of y (origin every `steps`, clipped) combined into x's window."""
    out, st = x.clone(), TILE if steps is None else steps
    for r in range(0, x.shape[0], st[0]):
        for c in range(0, x.shape[1], st[1]):
            a = out[r:r + TILE[0], c:c + TILE[1]]
            b = y[r:r + TILE[0], c:c + TILE[1]]
            a.copy_(a + b if op == "add" else torch.maximum(a, b))
    return out


def _inputs(seed):
    g = torch.Generator().manual_seed(seed)
    # 13 x 22: neither axis a multiple of the tile nor of the steps
    return (torch.randint(-50, 50, (13, 22), generator=g, dtype=torch.int32),
            torch.randint(-50, 50, (13, 22), generator=g, dtype=torch.int32))


CASES = [("add", None), ("max", None), ("add", (3, 5)), ("max", (6, 10))]


def test_the_kernel_translates_and_each_steps_and_method_runs_as_asked(tmp_path):
    res = translate_source((HERE / "kernels_tiled_view_factory.py").read_text(),
                           "kernels_tiled_view_factory.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert "(TM if traversal_steps is None else traversal_steps[0])" in out
    assert 'get_tv_method == "max_method"' in out
    (tmp_path / "tv_factory_triton.py").write_text(out)
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import tv_factory_triton as mod\n"
              f"cases = {CASES!r}\nres = []\n"
              "x, y = torch.load('in.pt')\n"
              "for op, steps in cases:\n"
              "    xi = x.clone()\n"
              "    mod.strided_update(xi, y, op, steps, (4, 8))\n"
              "    res.append(xi)\n"
              "torch.save(res, 'res.pt')\n")
    x, y = _inputs(7)
    torch.save((x, y), tmp_path / "in.pt")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    res = torch.load(tmp_path / "res.pt")
    for (op, steps), got in zip(CASES, res):
        want = _reference(x.double(), y.double(), op, steps)
        torch.testing.assert_close(got.double(), want, atol=0, rtol=0)
    assert not torch.equal(res[0], res[2])     # the steps do change the result here


@pytest.fixture(scope="module")
def factory():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_tiled_view_factory
            yield kernels_tiled_view_factory
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_tiled_view_factory", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


@pytest.mark.parametrize("op,steps", [("add", None), ("max", (3, 5))])
def test_the_checker_judges_the_static_translation(factory, sup, op, steps):
    kernel = factory.make_strided_update(factory.GETTERS[op], steps)
    x, y = _inputs(11)
    st = TILE if steps is None else steps
    grid = (-(-13 // st[0]), -(-22 // st[1]))
    rec = check_launch(kernel, grid, (x, y, TILE[0], TILE[1]), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    assert rec["artifact"]["mode"] == "static"
