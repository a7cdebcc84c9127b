"""Tile shapes the translator learns only per specialization, as cuTile's own tests write them:
operands whose extents are different ct.Constant parameters (one of them 1) broadcast together.
Each translation runs under TRITON_INTERPRET=1 against the cuTile reference interpreter and a
torch reference on random data; what the interpreter cannot show (a shape Triton's compiler
rejects) is checked by compiling for sm_90 with Triton's front end, in a subprocess."""

import pytest
import torch

from side_by_side import Both, compile_messages, gen


# ------------------------------------------------------------- where of constexpr-sized tiles
WHERE_SRC = """
@ct.kernel
def pick(mask, x, z, MN: ct.Constant[int], MM: ct.Constant[int], XN: ct.Constant[int],
         XM: ct.Constant[int]):
    tx = ct.load(x, index=(0, 0), shape=(XN, XM), padding_mode=ct.PaddingMode.ZERO)
    tm = ct.load(mask, index=(0, 0), shape=(MN, MM), padding_mode=ct.PaddingMode.ZERO)
    t = ct.where(tm, tx, -1.5)
    ct.store(z, index=(0, 0), tile=t + tx * 0.0)
"""

SHAPES = [((16, 32), (16, 32)), ((1, 32), (16, 32)), ((16, 1), (1, 32)), ((1, 1), (16, 32)),
          ((16, 32), (1, 32)), ((16, 32), (16, 1)), ((16, 32), (1, 1))]


@pytest.mark.parametrize("mshape,xshape", SHAPES)
def test_where_of_tiles_sized_by_different_constants(tmp_path, mshape, xshape):
    both = Both(tmp_path, WHERE_SRC, f"where_{'x'.join(map(str, mshape + xshape))}")
    g = gen(sum(mshape + xshape))
    out = tuple(max(a, b) for a, b in zip(mshape, xshape))
    # arrays smaller than their tiles: the padding takes part in the broadcast
    mask = torch.rand(*(max(d - 3, 1) for d in mshape), generator=g) > 0.5
    x = torch.randn(*(max(d - 5, 1) for d in xshape), generator=g, dtype=torch.float64).float()
    z = torch.zeros(out[0] - 2 if out[0] > 2 else 1, out[1] - 1 if out[1] > 1 else 1)
    a1, a2 = both.run("pick", (1,), [mask, x, z, *mshape, *xshape])
    mpad = torch.zeros(mshape, dtype=torch.bool)
    mpad[:mask.shape[0], :mask.shape[1]] = mask
    xpad = torch.zeros(xshape, dtype=torch.float64)
    xpad[:x.shape[0], :x.shape[1]] = x.double()
    ref = torch.where(mpad, xpad, -1.5)[:z.shape[0], :z.shape[1]]
    for got in (a1, a2):
        torch.testing.assert_close(got[2].double(), ref)


def test_where_of_tiles_sized_by_different_constants_compiles(tmp_path):
    both = Both(tmp_path, WHERE_SRC, "where_c")
    launches = ("[((1,), torch.zeros(m0, m1, dtype=torch.bool), torch.zeros(x0, x1), "
                "torch.zeros(max(m0, x0), max(m1, x1)), m0, m1, x0, x1) "
                f"for (m0, m1), (x0, x1) in {SHAPES[:4]!r}]")     # the mask's sizes the smaller
    assert compile_messages(both.path, "pick", launches) == ["ok"] * 4


# ------------------------------------------------- tiles bound to other shapes in constexpr ifs
BRANCH_SRC = """
@ct.kernel
def branches(x, y, z, T: ct.Constant[int], AS_TILE: ct.Constant[bool], WIDE: ct.Constant[bool]):
    t = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    if AS_TILE:
        s = t.extract(index=(T // 2,), shape=(1,)) + 5    # a (1,) tile
    else:
        s = ct.extract(t, index=(T // 2,), shape=()) + 5  # a 0-d tile
    ct.store(y, index=(0,), tile=ct.full((T,), s.item(), dtype=y.dtype))
    if WIDE:
        w = ct.load(x, index=(0,), shape=(2 * T,), padding_mode=ct.PaddingMode.ZERO)
    else:
        w = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO) * 2
    ct.store(z, index=(0,), tile=w)
"""


@pytest.mark.parametrize("as_tile", [True, False])
@pytest.mark.parametrize("wide", [True, False])
def test_tiles_of_other_shapes_in_constexpr_branches(tmp_path, as_tile, wide):
    both = Both(tmp_path, BRANCH_SRC, f"branches_{as_tile}_{wide}")
    x = torch.randn(100, generator=gen(31), dtype=torch.float64).float()
    a1, a2 = both.run("branches", (1,), [x, torch.zeros(30), torch.zeros(90), 32, as_tile, wide])
    xd = x.double()
    want_z = xd[:64] if wide else torch.cat([xd[:32] * 2, torch.zeros(58, dtype=torch.float64)])
    want_z = torch.cat([want_z, torch.zeros(90 - len(want_z), dtype=torch.float64)])[:90]
    for got in (a1, a2):
        torch.testing.assert_close(got[1].double(), torch.full((30,), float(xd[16] + 5), dtype=torch.float64))
        torch.testing.assert_close(got[2].double(), want_z)


def test_tiles_of_other_shapes_in_constexpr_branches_compile(tmp_path):
    both = Both(tmp_path, BRANCH_SRC, "branches_c")
    launches = ("[((1,), torch.zeros(100), torch.zeros(64), torch.zeros(90), 32, a, w) "
                "for a in (True, False) for w in (True, False)]")
    assert compile_messages(both.path, "branches", launches) == ["ok"] * 4
