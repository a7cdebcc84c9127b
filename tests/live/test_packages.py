"""`tile2triton convert` of a package as a unit: a helper imported from another module is
translated into the kernel's module, a kernel launched from a third module is launched through
its launcher, host annotations naming `ct` and `ct.compiler_timeout` still give a module that
imports and runs. The converted package is run (TRITON_INTERPRET=1) against a float64 reference."""
import os
import subprocess
import sys
from pathlib import Path

import torch

from tile2triton.cli import main

HERE = Path(__file__).resolve().parent


def _ref(x, tile):
    n = x.shape[0]
    blocks = -(-n // tile)
    padded = torch.zeros(blocks * tile, dtype=torch.float64)
    padded[:n] = x.double()
    out = torch.zeros_like(padded)
    for i in range(blocks):
        j = (i + 3) % blocks
        out[j * tile:(j + 1) * tile] = padded[i * tile:(i + 1) * tile]
    return out[:n]


def test_package_converts_as_a_unit_and_runs(tmp_path, capsys):
    out = tmp_path / "converted" / "shop"
    assert main(["convert", str(HERE / "shop"), "-o", str(out)]) == 0, capsys.readouterr()
    kern = (out / "kern.py").read_text()
    assert "from shop.tiles import" not in kern          # the helper is local now
    assert "@triton.jit\ndef rotated(i, n):" in kern
    host = (out / "host.py").read_text()
    # the launch calls the kernel's launcher; the kernel's own name, now unused, is not
    # imported (it stays importable from shop.kern)
    assert "from shop.kern import launch_ring_copy\n" in host
    assert "launch_ring_copy(stream," in host and "cuda.tile" not in host
    assert "compute_type: tl.dtype = None" in host     # what host code holds for a ct dtype
    script = ("import torch\nfrom shop.host import run, Config\n"
              "g = torch.Generator().manual_seed(0)\n"
              "x = torch.randn(203, generator=g)\nout = torch.full((203,), float('nan'))\n"
              "run(None, x, out, Config(tile=32))\ntorch.save((x, out), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(out.parent))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, res = torch.load(tmp_path / "res.pt")
    torch.testing.assert_close(res.double(), _ref(x, 32), atol=0, rtol=0)


def test_helper_error_in_another_module_is_located_there(tmp_path, capsys):
    pkg = tmp_path / "bad"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(
        "import cuda.tile as ct\n\n\n@ct.function\ndef bump(t):\n    return t.nope()\n")
    (pkg / "kern.py").write_text(
        "import cuda.tile as ct\nfrom bad.helpers import bump\n\n\n@ct.kernel\n"
        "def k(x):\n    ct.store(x, index=(0,), tile=bump(ct.load(x, index=(0,), shape=(16,))))\n")
    assert main(["convert", str(pkg / "kern.py")]) == 1
    err = capsys.readouterr().err
    assert f"{pkg / 'helpers.py'}:6:" in err and "t.nope()" in err


def test_every_host_problem_is_reported_and_kernels_still_translate(tmp_path, capsys):
    src = tmp_path / "host_errors.py"
    src.write_text(
        "import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, T: ct.Constant[int]):\n"
        "    i = ct.bid(0)\n    ct.store(x, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)))\n"
        "\n\ndef a():\n    return ct.compilation.export_kernel(k)\n"
        "\n\ndef b():\n    return ct.static_eval(1)\n\n\nprint(b())\n")
    # (`b` is called by host code, so it is host code: uncalled, it would be tile code left
    # out with a note)
    assert main(["convert", str(src), "--json", str(tmp_path / "r.json")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:11:12: T2T109" in err and f"{src}:15:12: T2T109" in err
    import json
    rep = json.loads((tmp_path / "r.json").read_text())
    assert {"file": str(src), "kernel": "k", "line": 5, "status": "translated",
            "diagnostics": []} in rep["kernels"]
    host = [r for r in rep["kernels"] if r["kernel"] is None]
    assert [d["line"] for d in host[0]["diagnostics"]] == [11, 15]


def test_an_enum_of_another_module_is_a_translation_time_value(tmp_path, capsys):
    """`from util import Op` (a plain enum of the user's other module, as cuTile's tests
    import AtomicOp from util.py): `Op(op_id)` of a ct.Constant and a table keyed by its
    members fold per specialization, as the module's own enums do."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "util.py").write_text(
        "from enum import Enum\n\n\nclass Op(Enum):\n    ADD = 0\n    MAX = 1\n")
    (src / "kern.py").write_text(
        "import cuda.tile as ct\nfrom util import Op\n\n"
        "_FUNCS = {Op.ADD: ct.add, Op.MAX: ct.maximum}\n\n\n"
        "@ct.kernel\ndef combine(x, y, out, T: ct.Constant[int], op_id: ct.Constant[int]):\n"
        "    i = ct.bid(0)\n    func = ct.static_eval(_FUNCS[Op(op_id)])\n"
        "    a = ct.load(x, index=(i,), shape=(T,))\n    b = ct.load(y, index=(i,), shape=(T,))\n"
        "    ct.store(out, index=(i,), tile=func(a, b))\n\n\n"
        "def run(x, y, out, op):\n"
        "    ct.launch(None, (ct.cdiv(x.shape[0], 32),), combine, (x, y, out, 32, op.value))\n")
    out = tmp_path / "out"
    assert main(["convert", str(src), "-o", str(out)]) == 0, capsys.readouterr()
    kern = (out / "kern.py").read_text()
    assert "import cuda" not in kern and "op_id: tl.constexpr" in kern
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "from util import Op\nfrom kern import run\n"
              "g = torch.Generator().manual_seed(4)\n"
              "x = torch.randn(301, generator=g)\ny = torch.randn(301, generator=g)\nres = []\n"
              "for op in (Op.ADD, Op.MAX):\n    o = torch.full((301,), float('nan'))\n"
              "    run(x, y, o, op)\n    res.append(o)\ntorch.save((x, y, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(out))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, y, res = torch.load(tmp_path / "res.pt")
    torch.testing.assert_close(res[0].double(), x.double() + y.double(), atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(res[1].double(), torch.maximum(x, y).double(), atol=0, rtol=0)
