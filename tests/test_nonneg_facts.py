"""The non-negativity facts that let `//` and `%` stay Triton's operators (issue 24): a loop
variable of a range that starts >= 0 and steps >= 0 (or counts down to a stop >= 0), and a
ct.Constant parameter used as a tile dimension (cuTile rejects one that is not positive).
Each kernel runs under TRITON_INTERPRET=1 on data with negative values and shapes that are not
tile multiples, against Python's floor semantics and the reference interpreter; the cases
the facts do not cover (a runtime start or step, a constexpr that is no tile dimension, or is
one only inside a branch) keep the floor helpers and still floor."""
import importlib.util
import math
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\n"

SRC = """
@ct.kernel
def strided(x, q, r, T: ct.Constant[int]):
    n_t = ct.cdiv(x.shape[0], T)
    for t in range(ct.bid(0), ct.cdiv(q.shape[0], T), ct.num_blocks(0)):
        a = ct.load(x, (t % n_t,), (T,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(q, (t,), a // n_t + t // n_t * 1000)
        ct.store(r, (t,), a % n_t + t % n_t * 1000)


@ct.kernel
def counted(out, k: int, T: ct.Constant[int]):
    s = 0
    for t in range(k):
        s = s + t // 3 * 10 + t % 3
    for t in range(ct.cdiv(out.shape[0], T), 0, -1):
        s = s + t // 2 * 100 + t % 2
    ct.store(out, (ct.bid(0),), ct.full((T,), s, dtype=ct.int32))


@ct.kernel
def unsound(out, lo: int, step: int, FLAG: ct.Constant[int], G: ct.Constant[int],
            H: ct.Constant[int], T: ct.Constant[int]):
    i = ct.bid(0)
    s = i % G * 7 + i // H * 3
    z = i * 0   # u = t + z: a tensor (under the interpreter a range yields Python ints)
    for t in range(lo, lo + 5):
        u = t + z
        s = s + u // 4 * 10 + u % 3
    for t in range(lo, lo + 9, step):
        u = t + z
        s = s + u // 5 * 1000 + u % 2
    for t in range(lo + 5, lo, -1):
        u = t + z
        s = s + u // 3 * 100000
    if FLAG:
        s = s + ct.sum(ct.full((H,), 1, dtype=ct.int32))
    ct.store(out, (i,), ct.full((T,), s, dtype=ct.int32))


@ct.kernel
def bare_counter(out, lo: int, T: ct.Constant[int]):
    s = 0
    for t in range(lo, lo + 7):
        s = s + t // 4 * 100 + t % 3 * 10 + ct.negative(t)
    ct.store(out, (ct.bid(0),), ct.full((T,), s, dtype=ct.int32))


@ct.kernel
def counter_forms(x, out, lo: int, T: ct.Constant[int]):
    acc = ct.zeros((T,), dtype=ct.float32)
    n = 0
    for t in range(lo, lo + 7):
        n = n + ct.cdiv(t, 3) * 1000 + int(t > 0) * 100 + ct.negative(t < 0) * 10
        n = n + ct.astype(ct.bitcast(ct.astype(t, ct.int32), ct.uint32) % 7, ct.int32)
        r = ct.arange(T, dtype=ct.int32) + t
        acc = acc + ct.where(r > 0, ct.astype(r, ct.float32), 0.5) + ct.astype(t, ct.float16)
        acc = acc + ct.gather(x, r % 5) + float(t) * 0.25 + ct.astype(t * t, ct.int8)
        acc = acc + ct.sqrt(t * t) + ct.pow(t * t, 0.5) + ct.atan2(t, 3)
    ct.store(out, (ct.bid(0),), acc + n)
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nonneg")
    src = HEADER + textwrap.dedent(SRC)
    res = translate_source(src, "<nonneg-facts>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp / "t.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_nonneg_facts", tmp / "t.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    (tmp / "c.py").write_text(src)
    orig = interp.load_module_with_interpreter(str(tmp / "c.py"))
    return orig, trans, res.output


def run(both, kernel, grid, args):
    orig, trans, _ = both
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def body(text, kernel):
    return text.split(f"def {kernel}(")[1].split(f"def launch_{kernel}")[0]


def test_grid_stride_index_and_tile_count_use_triton_operators(both):
    """range(bid, n, num_blocks) never goes below 0, and cdiv(extent, T) with T a tile
    dimension is >= 0: `t // n_t` and `t % n_t` are plain; loaded data keeps the helpers."""
    g = torch.Generator().manual_seed(24)
    n, T = 333, 128
    x = torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int32)
    m = 7 * T - 50
    q, r = torch.zeros(m, dtype=torch.int32), torch.zeros(m, dtype=torch.int32)
    a1, a2 = run(both, "strided", (2,), [x, q, r, T])
    n_t = -(-n // T)
    xp = torch.cat([x, torch.zeros(n_t * T - n, dtype=torch.int32)]).tolist()
    want_q, want_r = [], []
    for j in range(m):
        t = j // T
        a = xp[(t % n_t) * T + j % T]
        want_q.append(a // n_t + t // n_t * 1000)
        want_r.append(a % n_t + t % n_t * 1000)
    assert a2[1].tolist() == want_q and a2[2].tolist() == want_r
    assert torch.equal(a1[1], a2[1]) and torch.equal(a1[2], a2[2])
    text = body(both[2], "strided")
    assert "t // n_t" in text and "t % n_t" in text
    assert "_floordiv(a, n_t)" in text and "_mod(a, n_t)" in text


@pytest.mark.parametrize("k", [7, 0, -3])
def test_counted_ranges(both, k):
    """range(k) counts from 0 whatever k; a countdown to 0 stays > 0."""
    T, m = 16, 5 * 16 - 3
    out = torch.zeros(m, dtype=torch.int32)
    a1, a2 = run(both, "counted", (5,), [out, k, T])
    s = sum(t // 3 * 10 + t % 3 for t in range(k))
    s += sum(t // 2 * 100 + t % 2 for t in range(-(-m // T), 0, -1))
    assert a2[0].tolist() == [s] * m and torch.equal(a1[0], a2[0])
    text = body(both[2], "counted")
    assert "_floordiv" not in text and "_mod" not in text


@pytest.mark.parametrize("lo,step,flag,G,H", [(-7, 2, 1, -3, 4), (-11, 3, 0, 5, -2),
                                              (3, 1, 0, -4, -8)])
def test_unsound_cases_keep_the_helpers(both, lo, step, flag, G, H):
    """A runtime start or step, a constexpr that is no tile dimension (G), or is one only in
    a branch (H), and a countdown to a stop of unknown sign: the helpers stay, and floor."""
    T, m = 16, 4 * 16 - 5
    out = torch.zeros(m, dtype=torch.int32)
    a1, a2 = run(both, "unsound", (4,), [out, lo, step, flag, G, H, T])
    want = []
    for i in range(4):
        s = i % G * 7 + i // H * 3
        s += sum(t // 4 * 10 + t % 3 for t in range(lo, lo + 5))
        s += sum(t // 5 * 1000 + t % 2 for t in range(lo, lo + 9, step))
        s += sum(t // 3 * 100000 for t in range(lo + 5, lo, -1))
        s += H if flag else 0
        want += [s] * T
    assert a2[0].tolist() == want[:m] and torch.equal(a1[0], a2[0])
    text = body(both[2], "unsound")
    for call in ("_mod(i, G)", "_floordiv(i, H)", "_floordiv(u, 4)", "_mod(u, 3)",
                 "_floordiv(u, 5)", "_mod(u, 2)", "_floordiv(u, 3)"):
        assert call in text, call


@pytest.mark.parametrize("lo", [-9, 2])
def test_floor_helpers_take_a_bare_loop_counter(both, lo):
    """Under TRITON_INTERPRET=1 a range variable is a Python int, not a tensor: the helpers
    floored it twice or failed on `.dtype` (a false `error` verdict on CPU)."""
    T, m = 16, 3 * 16 - 5
    out = torch.zeros(m, dtype=torch.int32)
    a1, a2 = run(both, "bare_counter", (3,), [out, lo, T])
    s = sum(t // 4 * 100 + t % 3 * 10 - t for t in range(lo, lo + 7))
    assert a2[0].tolist() == [s] * m and torch.equal(a1[0], a2[0])
    text = body(both[2], "bare_counter")
    assert "_floordiv(t, 4)" in text and "_mod(t, 3)" in text


@pytest.mark.parametrize("lo", [-9, 2])
def test_a_loop_counter_in_every_scalar_form(both, lo):
    """A Python-int loop counter (TRITON_INTERPRET=1) through ct.cdiv, conversions of it and of
    comparisons of it (`tl.cast`, not `.to`), a bitcast, tiles built from it, and the math
    helpers (`_sqrt`, `_pow`, `_atan2`) that take it."""
    g = torch.Generator().manual_seed(7)
    T, m = 16, 3 * 16 - 5
    x = torch.randn(37, generator=g)
    out = torch.zeros(m)
    a1, a2 = run(both, "counter_forms", (3,), [x, out, lo, T])
    xd, want = x.double(), torch.zeros(T, dtype=torch.float64)
    n = 0
    for t in range(lo, lo + 7):
        n += -(-t // 3) * 1000 + int(t > 0) * 100 - int(t < 0) * 10 + (t % 2**32) % 7
        r = torch.arange(T, dtype=torch.float64) + t
        want += torch.where(r > 0, r, 0.5) + t + xd[(r % 5).long()] + t * 0.25
        want += (t * t + 128) % 256 - 128 + 2 * abs(t) + math.atan2(t, 3)
    want = (want + n).repeat(3)[:m]
    torch.testing.assert_close(a2[1].double(), want, rtol=1e-5, atol=1e-3)
    torch.testing.assert_close(a1[1], a2[1], rtol=1e-5, atol=1e-3)
    text = body(both[2], "counter_forms")
    assert "_cdiv(t, 3)" in text and "tl.cast(t > 0, tl.int32)" in text
    assert "_sqrt(t * t)" in text and "_pow(t * t, 0.5)" in text and "_atan2(t, 3)" in text
