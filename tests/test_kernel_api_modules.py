"""A module of the user's package that imports no cuda.tile but calls a cuTile kernel method on
a kernel of another module (`TABLE = {"one_cta": kernel.replace_hints(num_ctas=1)}`, as
corpus/projects/rowops_project's variants.py does) is host code of that kernel: `convert`
translates it too, or the Triton kernel it gets would lack `replace_hints` (issue 21)."""
import os
import subprocess
import sys

from tile2triton.cli import main

KERNELS = '''
import cuda.tile as ct


@ct.kernel
def scaled(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) * 3.0)
'''

VARIANTS = '''
from .kernels import scaled

KINDS = {"plain": scaled}
# a table of variants, and a variant of a kernel reached through a table
VARIANTS = {"one_cta": scaled.replace_hints(num_ctas=1)}


def more_hints(kind):
    return KINDS[kind].replace_hints(occupancy=2)
'''

UNRELATED = '''
class Thing:
    def replace_hints(self, **hints):
        return hints


def use(t):
    return t.replace_hints(a=1)
'''


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text(KERNELS)
    (pkg / "variants.py").write_text(VARIANTS)
    (pkg / "unrelated.py").write_text(UNRELATED)
    return pkg


def test_a_module_calling_replace_hints_on_an_imported_kernel_is_converted(tmp_path):
    pkg = _package(tmp_path)
    assert main(["convert", str(pkg), "--in-place", "-q"]) == 0
    variants = (pkg / "variants.py").read_text()
    assert "_with_hints(scaled, num_ctas=1)" in variants
    assert "_with_hints(KINDS[kind], occupancy=2)" in variants
    assert (pkg / "unrelated.py").read_text() == UNRELATED      # no kernel: left as it is
    converted = {f.name: f.read_text() for f in pkg.glob("*.py")}
    assert main(["convert", str(pkg), "--in-place", "-q"]) == 0   # converting twice: no change
    assert {f.name: f.read_text() for f in pkg.glob("*.py")} == converted
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "from pkg import variants\n"
              "g = torch.Generator().manual_seed(4)\n"
              "x = torch.randn(100, generator=g)\nouts = []\n"     # 100: the last tile is partial
              "for launcher in (variants.VARIANTS['one_cta'], variants.more_hints('plain')):\n"
              "    out = torch.full((100,), float('nan'))\n"
              "    launcher(None, (4,), x, out, 32)\n    outs.append(out)\n"
              "torch.save((x, outs, variants.VARIANTS['one_cta'].hints), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import torch
    x, outs, hints = torch.load(tmp_path / "res.pt")
    for out in outs:
        torch.testing.assert_close(out.double(), x.double() * 3.0, atol=1e-6, rtol=1e-6)
    assert hints == {"num_ctas": 1}
