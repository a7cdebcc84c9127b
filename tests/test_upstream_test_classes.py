"""Classes of code from cuTile's own test/ folder that `convert` translated into modules that
read undefined names (so the file was not written, even with --keep-unconverted). Each
translated module here runs under TRITON_INTERPRET=1 on random data whose length is not a
multiple of the tile."""
import importlib.util
import os
import sys
import textwrap

import pytest

from tile2triton.cli import main
from tile2triton.emit.module_check import unbound_names
from tile2triton.translate import translate_source

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")
N = 300


def _run(tmp_path, text, name):
    text = textwrap.dedent(text)
    src = tmp_path / f"{name}.py"
    src.write_text(text)
    out = tmp_path / "out" / f"{name}.py"
    assert main(["convert", str(src), "-o", str(out), "-q"]) == 0
    written = out.read_text()
    assert set(unbound_names(written)) <= set(unbound_names(text))
    spec = importlib.util.spec_from_file_location(name, out)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, written


def _data():
    x = torch.randn(N, dtype=torch.float64).float()
    return x, torch.full((N,), float("nan"))


def test_dtypes_imported_from_cuda_tile_datatype(tmp_path):
    """test_print.py: `from cuda.tile._datatype import float16` is ct.float16, in kernels and
    in host code; `np.float32` and a keyword `float32=` are not that name."""
    mod, written = _run(tmp_path, '''
    import numpy as np
    import cuda.tile as ct
    from cuda.tile._datatype import float16, float32


    @ct.kernel
    def scale(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        if x.dtype == float16:
            ct.store(y, index=(ct.bid(0),), tile=t * 2)
        elif x.dtype == float32:
            ct.store(y, index=(ct.bid(0),), tile=t * 3)


    def run(x, y):
        ct.launch(None, (3,), scale, (x, y, 128))
        return dict(float32=np.float32), float16
    ''', "datatype_mod")
    assert "cuda.tile" not in written.split("\n", 1)[1]
    x, y = _data()
    import numpy as np
    import triton.language as tl
    assert mod.run(x, y) == ({"float32": np.float32}, tl.float16)
    assert torch.equal(y, x * 3)


def test_a_view_made_and_dropped_emits_nothing(tmp_path):
    """test_tiled_view.py: `x.tiled_view(T)` as a statement has no run-time effect; it was
    written as the placeholder `x.tiled_view(...)`, reading an undefined `x`."""
    mod, written = _run(tmp_path, '''
    import cuda.tile as ct


    def run(x, y, tile):
        @ct.kernel
        def copy(a, b, TILE: ct.Constant[int]):
            a.tiled_view(tile)
            t = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
            ct.store(b, index=(ct.bid(0),), tile=t)

        ct.launch(None, (3,), copy, (x, y, 128))
    ''', "view_mod")
    assert "tiled_view" not in written
    x, y = _data()
    mod.run(x, y, 128)
    assert torch.equal(y, x)


def test_enum_chosen_by_a_runtime_branch_is_refused():
    """test_typeinfer.py: cuTile rejects an enum whose member depends on the path taken; the
    translation emitted `val == MemoryOrder.WEAK` with neither name defined."""
    text = textwrap.dedent('''
    import cuda.tile as ct


    @ct.kernel
    def k(x):
        if ct.bid(0) == 0:
            val = ct.MemoryOrder.RELAXED
        else:
            val = ct.MemoryOrder.WEAK
        print(val == ct.MemoryOrder.WEAK)


    @ct.kernel
    def same(x):
        if ct.bid(0) == 0:
            val = ct.MemoryOrder.WEAK
        else:
            val = ct.MemoryOrder.WEAK
        print(val == ct.MemoryOrder.WEAK)
    ''')
    r = translate_source(text, "m.py")
    assert [(k.kernel, k.status) for k in r.kernels] == [("k", "failed"), ("same", "translated")]
    d = r.kernels[0].diagnostics[0]
    assert (d.code, d.line, d.col) == ("T2T101", 7, 5) and "`val`" in d.message


def test_module_whose_linked_helper_module_imports_torch(tmp_path):
    """test/kernels/scaled_matmul.py: its helpers come from a module that imports torch; the
    module itself does not, and its launchers need it (before: `torch` undefined, T2T900)."""
    pkg = tmp_path / "lpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "utils.py").write_text(textwrap.dedent('''
    import torch
    import cuda.tile as ct


    @ct.function
    def plus_one(t):
        return t + 1
    '''))
    (pkg / "kern.py").write_text(textwrap.dedent('''
    import cuda.tile as ct
    from lpkg.utils import plus_one


    @ct.kernel
    def inc(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        ct.store(y, index=(ct.bid(0),), tile=plus_one(t))


    def run(x, y):
        ct.launch(None, (3,), inc, (x, y, 128))
    '''))
    out = tmp_path / "out"
    assert main(["convert", str(pkg / "kern.py"), "-o", str(out / "kern.py"), "-q"]) == 0
    assert "import torch\n" in (out / "kern.py").read_text()
    spec = importlib.util.spec_from_file_location("linked_torch_mod", out / "kern.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = _data()
    mod.run(x, y)
    assert torch.equal(y, x + 1)
