"""TMA descriptor loads for the operands of matrix products (docs/performance.md, "TMA loads for
matrix products").

A 2-D ct.load whose tile feeds ct.mma / ct.matmul / `@` reads through a descriptor the launcher
builds (`_tma_descriptor`) where the array allows one, and through masked pointers otherwise.
Here, on the CPU: the generated form (pinned), which loads get it and which do not, what the
launcher accepts, and that the kernel computes the product either way (Triton's interpreter
implements descriptor loads, zero-filling out-of-bounds elements) on ragged shapes, misaligned
and strided inputs.
"""
import random
from pathlib import Path

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

ROOT = Path(__file__).resolve().parents[1]

HEADER = "import cuda.tile as ct\n\nConstInt = ct.Constant[int]\n\n\n"

MATMUL = HEADER + '''@ct.kernel
def k(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for i in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), i), (TM, TK), padding_mode=PAD)
        y = ct.load(b, (i, ct.bid(1)), (TK, TN), padding_mode=PAD)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def launch(stream, a, b, c, tiles):
    tm, tn, tk = tiles
    grid = (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn), 1)
    ct.launch(stream, grid, k, (a, b, c, tm, tn, tk))
'''


def _translate(src, tmp_path, name):
    res = translate_source(src, f"{name}.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    out = tmp_path / f"{name}_triton.py"
    out.write_text(res.output)
    return res.output, out


def _matmul(pad="ct.PaddingMode.ZERO"):
    return MATMUL.replace("PAD", pad)


def test_matmul_operands_are_loaded_through_descriptors(tmp_path):
    """The fast form, pinned: descriptors as kernel parameters, `desc.load` with the pointer
    load as the fallback, the launcher building them and choosing 4 warps and 4 stages."""
    text, _ = _translate(_matmul(), tmp_path, "tma")
    assert "def k(\n    a_ptr," in text
    assert "    a_desc,\n    b_desc,\n    grid_x,\n    grid_y,\n    a_div: tl.constexpr" in text
    # (the blocks of the 2-D grid walked in a loop: tests/test_persistent_blocks.py)
    assert "a_desc.load([block_x * TM, i * TK])\n                if a_desc is not None\n" \
           "                else tl.load(" in text
    assert "b_desc.load([i * TK, block_y * TN])" in text
    assert "    a_desc = _tma_descriptor(a, (TM, TK))\n    b_desc = _tma_descriptor(b, (TK, TN))" \
        in text
    assert "if tile_elems < 128 * 256 and (a_desc is not None or b_desc is not None):" in text
    # the suite's matmuls: both operands, in the plain and the persistent kernel
    for case in ("matmul", "persistent_matmul"):
        path = ROOT / "benchmarks" / "suite" / case / "kernel.py"
        out = translate_source(path.read_text(), str(path)).output
        assert "A_desc.load([bm * tm, k * tk])" in out, case
        assert "B_desc.load([k * tk, bn * tn])" in out, case
        assert "A_desc = _tma_descriptor(A, (tm, tk))" in out, case


@pytest.mark.parametrize("src", [
    # not a matrix operand
    HEADER + '''@ct.kernel
def k(a, c):
    t = ct.load(a, (ct.bid(0), 0), (16, 16), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (ct.bid(0), 0), t * 2)
''',
    # a padding TMA does not give
    _matmul("ct.PaddingMode.NEG_INF"),
    # the kernel writes the array too
    _matmul().replace("ct.store(c,", "ct.store(a, (0, 0), x)\n    ct.store(c,"),
    # cuTile's own switch
    _matmul().replace("padding_mode=ct.PaddingMode.ZERO)\n        y",
                      "padding_mode=ct.PaddingMode.ZERO, allow_tma=False)\n        y"),
])
def test_loads_that_keep_the_pointer_form(src, tmp_path):
    text, _ = _translate(src, tmp_path, "ptr")
    assert "a_desc.load(" not in text and "a_desc = " not in text


def test_undetermined_padding_and_matmul_operators_take_descriptors(tmp_path):
    text, _ = _translate(_matmul("ct.PaddingMode.UNDETERMINED").replace(
        "acc = ct.mma(x, y, acc)", "acc = acc + x.astype(ct.float32) @ y.astype(ct.float32)"),
        tmp_path, "und")
    assert "a_desc.load(" in text and "b_desc.load(" in text


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    _, path = _translate(_matmul(), tmp_path_factory.mktemp("tma"), "tma_run")
    return load_module(path, "tma_run")


@pytest.mark.parametrize("layout, expect", [
    ("contiguous", True),
    ("odd_rows", False),       # 2 * 45 bytes per row: not a 16-byte multiple
    ("offset", False),         # base 2 bytes past a 16-byte boundary
    ("column_major", False),   # last stride not 1
    ("padded_rows", True),     # a row stride larger than the row, 16-byte multiple
    ("float32", False),        # dtypes other than fp16/bf16 keep pointers (not measured)
])
def test_launcher_accepts_only_what_tma_reads_exactly(module, layout, expect):
    base = torch.zeros(64, 96, dtype=torch.float16)
    x = {"contiguous": base[:, :40], "odd_rows": torch.zeros(64, 45, dtype=torch.float16),
         "offset": base.view(-1)[1:1 + 64 * 40].view(64, 40),
         "column_major": base.t()[:40, :64], "padded_rows": base[:, :40],
         "float32": torch.zeros(64, 40)}[layout]
    if layout == "contiguous":
        x = x.contiguous()
    desc = module._tma_descriptor(x, (32, 16))
    assert (desc is not None) == expect
    # tiles whose rows are shorter than 16 bytes, larger than 256 or not powers of two: none
    assert module._tma_descriptor(torch.zeros(64, 48, dtype=torch.float16), (32, 4)) is None
    assert module._tma_descriptor(torch.zeros(64, 48, dtype=torch.float16), (512, 16)) is None
    assert module._tma_descriptor(torch.zeros(64, 48, dtype=torch.float16), (24, 16)) is None


def test_launcher_takes_tma_exactly_where_every_condition_holds(module):
    """`_tma_descriptor` over random layouts and tiles against its conditions written out in
    one place: a unit column stride, rows that do not overlap, 16-byte aligned rows and base,
    extents below 2**31, tiles of integer powers of two up to 256, rows of 16 bytes or more."""
    rng = random.Random(11)
    taken = 0
    for _ in range(400):
        dtype = rng.choice([torch.float16, torch.bfloat16])
        rows, cols = rng.choice([1, 7, 64, 100]), rng.choice([1, 8, 40, 45, 64])
        pad, skip = rng.choice([0, 0, 3, 8, 24]), rng.choice([0, 0, 1, 8])
        base = torch.randn(skip + rows * (cols + pad) + 64).to(dtype)
        x = base[skip:skip + rows * (cols + pad)].view(rows, cols + pad)[:, :cols]
        if rng.random() < 0.2:
            x = x.t()
        block = tuple(rng.choice([1, 2, 8, 16, 24, 32, 64, 256, 512, 16.0]) for _ in range(2))
        bm, bn = block
        rs, cs = x.stride()
        expect = (cs == 1 and rs >= x.shape[1] and rs * 2 % 16 == 0 and x.data_ptr() % 16 == 0
                  and all(type(b) is int and 0 < b <= 256 and b & (b - 1) == 0 for b in block)
                  and bn * 2 >= 16)
        got = module._tma_descriptor(x, block)
        assert (got is not None) == expect, (x.shape, x.stride(), skip, block)
        taken += expect
    assert 20 < taken < 380     # (both answers drawn often)


def _operand(rows, cols, layout, gen, dtype):
    if layout == "strided":     # every other column of a wider array: pointer fallback
        return torch.randn(rows, 2 * cols, generator=gen).to(dtype)[:, ::2]
    if layout == "offset":      # base 2 bytes past alignment: pointer fallback
        flat = torch.randn(rows * cols + 1, generator=gen).to(dtype)
        return flat[1:].view(rows, cols)
    return torch.randn(rows, cols, generator=gen).to(dtype)


@pytest.mark.parametrize("mnk, layout_a, layout_b", [
    ((70, 56, 88), "plain", "plain"),       # ragged M, K and N: zero-filled tile edges (TMA)
    ((33, 48, 40), "plain", "strided"),     # A through a descriptor, B through pointers
    ((64, 40, 56), "offset", "plain"),
    ((50, 30, 45), "plain", "plain"),       # rows of 90 and 60 bytes: pointers for both
])
# fp16 only: bf16 products come out wrong under Triton 3.6's interpreter in either form,
# pointer loads included (the translation before descriptors too)
@pytest.mark.parametrize("dtype", [torch.float16])
def test_product_is_right_through_either_form(module, mnk, layout_a, layout_b, dtype):
    m, n, k = mnk
    gen = torch.Generator().manual_seed(m * n + k)
    a = _operand(m, k, layout_a, gen, dtype)
    b = _operand(k, n, layout_b, gen, dtype)
    c = torch.full((m, n), float("nan"), dtype=dtype)
    module.launch(None, a, b, c, (32, 32, 16))
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-2, err


PERSISTENT = HEADER + '''@ct.kernel
def pk(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    tiles_n = ct.cdiv(b.shape[1], TN)
    tiles = ct.cdiv(a.shape[0], TM) * tiles_n
    for tile in range(ct.bid(0), tiles, ct.num_blocks(0)):
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for i in range(ct.num_tiles(a, 1, (TM, TK))):
            x = ct.load(a, (tile // tiles_n, i), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (i, tile % tiles_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, y, acc)
        ct.store(c, (tile // tiles_n, tile % tiles_n), acc.astype(c.dtype))


def launch(stream, a, b, c, tiles, blocks):
    tm, tn, tk = tiles
    ct.launch(stream, (blocks, 1, 1), pk, (a, b, c, tm, tn, tk))
'''


def test_persistent_loop_over_tma_products_is_flattened_when_tma_is_taken(tmp_path):
    """The persistent form, pinned: the grid-stride loop is a `tl.range` flattened by a
    constexpr that the launcher sets when it built a descriptor."""
    text, _ = _translate(PERSISTENT, tmp_path, "pers")
    assert "for tile in tl.range(tl.program_id(0), tiles, tl.num_programs(0), " \
           "flatten=FLATTEN):" in text
    assert "    FLATTEN: tl.constexpr,\n    USE_INT64: tl.constexpr," in text
    assert "FLATTEN=a_desc is not None or b_desc is not None," in text
    path = ROOT / "benchmarks" / "suite" / "persistent_matmul" / "kernel.py"
    out = translate_source(path.read_text(), str(path)).output
    assert "tl.range(tl.program_id(0), tiles_m * tiles_n, tl.num_programs(0), " \
           "flatten=FLATTEN)" in out
    # without TMA loads (fp32 tiles through pointers are not the question here: a loop of
    # products over arrays the kernel writes) the loop stays a plain range
    plain, _ = _translate(PERSISTENT.replace("ct.store(c,", "ct.store(a, (0, 0), x)\n"
                                             "        ct.store(c,").replace(
        "y = ct.load(b, (i, tile % tiles_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)",
        "y = ct.load(b, (i, tile % tiles_n), (TK, TN), padding_mode=ct.PaddingMode.NEG_INF)"),
        tmp_path, "pers_plain")
    assert "flatten=" not in plain and "for tile in range(" in plain


@pytest.mark.parametrize("mnk, blocks, aligned", [
    ((70, 56, 88), 3, True),     # ragged, descriptors for both operands, flattened loop
    ((50, 30, 45), 2, False),    # 90-byte rows: pointers, nested loops
])
def test_persistent_product_is_right_either_way(tmp_path, mnk, blocks, aligned):
    _, path = _translate(PERSISTENT, tmp_path, "pers_run")
    mod = load_module(path, "pers_run")
    m, n, k = mnk
    gen = torch.Generator().manual_seed(m + n + k)
    a = torch.randn(m, k, generator=gen).half()
    b = torch.randn(k, n, generator=gen).half()
    assert (mod._tma_descriptor(a, (32, 16)) is not None) == aligned
    c = torch.full((m, n), float("nan"), dtype=torch.float16)
    mod.launch(None, a, b, c, (32, 32, 16), blocks)
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-2, err
