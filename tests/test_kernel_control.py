"""Control flow, tuples, nested functions and 0-d arrays as cuTile's own test suite writes them
(issues 10/11). Each translation runs under TRITON_INTERPRET=1 and is compared with the cuTile
reference interpreter (tile2triton.interp) and a torch reference on random data whose sizes are
not multiples of the tile. What the interpreter cannot show (Triton compile errors) is checked by
compiling for sm_90 with Triton's front end (compile_probe.py), in a subprocess."""
import sys
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

from side_by_side import HEADER, Both, compile_messages, gen


# ------------------------------------------------------------------ and / or / not on scalars
BOOLOPS_SRC = """
@ct.kernel
def conds(x, y, c0, c1, c2, base: int, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    if c0 or c1 or c2:
        t = t + 1.0
    else:
        t = t - 1.0
    if c0 and c1 and c2:
        t = t * 2.0
    if c0 or c1 and c2 and base > 50:
        t = t + 10.0
    both = (c0 or c1) and c2
    if both:
        t = t + 100.0
    if not c1:
        t = t - 1000.0
    ct.store(y, index=(b,), tile=t)
"""


def _boolops_ref(x, c0, c1, c2, base):
    t = x.double()
    t = t + 1.0 if (c0 or c1 or c2) else t - 1.0
    if c0 and c1 and c2:
        t = t * 2.0
    if c0 or c1 and c2 and base > 50:
        t = t + 10.0
    if (c0 or c1) and c2:
        t = t + 100.0
    if not c1:
        t = t - 1000.0
    return t


def test_and_or_not_of_int_scalars_run(tmp_path):
    both = Both(tmp_path, BOOLOPS_SRC, "boolops")
    n = 300
    x = torch.randn(n, generator=gen(1))
    for c0, c1, c2, base in [(1, 5, -5, 100), (0, 0, -5, 100), (0, 5, 0, 0), (0, 0, 0, 0),
                             (1, 0, 0, 0), (0, 3, 2, 0)]:
        a1, a2 = both.run("conds", (3,), [x, torch.full((n,), float("nan")), c0, c1, c2, base,
                                          128])
        ref = _boolops_ref(x, c0, c1, c2, base)
        torch.testing.assert_close(a1[1].double(), ref)
        torch.testing.assert_close(a2[1].double(), ref)


def test_and_or_not_of_int_and_bool_scalars_compile(tmp_path):
    """Triton's `and`/`or`/`not` bitcast an int32 operand to int1, which does not compile: each
    runtime operand is compared with 0 first (as cuTile makes each operand a bool)."""
    both = Both(tmp_path, BOOLOPS_SRC, "boolops_c")
    assert "c0 != 0 or c1 != 0 or c2 != 0" in both.text
    launches = ("[((3,), torch.zeros(300), torch.zeros(300), c0, c1, c2, 7, 128) "
                "for c0, c1, c2 in [(1, 5, -5), (True, False, True), (True, 5, 0), "
                "(0, False, -5)]]")
    assert compile_messages(both.path, "conds", launches) == ["ok"] * 4


# ------------------------------------------------------------------ 0-d arrays: gather/scatter
ZERO_D_SRC = """
@ct.kernel
def zero_d(x, y, z, n: int):
    v = ct.gather(x, ())
    ct.scatter(y, (), v * 2.0 + n)
    b = ct.pack_to_bytes(v)
    w = ct.unpack_from_bytes(b, x.dtype).reshape(())
    ct.scatter(z, (), w, mask=n > 3)
"""


@pytest.mark.parametrize("n", [2, 7])
def test_zero_d_gather_scatter(tmp_path, n):
    both = Both(tmp_path, ZERO_D_SRC, "zero_d")
    assert "tl.load(x_ptr)" in both.text
    x = torch.randn((), generator=gen(n))
    a1, a2 = both.run("zero_d", (1,), [x, torch.zeros(()), torch.full((), -1.0), n])
    ref_y = x.double() * 2.0 + n
    ref_z = x.double() if n > 3 else torch.tensor(-1.0, dtype=torch.float64)
    for got in (a1, a2):
        assert got[1].shape == () and got[2].shape == ()
        torch.testing.assert_close(got[1].double(), ref_y)
        torch.testing.assert_close(got[2].double(), ref_z)


def test_zero_d_gather_scatter_compile(tmp_path):
    both = Both(tmp_path, ZERO_D_SRC, "zero_d_c")
    launches = ("[((1,), torch.zeros((), dtype=dt), torch.zeros((), dtype=dt), "
                "torch.zeros((), dtype=dt), 5) for dt in (torch.float32, torch.float16)]")
    assert compile_messages(both.path, "zero_d", launches) == ["ok"] * 2


# ------------------------------------------------------------------ tuple kernel parameters
TUPLE_SRC = """
@ct.kernel
def pairs(pair, out, cfg, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    a = ct.load(pair[0], (bm, bn), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(pair[1], (bm, bn), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (bm, bn), a * cfg[0][1] + b + cfg[0][0] - cfg[1])


@ct.kernel
def sized(x, y, cfg: tuple[tuple[ct.Constant[int], int], float]):
    t = ct.load(x, (ct.bid(0),), (cfg[0][0],))
    ct.store(y, (ct.bid(0),), t * cfg[1] + cfg[0][1])
"""


def test_tuple_parameters_run(tmp_path):
    both = Both(tmp_path, TUPLE_SRC, "tuples")
    assert "pair_0 = pair[0]" in both.text and "cfg_0_1 = cfg[0][1]" in both.text
    m, n = 37, 70
    a = torch.randn(m, n, generator=gen(3))
    b = torch.randn(m, n, generator=gen(4))
    out = torch.full((m, n), float("nan"))
    a1, a2 = both.run("pairs", (3, 3), [(a, b), out, ((2, 3), 5), 16, 32])
    ref = a.double() * 3 + b.double() + 2 - 5
    torch.testing.assert_close(a1[1].double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a2[1].double(), ref, atol=1e-5, rtol=1e-5)


def test_tuple_parameter_with_constant_part(tmp_path):
    """`tuple[tuple[ct.Constant[int], int], float]`: the first part is a tile size."""
    both = Both(tmp_path, TUPLE_SRC, "tuples_c")
    assert "cfg_0_0: tl.constexpr" in both.text
    x = torch.randn(100, generator=gen(5))
    y = torch.full((100,), float("nan"))
    both.trans.launch_sized(None, (4,), x, y, ((32, 7), 0.5))
    torch.testing.assert_close(y.double(), x.double() * 0.5 + 7, atol=1e-5, rtol=1e-5)


FACTORY_SRC = """
import cuda.tile as ct
import torch


def make(annotation):
    @ct.kernel
    def k(pair: annotation, out, T: ct.Constant[int]):
        a = ct.load(pair[0], (ct.bid(0),), (T,))
        b = ct.load(pair[1], (ct.bid(0),), (T,))
        ct.store(out, (ct.bid(0),), a + b)
    return k
"""


def test_tuple_annotation_named_by_a_factory_parameter(tmp_path):
    """`def k(pair: annotation)` in a factory: `annotation` is no free variable of the kernel's
    code, so its value comes from the kernel's evaluated annotations."""
    import tile2triton
    (tmp_path / "tuple_factory.py").write_text(FACTORY_SRC)
    sys.path.insert(0, str(tmp_path))
    try:
        with interp.install():
            import cuda.tile as ct
            import tuple_factory
            k = tuple_factory.make(tuple[ct.IndexedWithInt64, torch.Tensor])
            t = tile2triton.translate_kernel(k)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tuple_factory", None)
    assert "annotation = tuple[ct.IndexedWithInt64, torch.Tensor]" in t.extracted.text
    a, b = torch.randn(300, generator=gen(6)), torch.randn(300, generator=gen(7))
    out = torch.full((300,), float("nan"))
    t(None, (5,), (a, b), out, 64)
    torch.testing.assert_close(out.double(), a.double() + b.double())


# ------------------------------------------------------------------ functions inside kernels
NESTED_SRC = """
def scaled(t, a, b=3):
    return t * a + b


@ct.kernel
def nested(x, y, z, n, T: ct.Constant[int]):
    def add(a, b):
        return a + b

    def shift(t, k=2.0):
        return t + n * k          # reads `n` when called

    twice = lambda t, m=10.0: t * 2.0 + m
    bid = ct.bid(0)
    t = ct.load(x, (bid,), (T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (bid,), ct.cumsum(t, axis=0) + shift(t))
    u = ct.scan(t, axis=0, func=add, identity=0.0)
    n = 100.0
    ct.store(z, (bid,), u * 0 + shift(t, k=0.5) + twice(t) + scaled(t, 2.0)
             + scaled(t, b=1.0, a=ct.full((T,), 3.0, ct.float32)))
"""


def test_nested_functions_lambdas_keywords_and_defaults(tmp_path):
    both = Both(tmp_path, NESTED_SRC, "nested")
    assert "def nested_add(a, b):" in both.text and "nested_shift(t, 2.0, n)" in both.text
    n = 300
    x = torch.randn(n, generator=gen(8))
    a1, a2 = both.run("nested", (3,), [x, torch.zeros(n), torch.zeros(n), 1.5, 128])
    xd = x.double()
    ref_y = torch.cat([c.cumsum(0) for c in xd.split(128)]) + xd + 1.5 * 2.0
    ref_z = (xd + 100.0 * 0.5) + (xd * 2 + 10) + (xd * 2 + 3) + (xd * 3 + 1)
    for got in (a1, a2):
        torch.testing.assert_close(got[1].double(), ref_y, atol=1e-4, rtol=1e-5)
        torch.testing.assert_close(got[2].double(), ref_z, atol=1e-4, rtol=1e-5)


def test_nested_function_compiles(tmp_path):
    both = Both(tmp_path, NESTED_SRC, "nested_c")
    launches = "[((3,), torch.zeros(300), torch.zeros(300), torch.zeros(300), 1.5, 128)]"
    assert compile_messages(both.path, "nested", launches) == ["ok"]


# ------------------------------------------------------------------ early return with a value
EARLY_SRC = """
def pick(a, b, flag):
    if flag > 0:
        return a
    elif flag < -5:
        return a * 2.0
    return a + b


@ct.kernel
def early(x, y, out, flag, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm = ct.bid(0)
    a = ct.load(x, (bm, 0), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, (bm, 0), (TM, 1), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (bm, 0), pick(a, b, flag))
"""


@pytest.mark.parametrize("flag", [1, 0, -7])
def test_helper_early_return_with_value(tmp_path, flag):
    both = Both(tmp_path, EARLY_SRC, f"early{flag + 10}")
    m, n = 45, 32
    x = torch.randn(m, n, generator=gen(9))
    y = torch.randn(m, 1, generator=gen(10))
    a1, a2 = both.run("early", (3,), [x, y, torch.zeros(m, n), flag, 16, 32])
    xd, yd = x.double(), y.double()
    ref = xd if flag > 0 else xd * 2 if flag < -5 else xd + yd
    for got in (a1, a2):
        torch.testing.assert_close(got[2].double(), ref, atol=1e-6, rtol=1e-6)


def test_helper_early_return_compiles(tmp_path):
    both = Both(tmp_path, EARLY_SRC, "early_c")
    launches = ("[((3,), torch.zeros(45, 32), torch.zeros(45, 1), torch.zeros(45, 32), f, 16, 32)"
                " for f in (1, True, -7)]")
    assert compile_messages(both.path, "early", launches) == ["ok"] * 3


# ------------------------------------------------------------------ one-line suites
ONE_LINE_SRC = """
def scaled(t, s): return t * s


@ct.kernel
def one_line(x, y, n, TILE: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    if b % 2 == 0: t = t + 1.0; t = t * 3.0  # even blocks
    else: t = t - 2.0
    for i in range(n): t = scaled(t, 0.5)
    k = 0
    while k < 2: k += 1
    ct.store(y, (b,), t + k)
"""


@pytest.mark.parametrize("n", [0, 3])
def test_one_line_suites(tmp_path, n):
    both = Both(tmp_path, ONE_LINE_SRC, f"one_line{n}")
    assert "# even blocks" in both.text
    size, tile = 100, 32
    x = torch.randn(size, generator=gen(21))
    a1, a2 = both.run("one_line", (4,), [x, torch.zeros(size), n, tile])
    xd = x.double()
    even = (torch.arange(size) // tile) % 2 == 0
    ref = torch.where(even, (xd + 1) * 3, xd - 2) * 0.5 ** n + 2
    for got in (a1, a2):
        torch.testing.assert_close(got[1].double(), ref, atol=1e-5, rtol=1e-5)


def test_one_line_suite_diagnostic_points_at_the_statement():
    src = HEADER + textwrap.dedent("""
    def bad(t): return t.nonexistent

    @ct.kernel
    def k(x, TILE: ct.Constant[int]):
        t = ct.load(x, (0,), (TILE,))
        if TILE > 4: ct.store(x, (0,), bad(t))
    """)
    [d] = translate_source(src, "m.py").diagnostics()
    assert (d.code, d.line, d.col) == ("T2T101", 5, 20)   # `t.nonexistent`
