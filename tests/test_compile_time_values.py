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
    assert "k: tl.constexpr = 3" in both.text and "n: tl.constexpr = 2" in both.text
    launches = f"[((4,), torch.zeros({N}), torch.zeros({N}), {T})]"
    assert compile_messages(both.path, "spliced", launches) == ["ok"]


# ---------------------------------------------- plain Python run at compile time, tuple lengths
COMPILE_TIME_SRC = """
def triangle(n):
    total = 0
    for k in range(1, n + 1):
        total += k
    return total


def next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


@ct.kernel
def scaled_rows(x, y, cfg, T: ct.Constant[int], LIMIT: ct.Constant[int]):
    ct.static_assert(triangle(T) < LIMIT, f"T = {T} is too large")
    width = ct.static_eval(next_pow2(T))
    t = ct.load(x, index=(ct.bid(0),), shape=(width,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=t * len(cfg) + cfg[1])
"""


def test_plain_python_runs_at_compile_time(tmp_path):
    """A loop over range(n) in a module function called inside ct.static_assert or
    ct.static_eval is not constant folding: Triton runs it (@triton.constexpr_function), and
    host code may still call the function. `len(cfg)` of a tuple argument is launch-time
    constant the launcher passes."""
    both = Both(tmp_path, COMPILE_TIME_SRC, "compile_time")
    assert "@triton.constexpr_function\ndef triangle(n):" in both.text
    assert "@triton.constexpr_function\ndef next_pow2(n):" in both.text
    assert "tl.static_assert(triangle(T) < LIMIT" in both.text
    assert both.trans.next_pow2(20) == 32             # still plain Python on the host
    width = 64
    n = width * 4 + 11
    x = torch.randn(n, generator=gen(5), dtype=torch.float64).to(torch.float32)
    grid = (-(-n // width),)
    r1, r2 = both.run("scaled_rows", grid, [x, torch.zeros(n), (2.0, -1.5, 7), 40, 1000])
    want = x.to(torch.float64) * 3 - 1.5
    assert torch.allclose(r2[1].to(torch.float64), want, rtol=1e-6, atol=1e-6)
    assert torch.equal(r1[1], r2[1])
    launches = (f"[((4,), torch.zeros({n}), torch.zeros({n}), (2.0, -1.5, 7), T, 1000) "
                "for T in (40, 33)]")
    assert compile_messages(both.path, "scaled_rows", launches) == ["ok", "ok"]
    too_large = compile_messages(both.path, "scaled_rows", f"[((4,), torch.zeros({n}), "
                                 f"torch.zeros({n}), (1.0, 2.0), 60, 1000)]")
    assert "T = {T} is too large" in too_large[0]


# ------------------------------------------ views made by nested functions, nested comprehensions
VIEWS_SRC = """
@ct.kernel
def copy_by_views(x, y, z, T: ct.Constant[int]):
    def view_of(arr, size):
        return arr.tiled_view(size)

    def move(src, dst, i):
        dst.store(i, src.load(i) * 2.0)

    vx = view_of(x, T)
    for i in range(vx.num_tiles(0)):
        move(vx, view_of(y, T), i)
    rows = tuple(tuple(j * 10 + i for i in ct.static_iter(range(j)))
                 for j in ct.static_iter(range(4)))
    k = 0
    for row in ct.static_iter(rows):
        for v in ct.static_iter(row):
            ct.scatter(z, k, v)
            k += 1
"""


def test_views_from_nested_helpers_and_ragged_static_tuples(tmp_path):
    """A nested function that returns `arr.tiled_view(size)` hands back a view (inlined), and
    makes its argument an array of rank 1; `rows` holds tuples of lengths 0 to 3, the first
    one empty, each iterated with ct.static_iter."""
    both = Both(tmp_path, VIEWS_SRC, "views")
    x = torch.randn(N, generator=gen(8), dtype=torch.float64).to(torch.float32)
    z = torch.zeros(6, dtype=torch.int32)
    r1, r2 = both.run("copy_by_views", (1,), [x, torch.zeros(N), z, T])
    assert torch.allclose(r2[1].to(torch.float64), x.to(torch.float64) * 2, rtol=0, atol=0)
    assert torch.equal(r1[1], r2[1])
    assert r2[2].tolist() == [10, 20, 21, 30, 31, 32] == r1[2].tolist()
    launches = (f"[((1,), torch.zeros({N}), torch.zeros({N}), torch.zeros(6, dtype=torch.int32),"
                f" {T})]")
    assert compile_messages(both.path, "copy_by_views", launches) == ["ok"]


# ----------------------------------------------------------- `*t` in calls, `*items` parameters
STARRED_SRC = """
def put_all(arr, base, *values):
    for k, v in ct.static_iter(enumerate(values)):
        ct.scatter(arr, base + k, v)


@ct.kernel
def starred(x, out, marks, T: ct.Constant[int]):
    where = (x, (ct.bid(0),))
    t = ct.load(*where, shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=t + 1.0)
    extra = (2.5, -1.0)
    put_all(marks, 0, 7.0, *extra, *(3.0,))
    args = (marks, 4, t.shape[0] * 1.0)
    ct.scatter(*args)
"""


def test_starred_arguments_and_variadic_helpers(tmp_path):
    """`ct.load(*where, ...)` with `where` holding an array and a tuple of runtime values,
    `ct.scatter(*args)`, and a helper `def put_all(arr, base, *values)` called with `*` of
    tuples: each call gets the items as Python passes them."""
    both = Both(tmp_path, STARRED_SRC, "starred")
    x = torch.randn(N, generator=gen(9), dtype=torch.float64).to(torch.float32)
    marks = torch.zeros(5)
    r1, r2 = both.run("starred", GRID, [x, torch.zeros(N), marks, T])
    assert torch.allclose(r2[1].to(torch.float64), x.to(torch.float64) + 1, rtol=1e-6, atol=0)
    assert torch.equal(r1[1], r2[1])
    assert r2[2].tolist() == [7.0, 2.5, -1.0, 3.0, float(T)] == r1[2].tolist()
    assert "(7.0, 2.5, -1.0, 3.0)" in both.text
    launches = (f"[((4,), torch.zeros({N}), torch.zeros({N}), torch.zeros(5), {T})]")
    assert compile_messages(both.path, "starred", launches) == ["ok"]


# ------------------------------------------------------------- lambdas made by a comprehension
LAMBDAS_SRC = """
@ct.kernel
def late_binding(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    scales = tuple(lambda: s * 1.5 for s in ct.static_iter(range(3)))
    s = 100.0
    acc = t
    for f in ct.static_iter(scales):
        acc = acc + f()
    ct.store(y, index=(ct.bid(0),), tile=acc)
"""


def test_lambdas_of_a_comprehension_see_its_last_item(tmp_path):
    """As in Python, every lambda a comprehension makes reads the comprehension's variable
    after the comprehension ended: its last item (2), not a later `s` of the kernel."""
    both = Both(tmp_path, LAMBDAS_SRC, "lambdas")
    x = torch.randn(N, generator=gen(10), dtype=torch.float64).to(torch.float32)
    r1, r2 = both.run("late_binding", GRID, [x, torch.zeros(N), T])
    assert torch.allclose(r2[1].to(torch.float64), x.to(torch.float64) + 9.0, rtol=1e-6,
                          atol=1e-6)
    assert torch.equal(r1[1], r2[1])
    launches = f"[((4,), torch.zeros({N}), torch.zeros({N}), {T})]"
    assert compile_messages(both.path, "late_binding", launches) == ["ok"]
