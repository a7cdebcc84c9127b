"""Matrix kernels over TMA operands run persistently (src/tile2triton/emit/coarsening.py, `persistable`):
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
    assert ("        (A_desc is not None or B_desc is not None)\n        and tile_elems >= 128 * 128\n"
            "        and all(g == 1 for g in grid_rest)\n    )\n    if walked:\n"
            "        grid = (_walk_programs(grid_x, A),)") in text
    assert "FLATTEN=walked," in text


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
    (300, 136, 72, (128, 128, 32), 3),    # 3 x 2 blocks, TMA operands: 3 programs walk them
    (200, 130, 70, (128, 128, 32), 4),    # rows of 140 and 260 bytes: no descriptor, no walk
    (200, 136, 72, (32, 32, 32), 35),     # tiles too small to fill an SM: a program per block
    (33, 40, 64, (128, 128, 32), 1),      # fewer blocks than programs
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
    assert "grid_x" not in res.output and "_walk_programs(" not in res.output, why


def test_the_walk_takes_as_many_programs_as_its_rounds_need(tmp_path):
    """At most one program per SM, and no more than ceil(blocks / rounds): GPU run 40 measured
    the 8192^3 fp16 matmul (4096 blocks) at 1.035x cuTile on 128 programs against 1.018x on
    132, where 4 SMs ran a 32nd round of their own."""
    from types import SimpleNamespace
    _, mod = _matmul_module(tmp_path, "walk_programs")
    mod._SM_COUNTS[0] = 132
    gpu = SimpleNamespace(is_cuda=True, device=SimpleNamespace(index=0))
    programs = {b: mod._walk_programs(b, gpu) for b in (0, 1, 100, 132, 133, 1024, 4096, 4097)}
    assert programs == {0: 0, 1: 1, 100: 100, 132: 132, 133: 67, 1024: 128, 4096: 128,
                        4097: 129}
    for blocks, p in programs.items():      # the same number of rounds as 132 programs take
        assert not blocks or -(-blocks // p) == -(-blocks // 132)


# A grid of 2 or 3 axes (`ct.bid(1)` the column of tiles, the commonest matmul): the kernel
# numbers its blocks axis 0 fastest and walks them in one loop.
GRID_2D = """
import cuda.tile as ct


@ct.kernel
def mm(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def launch(a, b, c, tiles):
    tm, tn, tk = tiles
    grid = (ct.cdiv(c.shape[0], tm), ct.cdiv(c.shape[1], tn), 1)
    ct.launch(None, grid, mm, (a, b, c, tm, tn, tk))
"""
# the same product with the column of tiles split over axes 1 and 2 (bid(2) the low bit)
GRID_3D = GRID_2D.replace("ct.bid(1)", "(ct.bid(1) * 2 + ct.bid(2))").replace(
    "ct.cdiv(c.shape[1], tn), 1)", "ct.cdiv(ct.cdiv(c.shape[1], tn), 2), 2)")


def test_a_grid_of_two_or_three_axes_is_walked_in_launch_order():
    text = translate_source(GRID_2D, "<test>").output
    assert ("    for block in tl.range(tl.program_id(0), grid_x * grid_y, tl.num_programs(0), "
            "flatten=FLATTEN):\n        block_x = block % grid_x\n"
            "        block_y = block // grid_x\n") in text
    kernel = text[text.index("def mm("):text.index("def launch_mm(")]
    assert "tl.program_id(1)" not in kernel
    assert "    grid_x, grid_y, *grid_rest = (*_grid(grid), 1)[:3]\n" in text
    assert ("        (a_desc is not None or b_desc is not None)\n        and tile_elems >= 128 * 128\n"
            "        and all(g == 1 for g in grid_rest)\n    )\n    grid = (_walk_programs(blocks, a),) "
            "if walked else (blocks, *grid_rest)\n") in text
    text = translate_source(GRID_3D, "<test>").output
    assert ("        block_y = block // grid_x % grid_y\n"
            "        block_z = block // (grid_x * grid_y)\n") in text


@pytest.mark.parametrize("src", [GRID_2D, GRID_3D], ids=["2-D", "3-D"])
@pytest.mark.parametrize("m, n, k, tiles, programs", [
    (300, 136, 72, (128, 128, 32), 3),    # TMA operands: 3 programs (the interpreter's SMs)
    (200, 130, 70, (128, 128, 32), None),  # rows of 140 and 260 bytes: a program per block
    (200, 136, 72, (32, 64, 32), None),   # small tiles: a program per block
])
def test_walked_grid_computes_the_product(tmp_path, src, m, n, k, tiles, programs):
    res = translate_source(src, "<test>")
    assert res.ok, [d.format() for d in res.diagnostics()]
    name = f"grid_walk_{m}_{n}_{len(src)}"
    (tmp_path / f"{name}.py").write_text(res.output)
    mod = load_module(tmp_path / f"{name}.py", name)
    spy = mod.mm = _GridSpy(mod.mm)
    g = torch.Generator().manual_seed(m * n + k)
    a = torch.randn(m, k, generator=g).half()
    b = torch.randn(k, n, generator=g).half()
    c = torch.full((m, n), float("nan"), dtype=torch.float16)
    mod.launch(a, b, c, tiles)
    (grid,) = spy.grids
    tm, tn, _ = tiles
    blocks = -(-m // tm) * -(-n // tn) if src is GRID_2D else -(-m // tm) * -(-n // tn // 2) * 2
    assert grid[0] == (programs or blocks) and all(g == 1 for g in grid[1:])
    assert torch.allclose(c.double(), a.double() @ b.double(), atol=3e-2, rtol=1e-2)


# Upstream's idiom (test/kernels/matmul.py): the block id read by a helper, and operands
# converted as they are loaded (`ct.load(...).astype(dtype)`).
HELPER_READS_BID = """
import cuda.tile as ct


def block_tile(N, tn):
    b = ct.bid(0)
    per_row = ct.cdiv(N, tn)
    return b // per_row, b % per_row


@ct.kernel
def mm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = block_tile(B.shape[1], tn)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
"""


def test_a_helper_reading_the_block_id_takes_it_under_its_own_name(tmp_path):
    """Only the walked kernel calls the helper: it keeps the user's name (no `_at_block` copy)
    and takes the block id as a parameter."""
    res = translate_source(HELPER_READS_BID, "helper_bid.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    text = res.output
    assert "A_desc.load([bm * tm, k * tk])" in text          # loads converted as loaded: TMA
    assert "bm, bn = block_tile(B_shape1, tn, block_x)" in text
    helper = text[text.index("def block_tile("):]
    helper = helper[:helper.index("\n\n\n")]
    assert "b = block_x" in helper and "tl.program_id" not in helper
    assert "_at_block" not in text and text.count("def block_tile(") == 1
    path = tmp_path / "helper_bid_triton.py"
    path.write_text(text)
    mod = load_module(path, "helper_bid_triton")
    spy = mod.mm = _GridSpy(mod.mm)
    g = torch.Generator().manual_seed(7)
    a = torch.randn(300, 96, generator=g).half()
    b = torch.randn(96, 136, generator=g).half()
    c = torch.full((300, 136), float("nan"), dtype=torch.float16)
    blocks = -(-300 // 128) * -(-136 // 128)
    mod.launch_mm(None, (blocks,), a, b, c, 128, 128, 32)
    assert spy.grids == [(3,)]
    assert torch.allclose(c.double(), a.double() @ b.double(), atol=3e-2, rtol=1e-2)


def test_a_block_id_read_by_a_helper_of_a_helper_keeps_one_block_per_program():
    src = HELPER_READS_BID.replace("bm, bn = block_tile(B.shape[1], tn)",
                                   "bm, bn = outer(B.shape[1], tn)").replace(
        "@ct.kernel", "def outer(N, tn):\n    return block_tile(N, tn)\n\n\n@ct.kernel")
    res = translate_source(src, "helper_helper_bid.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "_at_block" not in res.output and "grid_x" not in res.output


def test_a_helper_still_called_as_written_keeps_its_definition():
    """A second kernel, one block per program (a 2-D grid), calls the helper itself."""
    other = """

@ct.kernel
def rows(X, Y, tn: ct.Constant[int]):
    bm, bn = block_tile(X.shape[1], tn)
    t = ct.load(X, index=(bm, bn + ct.bid(1) * 0), shape=(1, tn))
    ct.store(Y, index=(bm, bn), tile=t)
"""
    res = translate_source(HELPER_READS_BID + other, "helper_bid_two.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "def block_tile(" in res.output and "def block_tile_at_block(" in res.output
    assert "bm, bn = block_tile(X_shape1, tn)" in res.output


@pytest.mark.parametrize("case", [MATMUL.parent, ROOT / "corpus" / "matmul_fp16_tiles128"],
                         ids=["1-D grid", "2-D grid"])
def test_persistent_matmul_compiles_to_wgmma_over_tma_for_sm90(tmp_path, case):
    """Triton's compiler takes the walked form at fp16 4096^3 (the suite's 1-D grid, the
    corpus's 2-D one): wgmma dots, TMA operand loads, nothing spilled (`tile2triton inspect`,
    no GPU)."""
    import json
    import os
    import subprocess
    import sys
    out = tmp_path / "inspect.json"
    r = subprocess.run([sys.executable, "-m", "tile2triton", "inspect",
                        str(case), "--bench", "0", "--json", str(out)],
                       capture_output=True, text=True, timeout=600,
                       env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"})
    assert r.returncode == 0, r.stdout + r.stderr
    (rec,) = json.loads(out.read_text())
    assert rec["ok"] and rec["spill_bytes"] == 0
    assert rec["dots"] >= 1 and rec["wgmma_dots"] == rec["dots"] and rec["tma_loads"] >= 2
