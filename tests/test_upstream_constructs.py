"""Constructs met in cuTile's own test suite (issues 10 and 11): byte packing, compare-and-swap,
fills and ranges of any dtype, builtin divmod, `is`, float modulo, ... Each translation runs under
TRITON_INTERPRET=1 and is compared with the cuTile reference interpreter (tile2triton.interp) on
random data and shapes that are not multiples of the tile, and with a float64 or exact torch
reference where one exists.
"""
import importlib.util
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport math\nimport numpy as np\nimport torch\n"


def translate(src: str) -> str:
    res = translate_source(HEADER + textwrap.dedent(src), "<upstream-idioms>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    return res.output


def diagnostics(src: str) -> list:
    return translate_source(HEADER + textwrap.dedent(src), "<upstream-idioms>").diagnostics()


def load_translation(tmp_path, src: str, name):
    path = tmp_path / f"{name}_triton.py"
    path.write_text(translate(src))
    spec = importlib.util.spec_from_file_location(f"t2t_upstream_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_original(tmp_path, src: str, name):
    path = tmp_path / f"{name}_cutile.py"
    path.write_text(HEADER + textwrap.dedent(src))
    return interp.load_module_with_interpreter(str(path))


class Both:
    """A source translated once and interpreted once; `run` launches a kernel on both with
    copies of the same arguments and returns (interpreter args, translation args)."""

    def __init__(self, tmp_path, src, name):
        self.orig = load_original(tmp_path, src, name)
        self.trans = load_translation(tmp_path, src, name)
        self.text = (tmp_path / f"{name}_triton.py").read_text()

    def run(self, kernel, grid, args):
        a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        interp.run_kernel(getattr(self.orig, kernel), grid, tuple(a1))
        getattr(self.trans, f"launch_{kernel}")(None, grid, *a2)
        return a1, a2


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def random_of(dtype, shape, g):
    """Random values of any dtype (the raw bits of random bytes for exotic ones, never NaN)."""
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 4).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


def same_bits(a, b):
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


# ----------------------------------------------------------------- pack_to_bytes / unpacking
PACK_SRC = """
@ct.kernel
def pack_unpack(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=ct.unpack_from_bytes(ct.pack_to_bytes(t), y.dtype))

@ct.kernel
def pack(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(TILE,))
    ct.store(y, index=(0,), tile=ct.pack_to_bytes(t))

@ct.kernel
def roundtrip_2d(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(TM, TN))
    u = ct.unpack_from_bytes(ct.pack_to_bytes(t), x.dtype)
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=ct.reshape(u, (TM, TN)))

@ct.kernel
def unpack_pack(x, y, TILE: ct.Constant[int]):
    b = ct.load(x, index=(0,), shape=(TILE,))
    ct.store(y, index=(0,), tile=ct.pack_to_bytes(ct.unpack_from_bytes(b, ct.float64)))
"""

BYTE_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8,
               torch.int16, torch.int32, torch.int64, torch.uint8, torch.float8_e4m3fn]


@pytest.fixture(scope="module")
def packing(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("pack"), PACK_SRC, "pack")


@pytest.mark.parametrize("dx", BYTE_DTYPES, ids=str)
@pytest.mark.parametrize("dy", [torch.int32, torch.float16, torch.uint8, torch.float64],
                         ids=str)
def test_pack_unpack_reinterprets_bytes(packing, dx, dy):
    g = gen(3)
    tile = 32
    x = random_of(dx, (3 * tile,), g)
    ref = x.view(torch.uint8).view(dy)          # what the bytes mean as dy
    y0 = torch.zeros_like(ref)
    # one byte tile per program: TILE elements of x are TILE * size(x) bytes
    n_out = tile * x.element_size() // ref.element_size()
    if n_out < 1 or tile * x.element_size() % ref.element_size():
        pytest.skip("bytes do not divide")
    # the output tile is n_out elements; the test reads program 0 only (index (0,) per program
    # differs in element count between x and y when the sizes differ)
    a1, a2 = packing.run("pack_unpack", (1,), [x, y0, tile])
    assert same_bits(a1[1][:n_out], ref[:n_out])
    assert same_bits(a2[1], a1[1])


@pytest.mark.parametrize("dx", BYTE_DTYPES, ids=str)
def test_pack_to_bytes_is_the_memory_layout(packing, dx):
    x = random_of(dx, (64,), gen(5))
    y = torch.zeros(64 * x.element_size(), dtype=torch.uint8)
    a1, a2 = packing.run("pack", (1,), [x, y, 64])
    assert torch.equal(a2[1], x.view(torch.uint8))
    assert torch.equal(a2[1], a1[1])


@pytest.mark.parametrize("dx", [torch.float32, torch.float16, torch.int64], ids=str)
def test_pack_unpack_2d_ragged(packing, dx):
    x = random_of(dx, (45, 70), gen(7))             # not multiples of the (16, 32) tile
    y = torch.zeros_like(x)
    a1, a2 = packing.run("roundtrip_2d", (3, 3), [x, y, 16, 32])
    assert same_bits(a2[1], x)
    assert same_bits(a2[1], a1[1])


def test_unpack_pack_keeps_bytes(packing):
    x = torch.randint(0, 256, (64,), generator=gen(9), dtype=torch.uint8)
    a1, a2 = packing.run("unpack_pack", (1,), [x, torch.zeros_like(x), 64])
    assert torch.equal(a2[1], x) and torch.equal(a1[1], x)


def test_pack_of_bool_and_unpack_of_2d_are_located():
    d = diagnostics("""
    @ct.kernel
    def k(x, y, T: ct.Constant[int]):
        t = ct.load(x, (0,), (T,)) > 0
        ct.store(y, (0,), ct.pack_to_bytes(t))
    """)
    assert d and d[0].code == "T2T102" and d[0].line == 9 and "bool_" in d[0].message
    d = diagnostics("""
    @ct.kernel
    def k(x, y, T: ct.Constant[int]):
        t = ct.load(x, (0, 0), (T, T))
        ct.store(y, (0,), ct.unpack_from_bytes(t, ct.int32))
    """)
    assert d and d[0].code == "T2T105" and d[0].line == 9


# ----------------------------------------------------------------------- raw array memory
RAW_SRC = """
@ct.kernel
def raw_copy(x, y, TILE: ct.Constant[int]):
    n = x.shape[0] * x.shape[1]
    offs = ct.arange(TILE, dtype=ct.int64) + ct.bid(0) * TILE
    t = x.get_raw_memory().load_offset(offs, mask=offs < n, padding_value=-5.0)
    mem = y.get_raw_memory()
    mem.store_offset(offs, t * 2.0 + 1.0, mask=offs < n)

@ct.kernel
def raw_scalar(x, y):
    n = x.shape[0]
    v = x.get_raw_memory().load_offset(n - 1)
    y.get_raw_memory().store_offset(0, v)

@ct.kernel
def raw_histogram(bins, keys, old, TILE: ct.Constant[int]):
    nb = bins.shape[0]
    i = ct.bid(0)
    k = ct.load(keys, (i,), (TILE,), padding_mode=ct.PaddingMode.NEG_ZERO)
    live = (ct.arange(TILE, dtype=ct.int32) + i * TILE) < keys.shape[0]
    o = bins.get_raw_memory().atomic_add_offset(k, 1, mask=live,
                                                memory_order=ct.MemoryOrder.RELAXED)
    ct.store(old, (i,), ct.where(live, 0, o))

@ct.kernel
def raw_cas(x, y, z, TILE: ct.Constant[int]):
    n = x.shape[0]
    offs = ct.arange(TILE, dtype=ct.int32) + ct.bid(0) * TILE
    cmp = ct.gather(x, offs)
    want = ct.gather(y, offs)
    # every third lane compares against a value that is not there: no swap
    cmp = ct.where(offs % 3 == 0, cmp + 1, cmp)
    got = x.get_raw_memory().atomic_cas_offset(offs, cmp, want, mask=offs < n - 7)
    ct.scatter(z, offs, got)
"""


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("raw"), RAW_SRC, "raw")


def test_raw_memory_copy_ignores_shape(raw):
    x = torch.randn(13, 21, generator=gen(11), dtype=torch.float32)   # 273 elements
    y = torch.zeros_like(x)
    a1, a2 = raw.run("raw_copy", (3,), [x, y, 128])
    ref = x.double() * 2 + 1
    assert torch.allclose(a2[1].double(), ref, rtol=1e-6, atol=1e-6)
    assert torch.equal(a2[1], a1[1])


def test_raw_memory_scalar(raw):
    x = torch.randn(37, generator=gen(12), dtype=torch.float64)
    a1, a2 = raw.run("raw_scalar", (1,), [x, torch.zeros(3, dtype=torch.float64)])
    assert a2[1][0] == x[-1] and torch.equal(a1[1], a2[1])


def test_raw_memory_atomic_add_counts(raw):
    keys = torch.randint(0, 17, (300,), generator=gen(13), dtype=torch.int32)
    bins = torch.zeros(17, dtype=torch.int32)
    old = torch.full((384,), -1, dtype=torch.int32)
    a1, a2 = raw.run("raw_histogram", (3,), [bins, keys, old, 128])
    assert torch.equal(a2[0], torch.bincount(keys, minlength=17).to(torch.int32))
    assert torch.equal(a2[0], a1[0])


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64],
                         ids=str)
def test_raw_memory_cas(raw, dtype):
    n = 200
    x = torch.randint(-50, 50, (n,), generator=gen(14)).to(dtype)
    y = torch.randint(-50, 50, (n,), generator=gen(15)).to(dtype)
    z = torch.zeros_like(x)
    a1, a2 = raw.run("raw_cas", (2,), [x, y, z, 128])
    lane = torch.arange(n)
    swapped = (lane % 3 != 0) & (lane < n - 7)
    assert torch.equal(a2[0], torch.where(swapped, y, x))
    assert torch.equal(a2[2][:n - 7], x[:n - 7])            # old values where live
    assert torch.equal(a2[0], a1[0]) and torch.equal(a2[2], a1[2])


def test_interpreter_cas_compares_bits():
    """A float compare-and-swap matches bit patterns, as the GPU's: NaN matches itself."""
    src = """
    @ct.kernel
    def cas(x, TILE: ct.Constant[int]):
        n = x.shape[0]
        i = ct.arange(TILE, dtype=ct.int32)
        ct.atomic_cas(x, i, ct.gather(x, i), ct.full((TILE,), 2.5, dtype=ct.float32))
    """
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        orig = load_original(Path(d), src, "nan_cas")
        x = torch.tensor([float("nan"), 1.0, -0.0, 3.0], dtype=torch.float32)
        interp.run_kernel(orig.cas, (1,), (x, 4))
    assert torch.equal(x, torch.full((4,), 2.5))


# ------------------------------------------- dtype calls, numpy constants, `is`, divmod, arange
FILL_SRC = """
START = 8
NOTHING = None
divide = divmod

@ct.kernel
def fills(a, b, c, d, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(a, (i,), ct.full((TILE,), np.float32(1.5), np.float32))
    ct.store(b, (i,), ct.full((TILE,), np.int16(), np.int16))
    ct.store(c, (i,), ct.full((TILE,), ct.bool_(1.5), ct.bool_))
    ct.store(d, (i,), ct.full((TILE,), -np.inf, ct.float16) + ct.int32(7.9))

@ct.kernel
def ranges(x, y, TILE: ct.Constant[int]):
    if NOTHING is None:
        t = ct.arange(TILE, start=START, step=-3, dtype=x.dtype)
    else:
        t = ct.arange(TILE, dtype=x.dtype)
    ct.store(x, (0,), t)
    s = 1 if START is not None else -1
    ct.store(y, (0,), ct.arange(TILE, start=-5, step=2, dtype=y.dtype) * s)

@ct.kernel
def divmods(x, y, q, r, q2, r2, TILE: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, (i,), (TILE,))
    b = ct.load(y, (i,), (TILE,), padding_mode=ct.PaddingMode.ZERO) + 0
    b = ct.where(b == 0, 1, b)
    d, m = ct.divmod(a, b)
    ct.store(q, (i,), d)
    ct.store(r, (i,), m)
    d2, m2 = divide(a, -7)
    ct.store(q2, (i,), d2)
    ct.store(r2, (i,), m2)
"""


@pytest.fixture(scope="module")
def fills(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("fills"), FILL_SRC, "fills")


def test_full_of_dtype_calls(fills):
    n = 300                                            # not a multiple of the 128 tile
    args = [torch.zeros(n, dtype=torch.float32), torch.ones(n, dtype=torch.int16),
            torch.zeros(n, dtype=torch.bool), torch.zeros(n, dtype=torch.float16), 128]
    a1, a2 = fills.run("fills", (3,), args)
    assert torch.equal(a2[0], torch.full((n,), 1.5))
    assert torch.equal(a2[1], torch.zeros(n, dtype=torch.int16))
    assert bool(a2[2].all())
    assert torch.equal(a2[3], torch.full((n,), float("-inf"), dtype=torch.float16))
    for u, v in zip(a1[:4], a2[:4]):
        assert torch.equal(u, v)
    assert "tl.full((TILE,), 1.5, tl.float32)" in fills.text


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.float32, torch.float64],
                         ids=str)
def test_arange_start_step_dtype(fills, dtype):
    x, y = torch.zeros(64, dtype=dtype), torch.zeros(64, dtype=dtype)
    a1, a2 = fills.run("ranges", (1,), [x, y, 64])
    assert torch.equal(a2[0], torch.arange(8, 8 - 3 * 64, -3).to(dtype))
    assert torch.equal(a2[1], torch.arange(-5, -5 + 2 * 64, 2).to(dtype))
    assert torch.equal(a1[0], a2[0]) and torch.equal(a1[1], a2[1])
    assert "NOTHING" not in fills.text.split("def ranges")[1].split("def launch_ranges")[0]


@pytest.mark.parametrize("dx,dy", [(torch.int32, torch.int32), (torch.int64, torch.int16),
                                   (torch.int8, torch.int32)], ids=str)
def test_divmod_floors(fills, dx, dy):
    g = gen(21)
    n = 333
    x = torch.randint(-100, 100, (n,), generator=g).to(dx)
    y = torch.randint(-20, 20, (n,), generator=g).to(dy)
    y = torch.where(y == 0, torch.ones_like(y), y)
    rt = torch.promote_types(dx, dy)
    outs = [torch.zeros(n, dtype=rt) for _ in range(2)] + [torch.zeros(n, dtype=dx)
                                                            for _ in range(2)]
    a1, a2 = fills.run("divmods", (3,), [x, y] + outs + [128])
    xl, yl = x.long(), y.long()
    assert torch.equal(a2[2].long(), torch.div(xl, yl, rounding_mode="floor"))
    assert torch.equal(a2[3].long(), xl - torch.div(xl, yl, rounding_mode="floor") * yl)
    assert torch.equal(a2[4].long(), torch.div(xl, -7, rounding_mode="floor"))
    assert torch.equal(a2[5].long(), torch.remainder(xl, -7))
    for u, v in zip(a1[2:6], a2[2:6]):
        assert torch.equal(u, v)


FLOORDIV_SRC = """
@ct.kernel
def floordivs(x, y, q, TILE: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, (i,), (TILE,))
    b = ct.load(y, (i,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(q, (i,), a // b)
"""


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16,
                                   torch.float16], ids=str)
def test_float_floordiv_floors_the_rounded_quotient(tmp_path, dtype):
    """Float `//` floors the IEEE quotient rounded to the dtype (the reference interpreter's
    rule), never an approximate one: exact multiples (whose approximate fp32 quotient can fall
    just below the integer: GPU run 15 found 5 for 6 in bf16), negative operands, and 1 / 0.1,
    whose fp32 quotient rounds up to 10."""
    g = gen(23)
    n = 333
    y = (torch.rand(n, generator=g, dtype=torch.float64) * 8 + 0.1) * torch.where(
        torch.rand(n, generator=g) < 0.5, -1.0, 1.0).double()
    k = torch.randint(-40, 40, (n,), generator=g).double()
    x = torch.where(torch.arange(n) % 3 == 0, k * y, torch.randn(n, generator=g).double() * 50)
    x, y = x.to(dtype), y.to(dtype)
    x[5], y[5] = 1.0, 0.1
    both = Both(tmp_path, FLOORDIV_SRC, "floordiv")
    a1, a2 = both.run("floordivs", (3,), [x, y, torch.zeros(n, dtype=dtype), 128])
    q = x.double() / y.double()
    ref = torch.floor(q.to(dtype).double())
    if dtype is torch.bfloat16:
        # Triton's interpreter truncates float32 -> bfloat16 casts (GPUs round to nearest, as
        # `.to(dtype)` does here): on the CPU the quotient is truncated to bfloat16
        bits = q.float().view(torch.int32) & -65536
        ref = torch.floor(bits.view(torch.float32).double())
    assert torch.equal(a2[2].double(), ref)
    if dtype is not torch.bfloat16:
        assert torch.equal(a1[2], a2[2])    # the reference interpreter rounds to nearest
    if dtype is torch.float32:
        assert a2[2][5] == 10
    assert "tl.div_rn(x, y)" in both.text


NEG_SRC = """
@ct.kernel
def negate(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    m = t > 0.5
    ct.store(y, (ct.bid(0),), -m + ct.negative(m))
"""


def test_negated_bool_is_an_int32(tmp_path):
    """-True is -1 in cuTile (a bool tile negates as int32); Triton's `-` on int1 keeps 1."""
    x = torch.rand(300, generator=gen(5), dtype=torch.float64)
    both = Both(tmp_path, NEG_SRC, "negbool")
    a1, a2 = both.run("negate", (3,), [x, torch.zeros(300, dtype=torch.int32), 128])
    assert torch.equal(a2[1], -2 * (x > 0.5).to(torch.int32))
    assert torch.equal(a1[1], a2[1])
    assert "-m.to(tl.int32)" in both.text


TYPED_CONST_SRC = """
@ct.kernel
def typed(x, y):
    ct.scatter(x, 0, ct.int64(ct.uint32(-3)))
    ct.scatter(x, 1, ct.int64(ct.uint32(0x1abcdef23)))
    ct.scatter(x, 2, ct.int64(ct.int32(-3_000_000_000)))
    ct.scatter(x, 3, ct.int64(~ct.uint32(3)))
    ct.scatter(x, 4, ct.int64(-ct.uint32(3)))
    ct.scatter(x, 5, ct.int64(ct.uint8(150) + ct.uint8(110)))
    ct.scatter(x, 6, ct.int64(ct.int8(100) * 3 - 1))
    for i in range(300):
        ct.scatter(y, i, ct.int64(ct.int8(i - 150)))
"""


def test_strictly_typed_integer_constants_wrap(tmp_path):
    """`ct.uint32(-3)` is 2**32 - 3, and arithmetic on such constants wraps to their width
    (cuTile folds them as typed values; GPU run 15 found -3 and 260 in their place)."""
    both = Both(tmp_path, TYPED_CONST_SRC, "typed")
    x, y = torch.zeros(7, dtype=torch.int64), torch.zeros(300, dtype=torch.int64)
    a1, a2 = both.run("typed", (1,), [x, y])
    assert a2[0].tolist() == [0xfffffffd, 0xabcdef23, 1294967296, 0xfffffffc, 0xfffffffd, 4,
                              (300 - 256) - 1]
    assert torch.equal(a2[1], torch.arange(-150, 150).to(torch.int8).to(torch.int64))
    assert torch.equal(a1[0], a2[0]) and torch.equal(a1[1], a2[1])


CDIV_SRC = """
@ct.kernel
def cdivs(x, y, z, s: int, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), ct.cdiv(t, s))
    ct.store(z, (ct.bid(0),), ct.cdiv(t, -7) + ct.cdiv(s, 3))
"""


@pytest.mark.parametrize("s", [23, -13, 1], ids=str)
def test_cdiv_rounds_up_for_any_signs(tmp_path, s):
    """ct.cdiv is the ceiling of the exact quotient for negative operands too, and of a tile by
    a scalar is a tile (GPU run 15: cdiv(-30, 23) gave 0 and a tile's cdiv did not compile)."""
    import math
    x = torch.randint(-100, 100, (300,), generator=gen(9), dtype=torch.int32)
    both = Both(tmp_path, CDIV_SRC, "cdiv")
    a1, a2 = both.run("cdivs", (3,), [x, torch.zeros(300, dtype=torch.int32),
                                      torch.zeros(300, dtype=torch.int32), s, 128])
    assert a2[1].tolist() == [math.ceil(v / s) for v in x.tolist()]
    assert a2[2].tolist() == [math.ceil(v / -7) + math.ceil(s / 3) for v in x.tolist()]
    assert torch.equal(a1[1], a2[1]) and torch.equal(a1[2], a2[2])


def test_divmod_of_floats_and_is_on_tiles_are_located():
    d = diagnostics("""
    @ct.kernel
    def k(x, T: ct.Constant[int]):
        t = ct.load(x, (0,), (T,))
        q, r = divmod(t, 2.0)
        ct.store(x, (0,), q)
    """)
    assert d and d[0].code == "T2T102" and d[0].line == 9 and "integers" in d[0].message
    d = diagnostics("""
    @ct.kernel
    def k(x, T: ct.Constant[int]):
        t = ct.load(x, (0,), (T,))
        if t is None:
            ct.store(x, (0,), t)
    """)
    assert d and d[0].code == "T2T101" and d[0].line == 9 and "compile-time" in d[0].message


# ------------------------------------------------------------- slices with constant bounds
SLICE_SRC = """
@ct.kernel
def head_rows(x, y, TN: ct.Constant[int]):
    top = x.slice(axis=0, start=3, stop=11)          # 8 rows: a constant extent
    m = top.shape[0]
    width = 16
    t = ct.load(top, (0, ct.bid(0)), (m, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (0, ct.bid(0)), t * 2 + width)
"""


def test_constant_slice_extent_is_a_tile_shape(tmp_path):
    both = Both(tmp_path, SLICE_SRC, "slices")
    assert "m: tl.constexpr = 8" in both.text and "width: tl.constexpr = 16" in both.text
    x = torch.randn(20, 45, generator=gen(31), dtype=torch.float64)
    y = torch.zeros(8, 45, dtype=torch.float64)
    a1, a2 = both.run("head_rows", (3,), [x, y, 16])
    assert torch.equal(a2[1], x[3:11] * 2 + 16)
    assert torch.equal(a1[1], a2[1])


# ------------------------------------------------ matrix products of mixed and small operands
MATMUL_SRC = """
@ct.kernel
def mixed(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (ct.bid(0), 0), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (ct.bid(0), ct.bid(1)), ct.matmul(x, y))
"""


@pytest.fixture(scope="module")
def matmuls(tmp_path_factory):
    return Both(tmp_path_factory.mktemp("matmul"), MATMUL_SRC, "matmul")


@pytest.mark.parametrize("dx,dy,tiles", [
    (torch.float16, torch.float32, (2, 8, 16)),        # smaller than tl.dot's minimum
    (torch.float32, torch.float64, (4, 4, 8)),
    (torch.float64, torch.float64, (16, 16, 16)),
    (torch.float16, torch.float32, (32, 32, 64)),
], ids=str)
def test_matmul_promotes_mixed_operands(matmuls, dx, dy, tiles):
    tm, tn, tk = tiles
    m, n = 3 * tm - 1, 2 * tn - 1                      # ragged over the output tiles
    g = gen(41)
    a = torch.randn(m, tk - 1, generator=g, dtype=torch.float64).to(dx)
    b = torch.randn(tk - 1, n, generator=g, dtype=torch.float64).to(dy)
    rt = torch.promote_types(dx, dy)
    c = torch.zeros(m, n, dtype=rt)
    a1, a2 = matmuls.run("mixed", (3, 2), [a, b, c, tm, tn, tk])
    ref = a.double() @ b.double()
    tol = 2e-2 if torch.float16 in (dx, dy) and rt != torch.float32 else 1e-3
    assert torch.allclose(a2[2].double(), ref, rtol=tol, atol=tol)
    assert torch.allclose(a2[2].double(), a1[2].double(), rtol=tol, atol=tol)


# -------------------------------------------------------------------- float floor modulo
MOD_SRC = """
@ct.kernel
def fmod_floor(x, y, z, s, zs, TILE: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, (i,), (TILE,))
    b = ct.load(y, (i,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(z, (i,), a % ct.where(b == 0, 1, b))
    ct.store(zs, (i,), a % s)
"""


@pytest.mark.parametrize("dx,dy", [(torch.float32, torch.float32), (torch.int16, torch.float16),
                                   (torch.float16, torch.float16), (torch.float64, torch.int32)],
                         ids=str)
def test_float_mod_takes_the_divisor_sign_exactly(tmp_path, dx, dy):
    both = Both(tmp_path, MOD_SRC, "fmod")
    g = gen(51)
    n = 300
    sign = torch.where(torch.rand(n, generator=g) > 0.5, 1.0, -1.0)
    x = ((torch.rand(n, generator=g) * 200 - 100)).to(dx)
    y = ((torch.rand(n, generator=g) * 60 + 1) * sign).to(dy)
    rt = torch.promote_types(dx, dy)
    # a runtime float scalar is a float32 operand
    z, zs = torch.zeros(n, dtype=rt), torch.zeros(n, dtype=torch.promote_types(dx, torch.float32))
    a1, a2 = both.run("fmod_floor", (3,), [x, y, z, -2.3, zs, 128])
    # Python's float modulo in float64 of the operands as the promoted dtype holds them
    ref = torch.remainder(x.to(rt).double(), y.to(rt).double()).to(rt)
    assert torch.equal(a2[2], ref)
    assert torch.equal(a2[2], a1[2])
    assert (a2[4] <= 0).all()                     # the sign of the divisor
    if dx in (torch.float32, torch.float64):
        # (a 16-bit tile with a float32 runtime scalar is computed in 16 bits by Triton: a
        # typing difference of scalars, not of %)
        refs = torch.remainder(x.to(zs.dtype).double(), torch.tensor(-2.3).to(zs.dtype).double())
        assert torch.allclose(a2[4].double(), refs, rtol=1e-5, atol=1e-5)
        assert torch.equal(a1[4], a2[4])
