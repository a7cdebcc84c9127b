"""The non-negativity facts that let `//` and `%` stay Triton's operators (issue 24): a loop
variable of a range that starts >= 0 and steps >= 0 (or counts down to a stop >= 0), and a
ct.Constant parameter used as a tile dimension (cuTile rejects one that is not positive).
Each kernel runs under TRITON_INTERPRET=1 on data with negative values and shapes that are not
tile multiples, against Python's floor semantics and the reference interpreter; the cases
the facts do not cover (a runtime start or step, a constexpr that is no tile dimension, or is
one only inside a branch) keep the floor helpers and still floor.
Then the facts that reach further: `n + TILE - 1` of a shape is >= 0 (a value >= 1 less 1), a
helper's parameter is as non-negative as what every call of its translation passes (a call
proving less gets a translation of its own), and what a loop re-binds, or a helper returns
from one of several `return`s, loses what was known of its sign.
"""
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


@ct.kernel
def ceil_count(x, out, k: int, T: ct.Constant[int]):
    n = x.shape[0]
    up = (n + T - 1) // T * 1000 + (n + T - 1) % T
    two = (n + T - 2) // T * 100
    neg = (k + T - 1) // T * 10 + (k + T - 1) % T
    ct.store(out, (ct.bid(0),), ct.full((T,), up + two + neg, dtype=ct.int32))


@ct.function
def swizzle(M, N, tm, tn, G, bid):
    num_m = ct.cdiv(M, tm)
    num_n = ct.cdiv(N, tn)
    in_group = G * num_n
    group = bid // in_group
    first = group * G
    size_m = min(num_m - first, G)
    return first + bid % size_m, (bid % in_group) // size_m


@ct.kernel
def swizzled_copy(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    G = 3
    bm, bn = swizzle(x.shape[0], x.shape[1], TM, TN, G, ct.bid(0))
    t = ct.load(x, (bm, bn), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (bm, bn), t)


@ct.kernel
def swizzle_any(out, m: int, n: int, off: int, g: int, T: ct.Constant[int]):
    bm, bn = swizzle(m, n, T, T, g, ct.bid(0) + off)
    ct.store(out, (ct.bid(0),), ct.full((T,), bm * 1000 + bn, dtype=ct.int32))


@ct.kernel
def swizzle_again(out, T: ct.Constant[int]):
    bm, bn = swizzle(out.shape[0], out.shape[0], T, T, 2, ct.bid(0))
    ct.store(out, (ct.bid(0),), ct.full((T,), bm * 1000 + bn, dtype=ct.int32))


@ct.kernel
def carried(out, T: ct.Constant[int]):
    x = ct.bid(0)
    y = ct.bid(0)
    w = ct.bid(0)
    s = 0
    for i in range(4):
        s = s + x // 3 * 100 + x % 3
        x = x - 5
    while y > -9:
        s = s + y // 4 * 10000
        y -= 4
    for i in range(3):
        for j in range(2):
            s = s + w // 2 * 1000000
        w = w - 3
    ct.store(out, (ct.bid(0),), ct.full((T,), s, dtype=ct.int32))


@ct.function
def early(b, n):
    if b > 2:
        return b - n
    return b


@ct.function
def down(b):
    for i in range(3):
        b = b - 2
    return b


@ct.kernel
def helper_signs(out, T: ct.Constant[int]):
    e = early(ct.bid(0), 10)
    d = down(ct.bid(0))
    ct.store(out, (ct.bid(0),), ct.full((T,), e // 3 * 1000 + d % 4, dtype=ct.int32))


@ct.function
def five_or_three(b):
    if b > 2:
        return 5
    return 3


@ct.function
def by_mode(MODE):
    if MODE:
        return 7
    return 9


@ct.kernel
def helper_consts(out, MODE: ct.Constant[int], T: ct.Constant[int]):
    v = five_or_three(ct.bid(0)) * 10 + by_mode(MODE)
    ct.store(out, (ct.bid(0),), ct.full((T,), v, dtype=ct.int32))
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


@pytest.mark.parametrize("n,k", [(333, -50), (16, 7), (1, -1)])
def test_shape_plus_tile_minus_one(both, n, k):
    """`n + T - 1` with n a shape and T a tile dimension is >= 0 (>= 1, less 1): plain `//` and
    `%`. Less 2, or of a runtime int, it may be negative: the helpers stay, and floor."""
    g = torch.Generator().manual_seed(n)
    T, m = 16, 3 * 16 - 5
    x = torch.randn(n, generator=g)
    out = torch.zeros(m, dtype=torch.int32)
    a1, a2 = run(both, "ceil_count", (3,), [x, out, k, T])
    s = (n + T - 1) // T * 1000 + (n + T - 1) % T + (n + T - 2) // T * 100
    s += (k + T - 1) // T * 10 + (k + T - 1) % T
    assert a2[1].tolist() == [s] * m and torch.equal(a1[1], a2[1])
    text = body(both[2], "ceil_count")
    assert "(n + T - 1) // T * 1000 + (n + T - 1) % T" in text
    assert "_floordiv(n + T - 2, T)" in text
    assert "_floordiv(k + T - 1, T)" in text and "_mod(k + T - 1, T)" in text


def py_swizzle(M, N, tm, tn, G, bid):
    num_m, num_n = -(-M // tm), -(-N // tn)
    in_group = G * num_n
    first = bid // in_group * G
    size_m = min(num_m - first, G)
    return first + bid % size_m, bid % in_group // size_m


def helper_text(text, name):
    return text.split(f"def {name}(")[1].split("@triton.jit")[0]


def test_helper_parameters_take_their_callers_signs(both):
    """swizzle() called with shapes, tile dimensions, a constant and the block id: its
    translation divides with Triton's operators where those alone decide the signs (the group
    size, a min that may be negative, keeps the helpers). The output is a permuted copy."""
    g = torch.Generator().manual_seed(3)
    TM, TN, M, N = 16, 32, 16 * 7 - 5, 32 * 4 - 9
    x = torch.randn(M, N, generator=g)
    y = torch.zeros(M, N)
    grid = (-(-M // TM) * -(-N // TN),)
    a1, a2 = run(both, "swizzled_copy", grid, [x, y, TM, TN])
    assert torch.equal(a2[1], x) and torch.equal(a1[1], a2[1])
    text = helper_text(both[2], "swizzle")
    for plain in ("tl.cdiv(M, tm)", "tl.cdiv(N, tn)", "group = bid // in_group",
                  "bid % in_group"):
        assert plain in text, plain
    assert "_mod(bid, size_m)" in text and "_floordiv(bid % in_group, size_m)" in text


@pytest.mark.parametrize("m,n,off,g", [(100, 70, -40, 3), (-50, 90, 5, 2), (60, 60, 3, -2)])
def test_a_call_proving_less_gets_its_own_translation(both, m, n, off, g):
    """Runtime ints of any sign: a second translation, `swizzle_2`, keeps every helper and
    floors; a later call proving as much as the first translation assumes reuses it."""
    T, nb = 16, 6
    out = torch.zeros(nb * T - 3, dtype=torch.int32)
    a1, a2 = run(both, "swizzle_any", (nb,), [out, m, n, off, g, T])
    want = []
    for b in range(nb):
        bm, bn = py_swizzle(m, n, T, T, g, b + off)
        want += [bm * 1000 + bn] * T
    assert a2[0].tolist() == want[:len(out)] and torch.equal(a1[0], a2[0])
    text = both[2]
    spec = helper_text(text, "swizzle_2")
    for call in ("_cdiv(M, tm)", "_cdiv(N, tn)", "_floordiv(bid, in_group)",
                 "_mod(bid, in_group)"):
        assert call in spec, call
    assert "def swizzle_3(" not in text
    assert "swizzle_2(" in body(text, "swizzle_any") and "swizzle_2(" not in body(
        text, "swizzle_again")


def test_a_later_call_reuses_the_first_translation(both):
    T, nb = 16, 5
    out = torch.zeros(nb * T - 7, dtype=torch.int32)
    a1, a2 = run(both, "swizzle_again", (nb,), [out, T])
    m = len(out)
    want = []
    for b in range(nb):
        bm, bn = py_swizzle(m, m, T, T, 2, b)
        want += [bm * 1000 + bn] * T
    assert a2[0].tolist() == want[:m] and torch.equal(a1[0], a2[0])
    assert "swizzle(" in body(both[2], "swizzle_again")


def test_what_a_loop_rebinds_loses_its_sign(both):
    """The block id, non-negative before the loop, goes negative where the loop steps it
    down: `//` and `%` of it in the loop (and in a nested loop) keep the helpers."""
    T, nb = 16, 4
    out = torch.zeros(nb * T - 1, dtype=torch.int32)
    a1, a2 = run(both, "carried", (nb,), [out, T])
    want = []
    for b in range(nb):
        s, x, y, w = 0, b, b, b
        for _ in range(4):
            s += x // 3 * 100 + x % 3
            x -= 5
        while y > -9:
            s += y // 4 * 10000
            y -= 4
        for _ in range(3):
            s += 2 * (w // 2 * 1000000)
            w -= 3
        want += [s] * T
    assert a2[0].tolist() == want[:len(out)] and torch.equal(a1[0], a2[0])
    text = body(both[2], "carried")
    for call in ("_floordiv(x, 3)", "_mod(x, 3)", "_floordiv(y, 4)", "_floordiv(w, 2)"):
        assert call in text, call


def test_a_helper_with_several_returns_or_a_loop_returns_no_sign(both):
    """early() returns its non-negative parameter last, but `b - n` before; down() steps its
    parameter below 0 in a loop: the caller's `//` and `%` of their results floor."""
    T, nb = 16, 5
    out = torch.zeros(nb * T - 2, dtype=torch.int32)
    a1, a2 = run(both, "helper_signs", (nb,), [out, T])
    want = []
    for b in range(nb):
        e = b - 10 if b > 2 else b
        want += [e // 3 * 1000 + (b - 6) % 4] * T
    assert a2[0].tolist() == want[:len(out)] and torch.equal(a1[0], a2[0])
    text = body(both[2], "helper_signs")
    assert "_floordiv(e, 3)" in text and "_mod(d, 4)" in text


@pytest.mark.parametrize("mode", [0, 1])
def test_a_helper_returning_one_of_two_constants_is_not_folded(both, mode):
    """five_or_three() returns 5 or 3 by the block id, by_mode() 7 or 9 by a ct.Constant the
    translation keeps a Triton constexpr: neither is its last `return`'s constant (they were
    folded to 3 and 9)."""
    T, nb = 16, 5
    out = torch.zeros(nb * T - 4, dtype=torch.int32)
    a1, a2 = run(both, "helper_consts", (nb,), [out, mode, T])
    want = []
    for b in range(nb):
        want += [(5 if b > 2 else 3) * 10 + (7 if mode else 9)] * T
    assert a2[0].tolist() == want[:len(out)] and torch.equal(a1[0], a2[0])
    text = body(both[2], "helper_consts")
    assert "v = five_or_three(tl.program_id(0)) * 10 + by_mode(MODE)" in text
