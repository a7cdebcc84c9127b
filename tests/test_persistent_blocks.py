"""Matrix kernels over TMA operands run persistently (src/tile2triton/coarsen.py, `persistable`):
each program walks blocks pid, pid + programs, ... of axis 0 in a `tl.range(..., flatten=...)`
loop, and the launcher runs at most one program per SM when it built TMA descriptors (GPU run 32:
the fp16 matmul at cuTile's tile went from 1.00-1.01x to 1.04-1.07x cuTile). Pinned here: the
form, the launcher's grid, that the result is the product (float64 reference, ragged shapes, on
the interpreter, where the launcher runs 3 programs), and the kernels left one block per
program."""
import textwrap
from pathlib import Path

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

ROOT = Path(__file__).resolve().parents[1]
MATMUL = ROOT / "benchmarks" / "suite" / "matmul" / "kernel.py"


def _matmul_module(tmp_path, name):
    res = translate_source(MATMUL.read_text(), str(MATMUL))
    assert res.ok
    path = tmp_path / f"{name}.py"
    path.write_text(res.output)
    return res.output, load_module(path, name)


def test_the_persistent_form_is_pinned():
    text = translate_source(MATMUL.read_text(), str(MATMUL)).output
    assert '@triton.jit(do_not_specialize=["grid_x"])\ndef matmul_kernel(' in text
    assert ("    for block_x in tl.range(tl.program_id(0), grid_x, tl.num_programs(0), "
            "flatten=FLATTEN):\n        bm, bn = grouped_tile(A_shape0, B_shape1, tm, tn, 8, "
            "block_x)") in text
    assert "    B_desc,\n    grid_x,\n    A_div: tl.constexpr," in text
    assert ("    if (A_desc is not None or B_desc is not None) and all(g == 1 for g in "
            "grid_rest):\n        grid = (min(grid_x, _sm_count(A)),)") in text
    assert "FLATTEN=A_desc is not None or B_desc is not None," in text


class _GridSpy:
    """Stands in for the Triton kernel: records the grid of each launch."""

    def __init__(self, kernel):
        self.kernel, self.grids = kernel, []

    def __getitem__(self, grid):
        self.grids.append(tuple(grid))
        return self.kernel[grid]

    def __getattr__(self, name):
        return getattr(self.kernel, name)


@pytest.mark.parametrize("m, n, k, tiles, programs", [
    (200, 136, 72, (32, 32, 32), 3),      # 7 x 5 blocks, TMA operands: 3 programs walk them
    (200, 130, 70, (32, 32, 32), 35),     # rows of 140 and 260 bytes: no descriptor, no walk
    (33, 40, 64, (64, 64, 32), 1),        # fewer blocks than programs
])
def test_walked_blocks_compute_the_product(tmp_path, m, n, k, tiles, programs):
    _, mod = _matmul_module(tmp_path, f"persistent_{m}_{n}_{k}")
    spy = mod.matmul_kernel = _GridSpy(mod.matmul_kernel)
    g = torch.Generator().manual_seed(m + n + k)
    a = torch.randn(m, k, generator=g).half()
    b = torch.randn(k, n, generator=g).half()
    c = torch.full((m, n), float("nan"), dtype=torch.float16)
    mod.launch(None, a, b, c, tiles)
    (grid,) = spy.grids
    assert grid[0] == programs and all(g == 1 for g in grid[1:])
    expect = a.double() @ b.double()
    assert torch.allclose(c.double(), expect, atol=3e-2, rtol=1e-2)


@pytest.mark.parametrize("why, src", [
    ("a block waits on an atomic", """
    @ct.kernel
    def k(a, b, c, out, TM: ct.Constant[int], TK: ct.Constant[int]):
        acc = ct.zeros((TM, TM), dtype=ct.float32)
        for i in range(ct.num_tiles(a, 1, (TM, TK))):
            acc = ct.mma(ct.load(a, (ct.bid(0), i), (TM, TK)), ct.load(b, (i, 0), (TK, TM)), acc)
        ct.store(c, (ct.bid(0), 0), acc.astype(c.dtype))
        ct.atomic_add(out, 0, 1)
    """),
    ("a block reads the grid's size", """
    @ct.kernel
    def k(a, b, c, TM: ct.Constant[int], TK: ct.Constant[int]):
        acc = ct.zeros((TM, TM), dtype=ct.float32)
        for i in range(ct.num_tiles(a, 1, (TM, TK))):
            acc = ct.mma(ct.load(a, (ct.bid(0), i), (TM, TK)), ct.load(b, (i, 0), (TK, TM)), acc)
        ct.store(c, (ct.bid(0) % ct.num_blocks(0), 0), acc.astype(c.dtype))
    """),
    ("a grid of two axes", """
    @ct.kernel
    def k(a, b, c, TM: ct.Constant[int], TK: ct.Constant[int]):
        acc = ct.zeros((TM, TM), dtype=ct.float32)
        for i in range(ct.num_tiles(a, 1, (TM, TK))):
            acc = ct.mma(ct.load(a, (ct.bid(0), i), (TM, TK)),
                         ct.load(b, (i, ct.bid(1)), (TK, TM)), acc)
        ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))
    """),
    ("no matrix product", """
    @ct.kernel
    def k(a, c, TM: ct.Constant[int], TK: ct.Constant[int]):
        acc = ct.zeros((TM, TK), dtype=ct.float32)
        for i in range(ct.num_tiles(a, 1, (TM, TK))):
            acc += ct.load(a, (ct.bid(0), i), (TM, TK))
        ct.store(c, (ct.bid(0), 0), acc.astype(c.dtype))
    """),
])
def test_kernels_left_one_block_per_program(why, src):
    res = translate_source("import cuda.tile as ct\n" + textwrap.dedent(src), "<test>")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "grid_x" not in res.output and "_sm_count(" not in res.output, why


def test_persistent_matmul_compiles_to_wgmma_over_tma_for_sm90(tmp_path):
    """Triton's compiler takes the walked form at the suite's fp16 4096^3 size: wgmma dots,
    TMA operand loads, nothing spilled (`tile2triton inspect`, no GPU)."""
    import json
    import os
    import subprocess
    import sys
    out = tmp_path / "inspect.json"
    r = subprocess.run([sys.executable, "-m", "tile2triton", "inspect",
                        str(MATMUL.parent), "--bench", "0", "--json", str(out)],
                       capture_output=True, text=True, timeout=600,
                       env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"})
    assert r.returncode == 0, r.stdout + r.stderr
    (rec,) = json.loads(out.read_text())
    assert rec["ok"] and rec["spill_bytes"] == 0
    assert rec["dots"] >= 1 and rec["wgmma_dots"] == rec["dots"] and rec["tma_loads"] >= 2
