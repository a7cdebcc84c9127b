"""Compile-time values the way cuTile folds them (constants converted by dtype calls, names
re-bound to constants, tuples carrying constants), each run side by side with the cuTile
reference interpreter on random data whose length is not a multiple of the tile."""
import pytest
import torch

from side_by_side import Both, compile_messages, gen

N, M, T = 203, 7, 64
GRID = (-(-N // T),)

MAX_SRC = """
@ct.kernel
def row_max(x, y, T: ct.Constant[int]):
    m = ct.full((T, 1), ct.float32("-inf"), dtype=ct.float32)
    for j in range(x.shape[1]):
        m = max(m, ct.load(x, index=(ct.bid(0), j), shape=(T, 1)))
    big = ct.float32("1e30")
    ct.store(y, index=(ct.bid(0), 0), tile=ct.minimum(m, big))
"""


@pytest.fixture(scope="module")
def maxes(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("max"), MAX_SRC, "max")


def test_dtype_of_a_number_written_as_a_string(maxes):
    """`ct.float32("-inf")` converts the string with Python's float first, as cuTile does."""
    x = torch.randn(N, M, generator=gen(1), dtype=torch.float64)
    x[5, :] = 3e30                                    # clamped by the 1e30 bound
    x = x.to(torch.float32)
    y = torch.zeros(N, 1)
    r1, r2 = maxes.run("row_max", GRID, [x, y, T])
    want = x.to(torch.float64).amax(dim=1, keepdim=True).clamp(max=1e30)
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-7)
    assert torch.equal(r1[1], r2[1])
    assert 'float("-inf")' in maxes.text or "float('-inf')" in maxes.text \
        or "-float(\"inf\")" in maxes.text


REBIND_SRC = """
@ct.kernel
def shift_rows(x, y, K: ct.Constant[int]):
    s = (K + 2) * 3
    s = -s
    s ^= K
    pair = (ct.bid(0), (K // 2, ct.bid(0)))
    half = pair[1][0]
    if ct.bid(0) % 2 == 0:
        w = (ct.bid(0), 64)
    else:
        w = (ct.bid(0) + 1, 64)
    t = ct.load(x, index=(pair[0],), shape=(w[1],))
    b = t - s + half
    ct.static_assert(b.dtype == ct.int16)
    ct.store(y, index=(pair[1][1],), tile=b)
"""


@pytest.fixture(scope="module")
def rebind(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("rebind"), REBIND_SRC, "rebind")


@pytest.mark.parametrize("k", [5, 9])
def test_names_rebound_to_constants_stay_constants(rebind, k):
    """cuTile folds `s = (K + 2) * 3; s = -s; s ^= K` at compile time, so `t - s` keeps the
    int16 tile's dtype (Triton: one constexpr per binding, `s_2`, `s_3`); an item of a tuple
    that is a compile-time value stays one (`pair[1][0]`), and so does an item both branches
    of an `if` bind to the same constant (`w[1]`, a tile shape)."""
    x = torch.randint(-1000, 1000, (N,), generator=gen(5)).to(torch.int16)
    y = torch.zeros(N, dtype=torch.int16)
    r1, r2 = rebind.run("shift_rows", (-(-N // 64),), [x, y, k])
    s = -((k + 2) * 3) ^ k
    want = x.to(torch.int64) - s + k // 2
    assert torch.equal(r2[1].to(torch.int64), want)
    assert torch.equal(r1[1], r2[1])
    assert ": tl.constexpr = -s" in rebind.text and "tl.static_assert(False" not in rebind.text


def test_names_rebound_to_constants_compile_for_sm90(rebind):
    """Triton's compiler (not its interpreter) makes every plain assignment a tensor and
    refuses a constexpr bound twice: the translation compiles, and its static_assert holds."""
    assert compile_messages(rebind.path, "shift_rows",
                            "[((4,), torch.zeros(203, dtype=torch.int16), "
                            "torch.zeros(203, dtype=torch.int16), 5)]") == ["ok"]


ROUND_SRC = """
@ct.kernel
def rounded_scale(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    s = ct.float16(0.2) + ct.float64(ct.float8_e8m0fnu(0.2))
    ct.store(y, index=(ct.bid(0),), tile=t * s + ct.bfloat16(0.3))
"""


@pytest.fixture(scope="module")
def rounding(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("rounding"), ROUND_SRC, "rounding")


def test_typed_float_constants_are_rounded(rounding):
    """`ct.float16(0.2)` is the float16 nearest 0.2 (0.199951171875), `ct.float8_e8m0fnu(0.2)`
    the nearest power of two (0.25): constants of dtypes Triton lacks fold here too."""
    x = torch.randn(N, generator=gen(9), dtype=torch.float64)
    y = torch.zeros(N, dtype=torch.float64)
    r1, r2 = rounding.run("rounded_scale", GRID, [x, y, T])
    s = float(torch.tensor(0.2).half()) + 0.25
    want = x * s + float(torch.tensor(0.3, dtype=torch.float64).bfloat16())
    assert torch.allclose(r2[1], want, rtol=1e-12, atol=1e-12)
    assert torch.allclose(r1[1], r2[1], rtol=1e-12, atol=1e-12)
    assert "s: tl.constexpr = 0.449951171875" in rounding.text


def test_tile_of_a_dtype_triton_lacks_is_a_located_diagnostic():
    from side_by_side import translate
    with pytest.raises(AssertionError, match="T2T106.*float8_e8m0fnu has no Triton equivalent"):
        translate("""
@ct.kernel
def k(x):
    t = ct.load(x, index=(0,), shape=(4,))
    ct.store(x, index=(0,), tile=ct.float8_e8m0fnu(t))
""")
