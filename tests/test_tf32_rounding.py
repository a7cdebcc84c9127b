"""astype(ct.tfloat32) rounds to nearest even where the tile enters tfloat32 (patterns/astype.py):
a tf32 tl.dot on the GPU drops the 13 low mantissa bits of its operands (truncation), cuTile
rounds them. Checked under TRITON_INTERPRET=1 bit for bit against a reference computed here
(the two tf32 neighbours of each value, the nearer one, ties to the even one), on random
values, exact ties of either parity, values beside them, and specials; and through ct.mma."""
import pytest
import torch

from side_by_side import Both, gen

SRC = """
@ct.kernel
def to_tf32_and_back(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), t.astype(ct.tfloat32).astype(ct.float32))


@ct.kernel
def mma_tf32(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x.astype(ct.tfloat32), w.astype(ct.tfloat32), acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc)
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("tf32"), SRC, "tf32")


def round_tf32(x: torch.Tensor) -> torch.Tensor:
    """float32 -> the nearest tf32 value (ties to the one whose last kept bit is 0), by exact
    float64 comparisons with the two neighbours; inf and NaN unchanged."""
    bits = x.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    low_bits = bits & ~0x1FFF
    high_bits = low_bits + 0x2000                       # one tf32 step away from zero

    def as_f64(b):
        b = torch.where(b >= 2 ** 31, b - 2 ** 32, b).to(torch.int32)
        return b.view(torch.float32).double()
    lo, hi, v = as_f64(low_bits).abs(), as_f64(high_bits).abs(), x.double().abs()
    hi = torch.where(hi == float("inf"), 2.0 ** 128, hi)   # where inf stands past the largest
    even_low = ((low_bits >> 13) & 1) == 0
    up = (hi - v < v - lo) | ((hi - v == v - lo) & ~even_low)
    out = torch.where(up, as_f64(high_bits), as_f64(low_bits)).float()
    return torch.where(torch.isfinite(x), out, x)


def hard_values(g):
    x = (torch.randn(2000, generator=g, dtype=torch.float64)
         * torch.exp2(torch.randint(-60, 60, (2000,), generator=g).double())).float()
    bits = x.view(torch.int32)
    tie = (bits & ~0x1FFF) | 0x1000                     # exactly halfway, both parities
    beside = torch.cat([tie + 1, tie - 1])
    special = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45,
                            3e-39, -3e-39, 3.4e38, -3.4e38, 3.4028235e38, 1.0 + 2 ** -11,
                            -(1.0 + 2 ** -11), 1.0 + 3 * 2 ** -11])
    return torch.cat([x, tie.view(torch.float32), beside.view(torch.float32), special])


def test_reference_rounds_ties_to_even():
    t = torch.tensor([1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, -(1.0 + 2 ** -11), 3.4028235e38])
    want = torch.tensor([1.0, 1.0 + 2 ** -9, -1.0, float("inf")])
    assert torch.equal(round_tf32(t), want)


def test_conversion_to_tf32_rounds_to_nearest_even(both):
    x = hard_values(gen(8))
    n, T = x.numel(), 128
    assert n % T != 0
    y = torch.zeros(n, dtype=torch.float32)
    r1, r2 = both.run("to_tf32_and_back", (-(-n // T),), [x, y, T])
    ref = round_tf32(x)
    for got in (r2[1], r1[1]):      # the translation, then the reference interpreter
        assert torch.equal(torch.isnan(got), torch.isnan(ref))
        same = torch.isnan(ref) | (got.view(torch.int32) == ref.view(torch.int32))
        bad = (~same).nonzero().flatten()[:5].tolist()
        assert same.all(), [(x[i].item(), got[i].item(), ref[i].item()) for i in bad]


def test_tf32_mma_multiplies_rounded_operands(both):
    M, N, K, TM, TN, TK = 45, 37, 83, 16, 16, 16
    a = torch.randn(M, K, generator=gen(9), dtype=torch.float64).float()
    b = torch.randn(K, N, generator=gen(10), dtype=torch.float64).float()
    c = torch.zeros(M, N, dtype=torch.float32)
    r1, r2 = both.run("mma_tf32", (-(-M // TM), -(-N // TN)), [a, b, c, TM, TN, TK])
    exact = round_tf32(a).double() @ round_tf32(b).double()
    unrounded = a.double() @ b.double()
    scale = exact.abs().max().item()
    # the products of tf32 values are exact in float32: only the fp32 sums round
    assert (r2[2].double() - exact).abs().max().item() < 1e-5 * scale
    assert (r1[2].double() - exact).abs().max().item() < 1e-5 * scale
    # (rounding matters at this size: the unrounded product is far off)
    assert (unrounded - exact).abs().max().item() > 1e-4 * scale
    text = both.text
    assert "_dot_any_size(_round_tf32(x), _round_tf32(w), acc, \"tf32\")" in text
