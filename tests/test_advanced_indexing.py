"""ct.load_advanced_indexing / ct.store_advanced_indexing (patterns/advanced_indexing.py).

Each translation runs under TRITON_INTERPRET=1 on random data with shapes that are not multiples
of the tile, and is compared with a torch reference built from the cuTile semantics (one sparse
dimension addressed by an index tile, ct.Slice ranges on the others; out-of-bounds elements read
the padding value and are never written) and with the cuTile reference interpreter.
"""
import importlib.util
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\n"

SRC = """
@ct.kernel
def gather_rows(x, idx, y, ROWS: ct.Constant[int], COLS: ct.Constant[int], c0):
    rows = ct.load(idx, (0,), (ROWS,))
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(c0, COLS)), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (0, 0), t)


@ct.kernel
def gather_cols_neg_inf(x, idx, y, ROWS: ct.Constant[int], COLS: ct.Constant[int], r0):
    cols = ct.load(idx, (0,), (COLS,))
    t = ct.load_advanced_indexing(x, (ct.Slice(r0, ROWS), cols),
                                  padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, (0, 0), t)


@ct.kernel
def gather_middle_3d(x, idx, y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    mid = ct.load(idx, (0,), (B,))
    t = ct.load_advanced_indexing(x, (ct.Slice(1, A), mid, ct.Slice(ct.bid(0) * C, C)),
                                  padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (0, 0, ct.bid(0)), t)


@ct.kernel
def scatter_rows(src, idx, y, ROWS: ct.Constant[int], COLS: ct.Constant[int], c0):
    rows = ct.load(idx, (0,), (ROWS,))
    t = ct.load(src, (0, 0), (ROWS, COLS), padding_mode=ct.PaddingMode.ZERO)
    ct.store_advanced_indexing(y, (rows, ct.Slice(c0, COLS)), t * 2.0 + 1.0)


@ct.kernel
def scatter_1d_scalar(y, idx, N: ct.Constant[int]):
    i = ct.load(idx, (0,), (N,))
    ct.store_advanced_indexing(y, (i,), 7.5)
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("advidx")
    res = translate_source(HEADER + textwrap.dedent(SRC), "<advanced-indexing>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp / "adv_triton.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_adv_triton", tmp / "adv_triton.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    (tmp / "adv_cutile.py").write_text(HEADER + textwrap.dedent(SRC))
    orig = interp.load_module_with_interpreter(str(tmp / "adv_cutile.py"))
    return orig, trans


def run_both(both, kernel, grid, args):
    orig, trans = both
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def gen(seed):
    return torch.Generator().manual_seed(seed)


def gather_ref(x, index_lists, pad):
    """x[i0, i1, ...] over the product of per-dimension index lists; `pad` where out of bounds."""
    x64 = x.double()
    grids = torch.meshgrid(*[torch.as_tensor(ix) for ix in index_lists], indexing="ij")
    ok = torch.ones(grids[0].shape, dtype=torch.bool)
    for d, g in enumerate(grids):
        ok &= (g >= 0) & (g < x.shape[d])
    safe = [g.clamp(0, x.shape[d] - 1) for d, g in enumerate(grids)]
    return torch.where(ok, x64[tuple(safe)], torch.tensor(pad, dtype=torch.float64))


@pytest.mark.parametrize("seed,c0", [(0, 0), (1, 5), (2, 26)])
def test_gather_rows_with_oob_rows_and_columns(both, seed, c0):
    g = gen(seed)
    x = torch.randn(37, 29, generator=g)
    rows = torch.randint(-3, 40, (16,), generator=g, dtype=torch.int32)  # some out of bounds
    y = torch.full((16, 8), -5.0)
    o, t = run_both(both, "gather_rows", (1,), (x, rows, y, 16, 8, c0))
    ref = gather_ref(x, [rows.long(), torch.arange(c0, c0 + 8)], 0.0)
    torch.testing.assert_close(t[2].double(), ref, rtol=0, atol=0)
    torch.testing.assert_close(t[2], o[2], rtol=0, atol=0)


def test_gather_columns_pads_with_neg_inf(both):
    g = gen(3)
    x = torch.randn(23, 45, generator=g, dtype=torch.float64)
    cols = torch.randperm(50, generator=g)[:8].to(torch.int32)  # repeats impossible, some OOB
    y = torch.zeros(4, 8, dtype=torch.float64)
    o, t = run_both(both, "gather_cols_neg_inf", (1,), (x, cols, y, 4, 8, 21))
    ref = gather_ref(x, [torch.arange(21, 25), cols.long()], float("-inf"))
    torch.testing.assert_close(t[2], ref, rtol=0, atol=0)
    torch.testing.assert_close(t[2], o[2], rtol=0, atol=0)


def test_gather_sparse_middle_dimension_3d(both):
    g = gen(4)
    x = torch.randn(5, 11, 13, generator=g)
    mid = torch.tensor([10, 0, 3, 3, 12, 7, 1, -1], dtype=torch.int32)
    y = torch.zeros(4, 8, 16)
    o, t = run_both(both, "gather_middle_3d", (4,), (x, mid, y, 4, 8, 4))
    ref = gather_ref(x, [torch.arange(1, 5), mid.long(), torch.arange(0, 16)], 0.0)
    torch.testing.assert_close(t[2].double(), ref, rtol=0, atol=0)
    torch.testing.assert_close(t[2], o[2], rtol=0, atol=0)


@pytest.mark.parametrize("seed,c0", [(5, 0), (6, 17)])
def test_scatter_rows_ignores_out_of_bounds(both, seed, c0):
    g = gen(seed)
    src = torch.randn(13, 7, generator=g)
    rows = torch.randperm(27, generator=g)[:16].to(torch.int32)  # distinct; rows >= 21 are OOB
    y = torch.randn(21, 23, generator=g)
    o, t = run_both(both, "scatter_rows", (1,), (src, rows, y, 16, 8, c0))
    ref = y.double().clone()
    tile = torch.zeros(16, 8)
    tile[:13, :7] = src
    tile = (tile * 2.0 + 1.0).double()  # float32 arithmetic, as the kernel's
    for i, r in enumerate(rows.tolist()):
        for j in range(8):
            if 0 <= r < 21 and c0 + j < 23:
                ref[r, c0 + j] = tile[i, j]
    torch.testing.assert_close(t[2].double(), ref, rtol=0, atol=0)
    torch.testing.assert_close(t[2], o[2], rtol=0, atol=0)


def test_scatter_scalar_into_1d(both):
    idx = torch.tensor([3, 9, 100, -2, 0, 17, 4, 8], dtype=torch.int32)
    y = torch.zeros(18, dtype=torch.float16)
    o, t = run_both(both, "scatter_1d_scalar", (1,), (y, idx, 8))
    ref = torch.zeros(18, dtype=torch.float16)
    ref[[3, 9, 0, 17, 4, 8]] = 7.5
    assert torch.equal(t[0], ref)
    assert torch.equal(t[0], o[0])


@pytest.mark.parametrize("body,message", [
    ("t = ct.load_advanced_indexing(x, (ct.Slice(0, 4), ct.Slice(c, 4)))",
     "exactly one index must be a 1D integer Tile"),
    ("t = ct.load_advanced_indexing(x, (r, r))", "exactly one index must be a 1D integer Tile"),
    ("t = ct.load_advanced_indexing(x, (r, ct.Slice(0, 4), ct.Slice(0, 4)))",
     "rank"),
    ("t = ct.load_advanced_indexing(x, (r, ct.Slice(0, 6)))", "power of two"),
    ("t = ct.load_advanced_indexing(x, (ct.zeros((4, 4), dtype=ct.int32), ct.Slice(0, 4)))",
     "1D integer Tile"),
    ("t = ct.load_advanced_indexing(x, (r, ct.Slice(0, c)))", "compile-time"),
])
def test_invalid_indices_are_located(body, message):
    src = HEADER + textwrap.dedent(f"""
    @ct.kernel
    def k(x, y, c):
        M, N = x.shape
        r = ct.arange(4, dtype=ct.int32)
        {body}
        ct.store(y, (0, 0), t)
    """)
    diags = translate_source(src, "<bad>").diagnostics()
    assert diags and message in diags[0].format()
    assert ":7:" in diags[0].format()  # the line of the call
