"""Translation bugs found by cuTile's own test suite through the checker (docs/conformance.md,
"Launches that did not pass"), each run side by side with the cuTile reference interpreter on
random data whose length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, compile_messages, gen

NEG_SRC = """
@ct.kernel
def neg_loaded(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=-t)


@ct.kernel
def neg_functional(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=ct.negative(t) * 3 + -(t * 2))
"""


@pytest.fixture(scope="module")
def neg(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("neg"), NEG_SRC, "neg")


N, T = 203, 64
GRID = (-(-N // T),)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.int32, torch.float32,
                                   torch.float64])
@pytest.mark.parametrize("kernel", ["neg_loaded", "neg_functional"])
def test_negating_a_loaded_tile(neg, kernel, dtype):
    """cuTile negates a boolean as an int32 (-True == -1); the tile's dtype is known only at
    launch, so the translation's `_negative` decides there."""
    if dtype == torch.bool:
        x = torch.rand(N, generator=gen(1)) < 0.5
    elif dtype.is_floating_point:
        x = torch.randn(N, generator=gen(1), dtype=torch.float64).to(dtype)
    else:
        x = torch.randint(-20, 20, (N,), generator=gen(1)).to(dtype)
    out_dtype = torch.int32 if dtype == torch.bool else dtype
    y = torch.zeros(N, dtype=out_dtype)
    r1, r2 = neg.run(kernel, GRID, [x, y, T])
    xi = x.to(torch.float64)
    want = -xi if kernel == "neg_loaded" else -xi * 3 - xi * 2
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=0)
    assert torch.equal(r1[1], r2[1])
    if kernel == "neg_functional":
        # `t * 2` is never bool (cuTile's arithmetic rejects bool), so `-` stays an operator
        assert "_negative(t) * 3 + -(t * 2)" in neg.text


ORDER_SRC = """
@ct.kernel
def scatter_then_load(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    lane = ct.arange(T, dtype=ct.int32)
    n = min(T, x.shape[0] - b * T)
    ct.scatter(x, b * T + (n - 1 - lane), lane * 1.0, mask=lane < n)
    ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(T,)))


@ct.kernel
def swap_rounds(x, rounds: int, T: ct.Constant[int]):
    b = ct.bid(0)
    lane = ct.arange(T, dtype=ct.int32)
    partner = b * T + (lane ^ 1)
    i = 0
    while i < rounds:
        t = ct.gather(x, partner)
        ct.store(x, index=(b,), tile=t + 1.0)
        i += 1


@ct.kernel
def in_place(x, rounds: int, T: ct.Constant[int]):
    for _ in range(rounds):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        ct.store(x, index=(ct.bid(0),), tile=t * 2.0)
"""


@pytest.fixture(scope="module")
def order(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("order"), ORDER_SRC, "order")


def _kernel_text(text, name):
    start = text.index(f"def {name}(")
    return text[start:text.index("\ndef launch_", start)]


def test_barriers_only_between_accesses_other_threads_may_own(order):
    """cuTile orders a block's accesses to one array; in Triton a gather or scatter may touch
    elements another thread loads or stores, so a barrier separates them (also from one loop
    iteration to the next); same-shape tile loads and stores of an element stay in its thread."""
    first = _kernel_text(order.text, "scatter_then_load")
    assert first.count("tl.debug_barrier()") == 1
    assert first.index("_scatter_1d(") < first.index("tl.debug_barrier()") < first.index(
        "tl.load(")
    loop = _kernel_text(order.text, "swap_rounds")
    body = loop[loop.index("while "):]
    # store -> gather of the next round, and gather -> store over what others gather
    assert body.count("tl.debug_barrier()") == 2
    assert body.index("tl.debug_barrier()") < body.index("_gather_1d(")
    assert "tl.debug_barrier()" not in _kernel_text(order.text, "in_place")


def test_scatter_then_load(order):
    n = 203
    x = torch.randn(n, generator=gen(2))
    y = torch.zeros(n)
    r1, r2 = order.run("scatter_then_load", GRID, [x, y, T])
    want = torch.cat([torch.arange(min(T, n - s), dtype=torch.float32).flip(0)
                      for s in range(0, n, T)])
    assert torch.equal(r2[0], want) and torch.equal(r2[1], want)
    assert torch.equal(r1[0], r2[0]) and torch.equal(r1[1], r2[1])


def test_swap_rounds(order):
    n = 4 * T                  # pairs never straddle a block
    x = torch.randn(n, generator=gen(3), dtype=torch.float64).to(torch.float32)
    r1, r2 = order.run("swap_rounds", (n // T,), [x, 3, T])
    want = x.view(-1, 2).flip(1).reshape(-1) + 3.0     # three swaps and three increments
    assert torch.allclose(r2[0], want) and torch.equal(r1[0], r2[0])


def test_barriers_compile_for_sm90(order):
    """Compiled for sm_90 with Triton's front end (no GPU): barriers in a loop and after a
    scatter are valid Triton."""
    assert compile_messages(order.path, "scatter_then_load",
                            "[((4,), torch.randn(203), torch.zeros(203), 64)]") == ["ok"]
    assert compile_messages(order.path, "swap_rounds",
                            "[((4,), torch.randn(256), 3, 64)]") == ["ok"]
