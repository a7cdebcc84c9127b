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


def test_no_barrier_between_branches_or_between_scalar_stores():
    """Accesses in the two branches of an `if` never both run; stores of one element each are
    made by one thread, in order; after the `if`, a scalar store may hit an element a lane of
    either branch wrote."""
    text = __import__("side_by_side").translate("""
@ct.kernel
def branches(x, T: ct.Constant[int]):
    lane = ct.arange(T, dtype=ct.int32)
    if ct.bid(0) == 0:
        ct.scatter(x, lane, 1)
    else:
        ct.scatter(x, T - 1 - lane, 2)
    ct.scatter(x, 0, 5)
    ct.scatter(x, 1, 6)
""")
    kernel = _kernel_text(text, "branches")
    assert kernel.count("tl.debug_barrier()") == 1
    assert kernel.index("else:") < kernel.index("tl.debug_barrier()") < kernel.index(
        "_scatter_1d(x_ptr, (x_shape0,), (x_stride0,), (0,), 5")


TUPLE_SRC = """
@ct.kernel
def tuple_tests(y, C: ct.Constant[int]):
    a = ct.bid(0)
    b = ct.bid(1)
    base = (10, 20)
    t = (*base, 30, *(40,), *())
    r = t[2] + t[3] + len(t)
    if (a, b) == (1, 0):
        r += 100
    if ((a, 2), b) != ((0, 2), 1):
        r += 1000
    if (a, b) in ((0, 0), (2, 1)):
        r += 10000
    big = ct.bitwise_not(C > 3)
    if big:
        r += 100000
    if ct.bitwise_not(True):
        r += 1000000
    ct.scatter(y, (a, b), r)
"""


@pytest.fixture(scope="module")
def tuples(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("tuples"), TUPLE_SRC, "tuples")


@pytest.mark.parametrize("c", [2, 7])
def test_tuple_equality_starred_items_and_bool_not(tuples, c):
    """`(a, b) == (1, 0)` of runtime scalars is an and of item comparisons (nested tuples item
    by item; `!=` its negation; `in` an or of them); `*t` in a tuple literal splices t's items;
    `~` of a compile-time bool is `not` (Python's `~True` is -2)."""
    y = torch.zeros((3, 2), dtype=torch.int32)
    r1, r2 = tuples.run("tuple_tests", (3, 2), [y, c])
    want = torch.zeros((3, 2), dtype=torch.int32)
    for a in range(3):
        for b in range(2):
            r = 30 + 40 + 4
            r += 100 if (a, b) == (1, 0) else 0
            r += 1000 if ((a, 2), b) != ((0, 2), 1) else 0
            r += 10000 if (a, b) in ((0, 0), (2, 1)) else 0
            r += 100000 if not c > 3 else 0
            want[a, b] = r
    assert torch.equal(r2[0], want)
    assert torch.equal(r1[0], r2[0])
    assert "(a == 1) & (b == 0)" in tuples.text
    assert "not (C > 3)" in tuples.text


FP8_SRC = """
@ct.kernel
def fp8_consts(x):
    t = ct.astile(((0.5, -1.5), (2.0, 448.0)), dtype=x.dtype)
    ct.store(x, (0, 0), t)
"""


@pytest.fixture(scope="module")
def fp8(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("fp8"), FP8_SRC, "fp8")


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_astile_of_fp8(fp8, dtype):
    """Triton cannot make fp8 constants (its builder has no fp8 constant maker): ct.astile
    builds an fp8 tile in fp32 and converts it once."""
    x = torch.randn(3, 5, generator=gen(4)).to(dtype)
    r1, r2 = fp8.run("fp8_consts", (1,), [x])
    want = x.clone()
    want[:2, :2] = torch.tensor([[0.5, -1.5], [2.0, 448.0]]).to(dtype)
    assert torch.equal(r2[0].view(torch.uint8), want.view(torch.uint8))
    assert torch.equal(r1[0].view(torch.uint8), r2[0].view(torch.uint8))


def test_astile_of_fp8_compiles_for_sm90(fp8):
    assert compile_messages(fp8.path, "fp8_consts",
                            "[((1,), torch.zeros(3, 5, dtype=torch.float8_e4m3fn))]") == ["ok"]


NAN_SRC = """
@ct.kernel
def extrema_rows(x, mx, mn, amx, amn, TM: ct.Constant[int], TN: ct.Constant[int],
                 PROP: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.NAN)
    ct.store(mx, index=(ct.bid(0),), tile=ct.max(t, axis=1, propagate_nan=PROP))
    ct.store(mn, index=(ct.bid(0),), tile=ct.min(t, axis=1, propagate_nan=PROP))
    ct.store(amx, index=(ct.bid(0),), tile=ct.argmax(t, axis=1, propagate_nan=PROP))
    ct.store(amn, index=(ct.bid(0),), tile=ct.argmin(t, axis=1, propagate_nan=PROP))


@ct.kernel
def arg_all(x, out, TM: ct.Constant[int], TN: ct.Constant[int], PROP: ct.Constant[bool]):
    t = ct.load(x, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out, index=(0,), tile=ct.reshape(ct.argmax(t, propagate_nan=PROP), (1,)))
    ct.store(out, index=(1,), tile=ct.reshape(ct.argmin(t, propagate_nan=PROP), (1,)))
"""


@pytest.fixture(scope="module")
def nan_kernels(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("nan"), NAN_SRC, "nanred")


def _rows_with_nan(m, n, seed):
    x = torch.randn(m, n, generator=gen(seed), dtype=torch.float64)
    x[torch.rand(m, n, generator=gen(seed + 1)) < 0.2] = float("nan")
    x[1] = float("nan")                               # a row of NaN
    x[2, :] = torch.randn(n, generator=gen(seed + 2), dtype=torch.float64)
    x[2, n - 1] = float("nan")                        # one NaN, last
    x[3, 0], x[3, 1] = float("nan"), float("-inf")    # NaN before the minimum
    x[4, 2], x[4, 5] = float("inf"), float("inf")     # ties: the first index
    return x.to(torch.float32)


def _first_index(row, pick, prop):
    """Reference: the first index of the row's max / min, NaN skipped (a row of NaN: 0) or,
    with propagation, the first NaN."""
    nan = torch.isnan(row)
    if prop and nan.any():
        return int(nan.nonzero()[0])
    if nan.all():
        return 0
    vals = row.masked_fill(nan, float("-inf") if pick == "max" else float("inf"))
    best = vals.max() if pick == "max" else vals.min()
    return int(((vals == best) & ~nan).nonzero()[0])


@pytest.mark.parametrize("prop", [False, True])
def test_nan_in_row_extrema_and_their_indices(nan_kernels, prop):
    """GPU run 28 (test_reduction, first complete run): argmax / argmin of rows with NaN were
    wrong (Triton's combine compares with `>` only), and propagate_nan=True did not translate."""
    m, n, tn = 7, 13, 16                                # columns padded with NaN by the load
    x = _rows_with_nan(m, n, 5)
    outs = [torch.zeros(m), torch.zeros(m), torch.zeros(m, dtype=torch.int32),
            torch.zeros(m, dtype=torch.int32)]
    r1, r2 = nan_kernels.run("extrema_rows", (m,), [x] + outs + [1, tn, prop])
    xd = x.double()
    for i in range(m):
        row = xd[i]
        want_mx = (row.max() if prop else torch.nan_to_num(row.nan_to_num(float("-inf")).max(),
                                                           neginf=float("nan")))
        if not prop and torch.isnan(row).all():
            want_mx = torch.tensor(float("nan"))
        assert torch.equal(torch.isnan(r2[1][i]), torch.isnan(want_mx)), i
        assert int(r2[3][i]) == _first_index(row, "max", prop), i
        assert int(r2[4][i]) == _first_index(row, "min", prop), i
    for k in range(1, 5):
        assert torch.equal(r1[k].nan_to_num(123.0), r2[k].nan_to_num(123.0)), k


@pytest.mark.parametrize("prop", [False, True])
def test_nan_in_argmax_over_all_axes(nan_kernels, prop):
    m, n, tm, tn = 5, 6, 8, 8
    x = torch.randn(m, n, generator=gen(9)).to(torch.float32)
    x[1, 2] = x.max() + 1
    x[3, 4] = float("nan")
    out = torch.zeros(2, dtype=torch.int32)
    r1, r2 = nan_kernels.run("arg_all", (1,), [x, out, tm, tn, prop])
    # flat indices in the (TM, TN) tile, row * TN + column; the load pads columns 6 and 7 with
    # -inf, so the first minimum of row 0 is its padding at column 6
    want = [3 * tn + 4, 3 * tn + 4] if prop else [1 * tn + 2, 0 * tn + 6]
    assert r2[1].tolist() == want
    assert torch.equal(r1[1], r2[1])


BCAST_SRC = """
def min_with_index(v1, i1, v2, i2):
    first = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return ct.where(first, v1, v2), ct.where(first, i1, i2)


def add_pair(a1, b1, a2, b2):
    return a1 + a2, b1 + b2


@ct.kernel
def row_min_and_col(x, vals, idx, TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.POS_INF)
    cols = ct.arange(TN, dtype=ct.int32)              # (TN,): broadcast against (TM, TN)
    v, i = ct.reduce((t, cols), 1, min_with_index, (float("inf"), 0))
    ct.store(vals, index=(ct.bid(0),), tile=v)
    ct.store(idx, index=(ct.bid(0),), tile=i)


@ct.kernel
def scan_pair(w, y, out_a, out_b, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(w, index=(0,), shape=(TN,))
    b = ct.load(y, index=(0, 0), shape=(TM, TN))
    sa, sb = ct.scan((a, b), axis=-1, func=add_pair, identity=(0, 0))
    ct.store(out_a, index=(0, 0), tile=sa)
    ct.store(out_b, index=(0, 0), tile=sb)
"""


@pytest.fixture(scope="module")
def bcast(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("bcast"), BCAST_SRC, "bcast")


def test_reduce_broadcasts_a_tuples_tiles(bcast):
    """GPU run 28: `ct.reduce((tile2d, arange1d), ...)` was a compile error ("all reduction
    inputs must have the same shape"); cuTile broadcasts a tuple's tiles to one shape."""
    m, n, tm, tn = 11, 13, 4, 16
    x = torch.randint(-6, 6, (m, n), generator=gen(3)).to(torch.float32)  # ties on purpose
    vals, idx = torch.zeros(m), torch.zeros(m, dtype=torch.int32)
    r1, r2 = bcast.run("row_min_and_col", (-(-m // tm),), [x, vals, idx, tm, tn])
    xd = x.double()
    assert torch.equal(r2[1].double(), xd.min(dim=1).values)
    want = [int((xd[i] == xd[i].min()).nonzero()[0]) for i in range(m)]
    assert r2[2].tolist() == want
    assert torch.equal(r1[1], r2[1]) and torch.equal(r1[2], r2[2])


def test_scan_broadcasts_a_tuples_tiles_and_takes_the_axis_of_the_result(bcast):
    tm, tn = 4, 8
    w = torch.randint(-9, 9, (tn + 3,), generator=gen(4)).to(torch.int32)
    y = torch.randint(-9, 9, (tm + 2, tn + 3), generator=gen(5)).to(torch.int32)
    out_a = torch.zeros(tm + 1, tn + 1, dtype=torch.int32)
    out_b = torch.zeros(tm + 1, tn + 1, dtype=torch.int32)
    r1, r2 = bcast.run("scan_pair", (1,), [w, y, out_a, out_b, tm, tn])
    want_a = torch.cumsum(w[:tn].long(), 0).expand(tm, tn)
    want_b = torch.cumsum(y[:tm, :tn].long(), 1)
    assert torch.equal(r2[2][:tm, :tn].long(), want_a)
    assert torch.equal(r2[3][:tm, :tn].long(), want_b)
    assert torch.equal(r1[2], r2[2]) and torch.equal(r1[3], r2[3])


CAPTURE_SRC = """
@ct.kernel
def wrap_sum(x, y, TN: ct.Constant[int]):
    modulus = 7
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=ct.reduce(t, 1, lambda a, b: (a + b) % modulus, 0))


@ct.kernel
def wrap_sum_5(x, y, TN: ct.Constant[int]):
    modulus = 5        # the same lambda text: its own helper
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=ct.reduce(t, 1, lambda a, b: (a + b) % modulus, 0))
"""


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("capture"), CAPTURE_SRC, "capture")


def test_combiner_lambda_reads_a_compile_time_value_of_the_kernel(capture):
    m, n = 9, 21
    x = torch.randint(0, 50, (m, n), generator=gen(12)).to(torch.int32)
    y = torch.zeros(m, dtype=torch.int32)
    for kernel, mod in (("wrap_sum", 7), ("wrap_sum_5", 5)):
        r1, r2 = capture.run(kernel, (m,), [x, y, 32])
        # (a + b) % mod combined in any order is the row sum mod mod (the padding adds zeros)
        assert torch.equal(r2[1].long(), x.long().sum(dim=1) % mod)
        assert torch.equal(r1[1], r2[1])


def test_combiner_lambda_reading_a_runtime_value_is_a_located_error():
    """Upstream's test_custom_reduction_with_capture: was "unknown name `modulo` inside kernel
    `_lambda_<hash>`", a name the user never wrote."""
    from tile2triton.translate import translate_source
    src = CAPTURE_SRC.replace("modulus = 7", "modulus = ct.gather(x, (0, 0)) + 2")
    res = translate_source("import cuda.tile as ct\n" + src, "cap.py")
    assert not res.ok
    text = "\n".join(d.format() for d in res.diagnostics())
    assert "T2T101 this lambda reads `modulus`, a runtime value of `wrap_sum`" in text
    assert "cap.py:7:" in text and "_lambda_" not in text
