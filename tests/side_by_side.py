"""Shared by the test files that run translations side by side with the cuTile reference
interpreter (test_kernel_control.py, test_shape_broadcasts.py): `translate`, `Both` (one source
translated once and interpreted once) and `compile_messages` (compile for sm_90 with Triton's
front end, no GPU, in a subprocess)."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport math\nimport torch\n"


def translate(src: str, name: str = "<side-by-side>") -> str:
    res = translate_source(HEADER + textwrap.dedent(src), name)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    return res.output


class Both:
    """A source translated once and interpreted once; `run` launches a kernel on both with
    copies of the same arguments and returns (interpreter args, translation args)."""

    def __init__(self, tmp_path, src, name):
        (tmp_path / f"{name}_cutile.py").write_text(HEADER + textwrap.dedent(src))
        self.orig = interp.load_module_with_interpreter(str(tmp_path / f"{name}_cutile.py"))
        self.path = tmp_path / f"{name}_triton.py"
        self.path.write_text(translate(src))
        self.text = self.path.read_text()
        spec = importlib.util.spec_from_file_location(f"t2t_side_{name}", self.path)
        self.trans = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.trans)

    def run(self, kernel, grid, args):
        a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        interp.run_kernel(getattr(self.orig, kernel), grid, tuple(a1))
        getattr(self.trans, f"launch_{kernel}")(None, grid, *a2)
        return a1, a2


_PROBE = r"""
import importlib.util, json, sys, torch
from tile2triton.verify.compile_probe import CompileProbe
spec = importlib.util.spec_from_file_location("probe_mod", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
probe = CompileProbe()
out = []
for args in eval(sys.argv[3]):
    recs = probe.run(getattr(mod, sys.argv[2]), (None,) + tuple(args))
    out.extend(r.get("message", "ok") for r in recs)
print(json.dumps(out))
"""


def compile_messages(path, kernel: str, launches: str) -> list:
    """Compile `kernel` of the translation at `path` for sm_90 (no GPU) for each launch of
    `launches` (Python text: a list of (grid, *args)); the error message of each, or 'ok'."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _PROBE, str(path), f"launch_{kernel}", launches],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def gen(seed=0):
    return torch.Generator().manual_seed(seed)
