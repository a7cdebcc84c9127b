"""Atomics found wanting by cuTile's own test suite: atomics on a 0-d array (a spin lock), run
side by side with the cuTile reference interpreter on random data whose length is not a
multiple of the tile."""
import re

import pytest
import torch

from side_by_side import Both, compile_messages, gen

ZERO_D_SRC = """
@ct.kernel
def locked_sum(x, total, lock, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    while ct.atomic_cas(lock, (), 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    ct.scatter(total, (), ct.gather(total, ()) + ct.sum(t))
    ct.atomic_xchg(lock, (), 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def zero_d_rmw(x, hi, count, bits, seen, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,), padding_mode=ct.PaddingMode.NEG_INF)
    ct.atomic_max(hi, (), ct.max(t), memory_scope=ct.MemoryScope.BLOCK)
    before = ct.atomic_add(count, (), 1)
    ct.atomic_xor(bits, (), b * 7 + 3, check_bounds=False)
    ct.scatter(seen, b, before)


@ct.kernel
def zero_d_cas(x, y, T: ct.Constant[int]):
    old = ct.atomic_cas(x, (), 1.5, ct.sum(ct.load(y, index=(0,), shape=(T,))))
    ct.atomic_min(x, (), old - 1)
"""


@pytest.fixture(scope="module")
def zero_d(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("zero_d"), ZERO_D_SRC, "zero_d")


N, T = 203, 32
GRID = (-(-N // T),)


def _flat(text):
    """The translation without its line breaks and indentation (it is black-formatted)."""
    return re.sub(r"\s*\n\s*", " ", text).replace("( ", "(").replace(", )", ")")


def test_spin_lock_on_a_zero_d_array(zero_d):
    x = torch.randn(N, generator=gen(1), dtype=torch.float64)
    total, lock = torch.tensor(0.25, dtype=torch.float64), torch.tensor(0, dtype=torch.int32)
    r1, r2 = zero_d.run("locked_sum", GRID, [x, total, lock, T])
    assert torch.allclose(r2[1], x.sum() + 0.25, rtol=1e-12, atol=0)
    assert torch.allclose(r1[1], r2[1], rtol=1e-12, atol=0)
    assert r2[2].item() == 0 and r1[2].item() == 0
    assert ('tl.atomic_cas(lock_ptr, tl.cast(0, lock_ptr.dtype.element_ty), '
            'tl.cast(1, lock_ptr.dtype.element_ty), sem="acquire") == 1') in _flat(zero_d.text)


def test_read_modify_write_on_zero_d_arrays(zero_d):
    x = torch.randn(N, generator=gen(2), dtype=torch.float64).to(torch.float32)
    hi = torch.tensor(-5.0, dtype=torch.float32)
    count, bits = torch.tensor(11, dtype=torch.int64), torch.tensor(0x5A, dtype=torch.int32)
    seen = torch.full((GRID[0],), -1, dtype=torch.int64)
    r1, r2 = zero_d.run("zero_d_rmw", GRID, [x, hi, count, bits, seen, T])
    want_bits = 0x5A
    for b in range(GRID[0]):
        want_bits ^= b * 7 + 3
    assert r2[1].item() == x.max().item()
    assert r2[2].item() == 11 + GRID[0] and r2[3].item() == want_bits
    assert sorted(r2[4].tolist()) == list(range(11, 11 + GRID[0]))
    for a, b in zip(r1[:5], r2[:5]):
        assert torch.equal(a, b)
    text = _flat(zero_d.text)
    assert "tl.atomic_max(hi_ptr, " in text and 'scope="cta")' in text
    assert "tl.atomic_xor(bits_ptr, b * 7 + 3)" in text


@pytest.mark.parametrize("start", [1.5, 2.5])
def test_compare_and_swap_on_a_zero_d_array(zero_d, start):
    y = torch.randn(T, generator=gen(3), dtype=torch.float64)
    x = torch.tensor(start, dtype=torch.float64)
    r1, r2 = zero_d.run("zero_d_cas", (1,), [x, y, T])
    swapped = y.sum().item() if start == 1.5 else start
    assert r2[0].item() == pytest.approx(min(swapped, start - 1), rel=1e-12)
    assert torch.allclose(r1[0], r2[0], rtol=1e-12, atol=0)


def test_zero_d_atomics_compile_for_sm90(zero_d):
    """The operands' casts make Triton's front end accept an int64 counter and a float64 CAS."""
    assert compile_messages(zero_d.path, "locked_sum",
                            "[((4,), torch.randn(203), torch.tensor(0.0), "
                            "torch.tensor(0, dtype=torch.int32), 64)]") == ["ok"]
    assert compile_messages(zero_d.path, "zero_d_rmw",
                            "[((4,), torch.randn(203), torch.tensor(0.0), "
                            "torch.tensor(0), torch.tensor(0, dtype=torch.int32), "
                            "torch.zeros(4, dtype=torch.int64), 64)]") == ["ok"]
    assert compile_messages(zero_d.path, "zero_d_cas",
                            "[((1,), torch.tensor(0.0, dtype=torch.float64), "
                            "torch.randn(64, dtype=torch.float64), 64)]") == ["ok"]
