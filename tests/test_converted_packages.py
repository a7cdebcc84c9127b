"""A converted package imports and passes its own checks without cuTile (issue 21: what
`convert` writes is what gets verified). Each case is a class of failure found converting a
real multi-backend op library on the CPU; the packages here are reduced to that pattern. The
converted packages run in a subprocess where `import cuda.tile` fails, kernels under
TRITON_INTERPRET=1, on random data whose length is not a multiple of the tile."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tile2triton.cli import main
from tile2triton.emit.probes import probe_rewrite

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[1]


def _write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _run_without_cutile(tmp_path: Path, package_root: Path, code: str):
    blocker = tmp_path / "hide_cutile" / "cuda" / "tile"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('cuda-tile is hidden')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.pathsep.join(
        [str(tmp_path / "hide_cutile"), str(package_root), str(ROOT / "src")]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=240)


# -- a backend selector that asks whether cuda.tile imports ---------------------------------------

PROBED_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/backend.py": '''
        try:
            import cuda.tile as ct
            import cuda.tile.tune  # noqa: F401
            CUTILE = True
        except ImportError:
            import warnings
            warnings.warn("cuda.tile / cuda.tile.tune not found: cutile backend off")
            CUTILE = False
    ''',
    "pkg/ops.py": '''
        import torch
        import cuda.tile as ct
        from pkg import backend


        @ct.kernel
        def scale(x, y, f: float, TILE: ct.Constant[int]):
            t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
            ct.store(y, index=(ct.bid(0),), tile=t * f)


        def scaled(x, f):
            if not backend.CUTILE:
                raise RuntimeError("cutile backend unavailable")
            y = torch.empty_like(x)
            ct.launch(None, (ct.cdiv(x.shape[0], 64),), scale, (x, y, f, 64))
            return y
    ''',
}


def test_a_backend_probe_of_cuda_tile_probes_triton_after_convert(tmp_path):
    _write(tmp_path / "src", PROBED_PACKAGE)
    out = tmp_path / "out"
    assert main(["convert", str(tmp_path / "src"), "-o", str(out), "-q"]) == 0
    written = (out / "pkg" / "backend.py").read_text()
    assert "import cuda" not in written
    assert written.count("import triton") == 1      # one probe per `try:`
    r = _run_without_cutile(tmp_path, out, '''
        import torch
        from pkg import backend, ops
        assert backend.CUTILE
        x = torch.randn(301, dtype=torch.float32)
        y = ops.scaled(x, 1.5)
        ref = (x.double() * 1.5).float()
        assert torch.equal(y, ref), (y - ref).abs().max()
        print("ok")
    ''')
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


@pytest.mark.parametrize("body, why", [
    ("try:\n    import cuda.tile as ct\nexcept ImportError:\n    ct = None\n", "rebinds ct"),
    ("try:\n    import cuda.tile as ct\nexcept ImportError:\n    pass\nX = ct.float32\n",
     "reads ct"),
    ("try:\n    import cuda.tile as ct, os\nexcept ImportError:\n    pass\n", "also imports os"),
    ("try:\n    import cuda.tile as ct\nexcept KeyError:\n    pass\n", "not an ImportError"),
    ("try: import cuda.tile as ct\nexcept ImportError:\n    pass\n", "shares its line"),
    ("try:\n    import cuda.tile as ct\nexcept ImportError:\n    pass\n"
     "def f(k: 'ct.kernel'):\n    pass\n", "a string annotation names ct"),
    ("import importlib\ntry:\n    import cuda.tile\nexcept ImportError:\n    pass\n"
     "m = importlib.import_module('cuda.tile')\n", "imported again by name"),
])
def test_cuda_tile_imports_that_are_more_than_a_probe_are_not_rewritten(body, why):
    assert probe_rewrite(body) is None, why


def test_a_probe_inside_a_function_is_rewritten_and_runs():
    text = textwrap.dedent('''
        def available():
            try:
                from cuda import tile  # noqa: F401
            except ModuleNotFoundError:
                return False
            return True
    ''')
    out = probe_rewrite(text)
    assert out is not None and "from cuda" not in out
    namespace = {}
    exec(compile(out, "probe.py", "exec"), namespace)
    assert namespace["available"]() is True
