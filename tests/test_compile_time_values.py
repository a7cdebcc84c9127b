"""Values cuTile knows while compiling (static_eval results, tuples built with `*`, nested
unpacking, ...), run side by side with the cuTile reference interpreter on random data whose
length is not a multiple of the tile, and compiled for sm_90 with Triton's front end."""
import torch

from side_by_side import Both, compile_messages, gen

N, T = 203, 64
GRID = (-(-N // T),)


# ------------------------------------------------ a helper's compile-time result in the caller
HELPER_RESULT_SRC = """
def add_rank(n, r):
    return n * 2 + r


@ct.kernel
def scaled(x, y, z, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    g = add_rank
    k = ct.static_eval(g(t.shape[0], t.ndim))

    def bump(m):
        return ct.static_eval(x.ndim + m)

    ct.store(y, index=(ct.bid(0),), tile=t * k)
    ct.scatter(z, ct.bid(0), bump(k))
"""


def test_helper_result_of_constants_is_a_runtime_scalar(tmp_path):
    """A helper computing from constants (`n * 2 + r`) returns, in Triton, a runtime scalar:
    binding it as a `tl.constexpr` and passing it on to another helper did not compile."""
    both = Both(tmp_path, HELPER_RESULT_SRC, "helper_result")
    x = torch.randn(N, generator=gen(3), dtype=torch.float64).to(torch.float32)
    y, z = torch.zeros(N), torch.zeros(GRID[0], dtype=torch.int32)
    r1, r2 = both.run("scaled", GRID, [x, y, z, T])
    want = x.to(torch.float64) * (2 * T + 1)
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=0)
    assert torch.equal(r1[1], r2[1])
    assert r2[2].tolist() == [2 * T + 2] * GRID[0] == r1[2].tolist()
    assert "add_rank(64, 1)" not in both.text      # the shape is T, known only at launch
    launches = (f"[((4,), torch.zeros({N}), torch.zeros({N}), torch.zeros(4, dtype=torch.int32),"
                f" {T})]")
    assert compile_messages(both.path, "scaled", launches) == ["ok"]


# --------------------------------------------- tuples spliced with `*`, unpacked into tuples
TUPLES_SRC = """
@ct.kernel
def spliced(x, y, T: ct.Constant[int]):
    lead = ()
    tail = (T,)
    t = ct.load(x, index=(*lead, ct.bid(0)), shape=(*lead, *tail),
                padding_mode=ct.PaddingMode.ZERO)
    pair = (t, (t * 2.0, 3))
    [(lo, [hi, k]), n] = pair, len((*lead, 7, *tail, *lead))
    ct.store(y, index=(ct.bid(0),), tile=lo + hi * k + n)
"""


def test_empty_tuple_splice_and_nested_unpacking(tmp_path):
    """`*lead` of a name bound to `()` splices nothing (its length was unknown); a nested
    target `[(a, [b, c]), d] = ...` binds each name to its item."""
    both = Both(tmp_path, TUPLES_SRC, "tuples")
    x = torch.randn(N, generator=gen(4), dtype=torch.float64).to(torch.float32)
    r1, r2 = both.run("spliced", GRID, [x, torch.zeros(N), T])
    want = x.to(torch.float64) * 7 + 2
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=1e-6)
    assert torch.equal(r1[1], r2[1])
    assert "k = 3" in both.text and "n = 2" in both.text
    launches = f"[((4,), torch.zeros({N}), torch.zeros({N}), {T})]"
    assert compile_messages(both.path, "spliced", launches) == ["ok"]
