"""Block coarsening (src/tile2triton/emit/coarsening.py): several small independent cuTile blocks per
Triton program. The translation must stay exact for any grid (blocks past the launch's grid do
nothing, a grid smaller than the array leaves the rest alone) and must not coarsen a kernel
whose blocks may depend on each other or on the grid's size."""
import textwrap

import pytest
import torch

from tile2triton import interp
from tile2triton.translate import translate_source
from tile2triton.verify.corpus import load_module

HEADER = "import cuda.tile as ct\n\n"

SMALL_TILES = """
@ct.kernel
def axpy(x, y, out, alpha, TILE: ct.Constant[int]):
    b = ct.bid(0)
    tx = ct.load(x, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ty = ct.load(y, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(b,), tile=tx * alpha + ty)
"""


def _translate(src):
    res = translate_source(HEADER + textwrap.dedent(src), "<test>")
    assert res.ok, [d.format() for d in res.diagnostics()]
    return res.output


def _modules(tmp_path, src):
    path = tmp_path / "k_cutile.py"
    path.write_text(HEADER + textwrap.dedent(src))
    out = tmp_path / "k_triton.py"
    out.write_text(_translate(src))
    return interp.load_module_with_interpreter(str(path)), load_module(out, "k_triton_coarse")


def test_small_tiles_are_coarsened():
    out = _translate(SMALL_TILES)
    assert "for _blk in tl.static_range(BLOCKS_PER_PROGRAM):" in out
    assert "if block_x < grid_x:" in out
    assert '@triton.jit(do_not_specialize=["grid_x"])' in out
    assert "blocks_per_program = max(1, min(8, 256 // TILE))" in out


@pytest.mark.parametrize("n,tile,grid", [(1000, 32, 32), (1000, 32, 29), (777, 64, 13),
                                         (300, 16, 19)])
def test_coarsened_kernel_matches_for_any_grid(tmp_path, n, tile, grid):
    """Grids that are not multiples of the blocks per program, and grids covering only part
    of the arrays: only the launched blocks write."""
    orig, trans = _modules(tmp_path, SMALL_TILES)
    g = torch.Generator().manual_seed(n + grid)
    x, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
    ref = torch.full((n,), float("nan"), dtype=torch.float64)
    covered = min(n, grid * tile)
    ref[:covered] = x[:covered].double() * 1.5 + y[:covered].double()
    o1 = torch.full((n,), float("nan"))
    o2 = torch.full((n,), float("nan"))
    interp.run_kernel(orig.axpy, (grid,), (x, y, o1, 1.5, tile))
    trans.launch_axpy(None, (grid,), x, y, o2, 1.5, tile)
    torch.testing.assert_close(o2.double(), ref, rtol=1e-6, atol=1e-6, equal_nan=True)
    torch.testing.assert_close(o1.double(), ref, rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("body", [
    # blocks that may wait on each other, or that learn the grid's size
    "ct.atomic_add(out, b, ct.load(x, index=(b,), shape=()))",
    "ct.store(out, index=(b,), tile=ct.full((TILE,), ct.num_blocks(0), dtype=ct.float32))",
    # a parameter re-bound after a use: the next block would see the first block's value
    "ct.store(out, index=(b,), tile=ct.load(x, index=(b,), shape=(TILE,)) + s)\n"
    "    s = 1.0\n"
    "    ct.store(out, index=(b,), tile=ct.load(x, index=(b,), shape=(TILE,)) * s)",
    # per-block loops: not small blocks
    "for i in range(3):\n        ct.store(out, index=(b,), tile=ct.load(x, index=(b,), "
    "shape=(TILE,)))",
])
def test_dependent_or_large_blocks_are_not_coarsened(body):
    src = f"""
@ct.kernel
def k(x, out, s, TILE: ct.Constant[int]):
    b = ct.bid(0)
    {body}
"""
    out = _translate(src)
    assert "BLOCKS_PER_PROGRAM" not in out and "grid_x" not in out


def test_literal_large_tiles_are_left_alone():
    out = _translate(SMALL_TILES.replace("TILE: ct.Constant[int]", "UNUSED: ct.Constant[int]")
                     .replace("(TILE,)", "(512,)"))
    assert "BLOCKS_PER_PROGRAM" not in out


def test_module_with_an_early_returning_helper_is_not_coarsened():
    """Triton cannot compile a helper that returns early when it is called inside the
    coarsening loop's `if` (PassManager::run failed on sm_90, upstream's
    test_helper_function_early_return in GPU run 21): such a module keeps one block per
    program."""
    src = """
def pick(tx, ty, early):
    if early:
        return tx
    return tx + ty


@ct.kernel
def k(x, y, out, early: bool, TILE: ct.Constant[int]):
    b = ct.bid(0)
    tx = ct.load(x, index=(b,), shape=(TILE,))
    ty = ct.load(y, index=(b,), shape=(TILE,))
    ct.store(out, index=(b,), tile=pick(tx, ty, early))
"""
    out = _translate(src)
    assert "def pick(" in out and "BLOCKS_PER_PROGRAM" not in out
    assert "BLOCKS_PER_PROGRAM" in _translate(src.replace(
        "    if early:\n        return tx\n    return tx + ty", "    return tx + ty * early"))


def test_module_whose_helper_reads_the_block_id_is_not_coarsened(tmp_path):
    """A helper that calls ct.bid(0) itself would read the program's id, not the block's."""
    src = """
def here(x, TILE: ct.Constant[int]):
    return ct.load(x, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)


@ct.kernel
def k(x, out, TILE: ct.Constant[int]):
    ct.store(out, index=(ct.bid(0),), tile=here(x, TILE) * 2.0)
"""
    out = _translate(src)
    assert "BLOCKS_PER_PROGRAM" not in out
    orig, trans = _modules(tmp_path, src)
    x = torch.randn(300, generator=torch.Generator().manual_seed(3))
    o1, o2 = torch.full((300,), float("nan")), torch.full((300,), float("nan"))
    interp.run_kernel(orig.k, (10,), (x, o1, 32))
    trans.launch_k(None, (10,), x, o2, 32)
    torch.testing.assert_close(o2.double(), x.double() * 2.0)
    torch.testing.assert_close(o1.double(), x.double() * 2.0)


def test_decision_reads_the_recorded_facts_not_the_text():
    """Coarsening asks the facts the lowering recorded (lower/unit.py BodyFacts), read from the
    generated body's syntax: a comment that names an atomic or a loop is not one, while a real
    atomic (in a device helper) and a real loop keep one block per program."""
    from tile2triton.lower.unit import BodyFacts
    commented = SMALL_TILES.replace(
        "    b = ct.bid(0)\n",
        "    # for each block: no tl.atomic_add, no tl.num_programs, no while, no return\n"
        "    b = ct.bid(0)\n")
    out = _translate(commented)
    assert "# for each block: no tl.atomic_add" in out
    assert "for _blk in tl.static_range(BLOCKS_PER_PROGRAM):" in out
    atomic = SMALL_TILES.replace("    ct.store(out,", "    ct.atomic_add(out, b, 1.0)\n"
                                 "    ct.store(out,")
    assert "tl.static_range(BLOCKS_PER_PROGRAM)" not in _translate(atomic)
    looping = SMALL_TILES.replace("    ct.store(out,", "    for i in range(2):\n"
                                  "        ty = ty + i\n    ct.store(out,")
    assert "tl.static_range(BLOCKS_PER_PROGRAM)" not in _translate(looping)
    f = BodyFacts.of("    '''doc: tl.atomic_add, return'''\n    i = tl.program_id(1)\n"
                     "    while i < n:\n        i += tl.num_programs(0)\n    return i")
    assert (f.atomics, f.grid_size, f.whiles, f.loops, f.returns) == (False, True, True, True, 1)
    assert f.block_axes == {1} and f.assigned == {"i"} and not f.strings
