"""A name both branches of an `if` bind for their own use only may have a type per branch in
cuTile (an int32 `t` in one, a float32 `t` in the other); Triton merges such a name and rejects
the mismatch, so the `else` branch's gets a name of its own. Side by side with the cuTile
reference interpreter on random data whose length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, compile_messages, gen

N, T = 203, 64

SRC = """
@ct.kernel
def bump(x, y, T: ct.Constant[int]):
    for k in range(2):
        if (ct.bid(0) + k) % 2 == 0:
            t = ct.load(x, index=(ct.bid(0),), shape=(T,))
            ct.store(x, index=(ct.bid(0),), tile=t + 1)
        else:
            t = ct.load(y, index=(ct.bid(0),), shape=(T,))
            t += 0.5
            ct.store(y, index=(ct.bid(0),), tile=t * 2.0)
"""


@pytest.fixture(scope="module")
def bump(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("branch_locals"), SRC, "branch_locals")


def test_branch_local_names_of_two_types(bump):
    x = torch.randint(-50, 50, (N,), generator=gen(11)).to(torch.int32)
    y = torch.randn(N, generator=gen(12), dtype=torch.float64).to(torch.float32)
    r1, r2 = bump.run("bump", (-(-N // T),), [x, y, T])
    # each block takes each branch once: x + 1, (y + 0.5) * 2
    assert torch.equal(r2[0], x + 1)
    assert torch.allclose(r2[1].double(), (y.double() + 0.5) * 2, rtol=1e-6)
    assert torch.equal(r1[0], r2[0]) and torch.equal(r1[1], r2[1])
    assert "t_2 += 0.5" in bump.text


def test_branch_local_names_compile_for_sm90(bump):
    assert compile_messages(bump.path, "bump", "[((4,), torch.zeros(203, dtype=torch.int32), "
                            "torch.zeros(203), 64)]") == ["ok"]


# The loop variable of a loop in each branch is renamed with the branch's other names: before,
# the `else` branch's loop kept `for i in range(...)` and its body read `i_2`, which nothing
# bound (a T2T900 "reads `i_2`, which it does not define" on a real decode-attention kernel).
LOOPS = """
@ct.kernel
def rows(x, y, n: int, WIDE: ct.Constant[int], T: ct.Constant[int]):
    if WIDE:
        acc = ct.full((T,), 0.0, dtype=ct.float32)
        for i in range(n):
            acc = acc + ct.load(x, index=(ct.bid(0) * n + i,), shape=(T,))
        ct.store(y, index=(ct.bid(0),), tile=acc)
    else:
        acc = ct.full((T,), 0, dtype=ct.int32)
        for i in range(n):
            acc = acc + ct.astype(ct.load(x, index=(ct.bid(0) * n + i,), shape=(T,)), ct.int32)
        ct.store(y, index=(ct.bid(0),), tile=ct.astype(acc, ct.float32))
"""


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("branch_loops"), LOOPS, "branch_loops")


@pytest.mark.parametrize("wide", [1, 0])
def test_loops_in_both_branches_get_their_own_loop_variable(rows, wide):
    n, blocks = 3, 4
    x = (torch.randn(n * blocks * T, generator=gen(13), dtype=torch.float64) * 8).to(
        torch.float32)
    y = torch.randn(blocks * T, generator=gen(14), dtype=torch.float64).to(torch.float32)
    r1, r2 = rows.run("rows", (blocks,), [x, y, n, wide, T])
    tiles = x.double().reshape(blocks, n, T)
    ref = tiles.sum(1) if wide else torch.trunc(tiles).sum(1)
    assert torch.allclose(r2[1].double().reshape(blocks, T), ref, rtol=1e-6, atol=1e-5)
    assert torch.equal(r1[1], r2[1])
    assert "for i_2 in range(n):" in rows.text
