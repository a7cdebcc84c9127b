"""Elementwise semantics: operators, functional forms, promotion, math, casts, shape ops.

Most checks call the interpreter's ct functions directly on tiles (no launch is needed for
tile-only constructs); a few go through kernels.
"""

import math

import pytest
import torch

from tile2triton import interp
from tile2triton.interp import ct, Tile


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def tile(t: torch.Tensor) -> Tile:
    """A tile holding a torch tensor (test helper; kernels get tiles from ct.load)."""
    return Tile(t.clone(), _dt(t.dtype))


def _dt(tdtype):
    from tile2triton.interp._dtypes import from_torch
    return from_torch(tdtype)


def val(t: Tile) -> torch.Tensor:
    return t.torch()


# ---------------------------------------------------------------------------------------------
# operators and functional forms against float64

BINARY = [
    (lambda a, b: a + b, ct.add, torch.add),
    (lambda a, b: a - b, ct.sub, torch.sub),
    (lambda a, b: a * b, ct.mul, torch.mul),
    (lambda a, b: a / b, ct.truediv, torch.div),
    (lambda a, b: ct.minimum(a, b), ct.minimum, torch.minimum),
    (lambda a, b: ct.maximum(a, b), ct.maximum, torch.maximum),
    (lambda a, b: a ** b.__abs__(), lambda a, b: ct.pow(a, ct.abs(b)),
     lambda a, b: torch.pow(a, b.abs())),
    (lambda a, b: ct.atan2(a, b), ct.atan2, torch.atan2),
]


@pytest.mark.parametrize("i", range(len(BINARY)))
def test_binary_float32_against_float64(i):
    op, fn, ref = BINARY[i]
    a = torch.rand(16, 8, generator=gen(1)) + 0.5
    b = torch.randn(16, 8, generator=gen(2))
    exp = ref(a.double(), b.double())
    for f in (op, fn):
        r = f(tile(a), tile(b))
        assert r.dtype is ct.float32 and r.shape == (16, 8)
        torch.testing.assert_close(val(r).double(), exp, rtol=1e-6, atol=1e-6)


def test_float16_rounds_after_every_op():
    a = torch.randn(64, generator=gen(3)).half()
    b = torch.randn(64, generator=gen(4)).half()
    r = tile(a) * tile(b) + tile(a)
    assert r.dtype is ct.float16
    exp = ((a.float() * b.float()).half().float() + a.float()).half()
    assert torch.equal(val(r), exp)


def test_comparisons_and_where():
    a = torch.randn(8, 4, generator=gen(5))
    b = torch.randn(8, 4, generator=gen(6))
    ta, tb = tile(a), tile(b)
    for op, ref in [(ct.greater, torch.gt), (ct.greater_equal, torch.ge), (ct.less, torch.lt),
                    (ct.less_equal, torch.le), (ct.equal, torch.eq), (ct.not_equal, torch.ne)]:
        r = op(ta, tb)
        assert r.dtype is ct.bool_ and torch.equal(val(r), ref(a, b))
    assert torch.equal(val(ta > tb), a > b) and torch.equal(val(ta == ta), a == a)
    w = ct.where(ta > 0, ta, 0.0)
    assert w.dtype is ct.float32 and torch.equal(val(w), torch.where(a > 0, a, 0.0))
    w2 = ct.where(ta > 0, 1, 0)
    assert w2.dtype is ct.int32
    with pytest.raises(interp.TileTypeError, match="ct.where"):
        ct.where(ct.arange(4, dtype=ct.int32), 1, 0)


def test_floor_division_and_modulo_on_negatives():
    a = torch.tensor([7, -7, 7, -7, 0, -1, 5, -5], dtype=torch.int32)
    b = torch.tensor([2, 2, -2, -2, 3, 3, -3, 3], dtype=torch.int32)
    q = tile(a) // tile(b)
    r = tile(a) % tile(b)
    assert q.dtype is ct.int32 and r.dtype is ct.int32
    assert q.tolist() == [x // y for x, y in zip(a.tolist(), b.tolist())]
    assert r.tolist() == [x % y for x, y in zip(a.tolist(), b.tolist())]
    assert (tile(a) % 3).tolist() == [x % 3 for x in a.tolist()]
    assert (tile(a) // -3).tolist() == [x // -3 for x in a.tolist()]
    assert (7 // tile(b)).tolist() == [7 // y for y in b.tolist()]
    assert ct.floordiv(tile(a), tile(b)).tolist() == q.tolist()
    assert ct.mod(tile(a), tile(b)).tolist() == r.tolist()
    qd, rd = divmod(tile(a), tile(b))
    assert qd.tolist() == q.tolist() and rd.tolist() == r.tolist()
    # floats: floor(x / y) and the sign of the divisor
    fa = torch.tensor([5.5, -5.5, 5.5, -5.5, 3.0])
    fb = torch.tensor([2.2, 2.2, -2.2, -2.2, 1.5])
    assert (tile(fa) // tile(fb)).tolist() == [2.0, -3.0, -3.0, 2.0, 2.0]
    fm = (tile(fa) % tile(fb)).tolist()
    assert fm == pytest.approx([math.fmod(5.5, 2.2), 2.2 - math.fmod(5.5, 2.2),
                                math.fmod(5.5, 2.2) - 2.2, -math.fmod(5.5, 2.2), 0.0], abs=1e-5)


def test_integer_arithmetic_wraps():
    a = tile(torch.tensor([2**31 - 1], dtype=torch.int32))
    assert (a + 1).tolist() == [-2**31]
    u = ct.full((2,), 0, ct.uint32)
    assert (u - 1).tolist() == [2**32 - 1] * 2
    assert (ct.full((1,), 200, ct.uint8) + ct.full((1,), 100, ct.uint8)).tolist() == [44]


def test_bitwise_and_shifts():
    a = tile(torch.tensor([7, 5, -8, 0], dtype=torch.int32))
    b = tile(torch.tensor([3, 3, 1, 0], dtype=torch.int32))
    assert (a & b).tolist() == [3, 1, 0, 0]
    assert (a | b).tolist() == [7, 7, -7, 0]
    assert (a ^ b).tolist() == [4, 6, -7, 0]
    assert (~a).tolist() == [-8, -6, 7, -1]
    assert ct.bitwise_not(a).tolist() == [-8, -6, 7, -1]
    assert (a << 2).tolist() == [28, 20, -32, 0]
    assert (a >> 1).tolist() == [3, 2, -4, 0]
    m = (a > 0) & (b > 0)
    assert m.dtype is ct.bool_ and m.tolist() == [True, True, False, False]
    assert (~m).tolist() == [False, False, True, True]
    with pytest.raises(interp.TileTypeError, match="bitwise_and.*same dtype"):
        ct.bitwise_and(a, ct.full((4,), 1, ct.int64))
    with pytest.raises(interp.TileTypeError, match="integers or booleans"):
        ct.bitwise_or(ct.zeros((4,), ct.float32), 1)


# ---------------------------------------------------------------------------------------------
# promotion

def test_python_scalars_are_weakly_typed():
    h = ct.ones((4,), ct.float16)
    assert (h * 2.5).dtype is ct.float16
    assert (h + 1).dtype is ct.float16
    i8 = ct.ones((4,), ct.int8)
    assert (i8 + 3).dtype is ct.int8
    assert (i8 * 1.5).dtype is ct.float32             # across categories the float side wins
    i = ct.arange(4, dtype=ct.int32)
    assert (i / 2).dtype is ct.float32 and (i / 2).tolist() == [0.0, 0.5, 1.0, 1.5]
    assert (i / i).dtype is ct.float32
    assert (i + True).dtype is ct.int32
    with pytest.raises(interp.TileValueError, match="out of range of int8"):
        i8 + 1000


def test_tile_tile_promotion():
    assert (ct.ones((2,), ct.int32) + ct.ones((2,), ct.int64)).dtype is ct.int64
    assert (ct.ones((2,), ct.int64) + ct.ones((2,), ct.float16)).dtype is ct.float16
    assert (ct.ones((2,), ct.float16) + ct.ones((2,), ct.float32)).dtype is ct.float32
    assert (ct.ones((2,), ct.uint8) + ct.ones((2,), ct.uint32)).dtype is ct.uint32
    assert (ct.ones((2,), ct.bool_) + ct.ones((2,), ct.int8)).dtype is ct.int8
    with pytest.raises(interp.TileTypeError, match="signed"):
        ct.ones((2,), ct.int32) + ct.ones((2,), ct.uint32)
    with pytest.raises(interp.TileTypeError, match="float16 and bfloat16"):
        ct.ones((2,), ct.float16) + ct.ones((2,), ct.bfloat16)
    with pytest.raises(interp.TileTypeError, match="bool"):
        ct.ones((2,), ct.bool_) + ct.ones((2,), ct.bool_)


def test_unary_math_promotes_ints_to_float32():
    x = torch.rand(32, generator=gen(7)) * 3 + 0.1
    tx = tile(x)
    cases = [(ct.exp, torch.exp), (ct.exp2, torch.exp2), (ct.log, torch.log),
             (ct.log2, torch.log2), (ct.sqrt, torch.sqrt), (ct.rsqrt, torch.rsqrt),
             (ct.sin, torch.sin), (ct.cos, torch.cos), (ct.tan, torch.tan),
             (ct.tanh, torch.tanh), (ct.sinh, torch.sinh), (ct.cosh, torch.cosh),
             (ct.floor, torch.floor), (ct.ceil, torch.ceil), (ct.abs, torch.abs)]
    for f, ref in cases:
        r = f(tx)
        assert r.dtype is ct.float32
        torch.testing.assert_close(val(r).double(), ref(x.double()), rtol=2e-6, atol=1e-6)
        h = f(ct.astype(tx, ct.float16))
        assert h.dtype is ct.float16
    i = ct.arange(4, dtype=ct.int32) + 1
    assert ct.exp(i).dtype is ct.float32 and ct.sqrt(i).dtype is ct.float32
    assert ct.abs(i - 3).tolist() == [2, 1, 0, 1] and ct.abs(i).dtype is ct.int32
    assert (-i).dtype is ct.int32
    with pytest.raises(interp.TileTypeError, match="ct.floor"):
        ct.floor(i)
    n = ct.isnan(tile(torch.tensor([1.0, math.nan])))
    assert n.dtype is ct.bool_ and n.tolist() == [False, True]
    assert not hasattr(ct, "erf")                      # cuda.tile has no erf


def test_nan_handling_of_minimum_maximum():
    a = tile(torch.tensor([1.0, math.nan, math.nan]))
    b = tile(torch.tensor([math.nan, 2.0, math.nan]))
    assert ct.maximum(a, b).tolist()[:2] == [1.0, 2.0]
    assert all(math.isnan(v) for v in ct.maximum(a, b, propagate_nan=True).tolist())


# ---------------------------------------------------------------------------------------------
# casts

def test_astype():
    x = tile(torch.tensor([1.7, -1.7, 3e10, -3e10, math.nan]))
    assert ct.astype(x, ct.int32).tolist() == [1, -1, 2**31 - 1, -2**31, 0]
    assert x.astype(ct.int8).tolist() == [1, -1, 127, -128, 0]
    assert ct.astype(ct.arange(4, dtype=ct.int32), ct.float32).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ct.astype(tile(torch.tensor([0.0, 2.0])), ct.bool_).tolist() == [False, True]
    h = ct.astype(tile(torch.tensor([0.1])), ct.float16)
    assert val(h).item() == torch.tensor(0.1).half().item()
    rz = ct.astype(tile(torch.tensor([0.1])), ct.float16, rounding_mode=ct.RoundingMode.RZ)
    assert val(rz).item() <= 0.1
    assert ct.float32(3).dtype is ct.float32


def test_tfloat32_rounding():
    x = torch.tensor([1.0 + 2**-11, 1.0 + 3 * 2**-11, 1.0 + 2**-12, -(1.0 + 3 * 2**-11)])
    t = ct.astype(tile(x), ct.tfloat32)
    assert t.dtype is ct.tfloat32
    # 10 mantissa bits, round to nearest even
    assert val(t).tolist() == [1.0, 1.0 + 2**-9, 1.0, -(1.0 + 2**-9)]


def test_bitcast():
    assert f"{ct.bitcast(1.0, ct.uint32):#x}" == "0x3f800000"
    b = ct.bitcast(ct.full((2,), -1, ct.int32), ct.uint32)
    assert b.tolist() == [2**32 - 1] * 2
    assert ct.pack_to_bytes(ct.full((1,), 0x04030201, ct.int32)).tolist() == [1, 2, 3, 4]
    assert ct.unpack_from_bytes(ct.arange(4, dtype=ct.uint8) + 1, ct.int32).tolist() \
        == [0x04030201]


# ---------------------------------------------------------------------------------------------
# factories and shape ops

def test_factories():
    assert ct.arange(4, dtype=ct.int32).tolist() == [0, 1, 2, 3]
    assert ct.arange(4, start=2, step=2, dtype=ct.int32).tolist() == [2, 4, 6, 8]
    assert ct.arange(8, start=7, step=-1, dtype=ct.int32).tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
    assert ct.full((2, 2), 3, dtype=ct.int32).tolist() == [[3, 3], [3, 3]]
    assert ct.zeros((2,), ct.float16).dtype is ct.float16
    assert ct.ones((1, 2), dtype=ct.int8).tolist() == [[1, 1]]
    assert ct.astile(((1, 2), (3, 4)), dtype=ct.int32).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(interp.TileValueError, match="ct.full.*powers of two"):
        ct.full((3,), 0, ct.int32)
    with pytest.raises(interp.TileTypeError, match="ct.arange"):
        ct.arange(ct.full((), 4, ct.int32), dtype=ct.int32)


def test_shape_ops():
    t = ct.arange(8, dtype=ct.int32)
    assert ct.reshape(t, (2, 4)).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert t.reshape((2, -1)).shape == (2, 4)
    assert ct.expand_dims(t, 0).shape == (1, 8) and t[:, None].shape == (8, 1)
    assert t[None, :].shape == (1, 8) and t[None].shape == (1, 8)
    assert ct.broadcast_to(ct.arange(4, dtype=ct.int32), (2, 4)).tolist() == [[0, 1, 2, 3]] * 2
    p = ct.permute(t.reshape((2, 2, 2)), (2, 0, 1))
    assert p.tolist() == [[[0, 2], [4, 6]], [[1, 3], [5, 7]]]
    assert ct.transpose(t.reshape((2, 4))).tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert t.reshape((2, 2, 2)).transpose(0, 2).shape == (2, 2, 2)
    a, b = ct.full((2, 2), 3, ct.int32), ct.full((2, 2), 7, ct.int32)
    assert ct.cat((a, b), 0).tolist() == [[3, 3], [3, 3], [7, 7], [7, 7]]
    assert ct.cat((a, b), 1).tolist() == [[3, 3, 7, 7], [3, 3, 7, 7]]
    g = ct.arange(16, dtype=ct.int32).reshape((4, 4))
    assert ct.extract(g, (0, 1), shape=(2, 2)).tolist() == [[2, 3], [6, 7]]
    assert g.extract((1, 0), (2, 2)).tolist() == [[8, 9], [12, 13]]
    ins = ct.insert(g, (0, 1), ct.full((2, 2), 99, ct.int32))
    assert ins.tolist()[0] == [0, 1, 99, 99] and g.tolist()[0] == [0, 1, 2, 3]
    assert ct.full((1,), 2, ct.int32).item().shape == ()
    assert (t.shape, t.ndim, t.dtype) == ((8,), 1, ct.int32)
    with pytest.raises(interp.TileTypeError, match="expand_dims sugar"):
        t[0]
    with pytest.raises(interp.TileTypeError, match="truth value"):
        bool(t > 3)
    with pytest.raises(interp.TileTypeError, match="ct.reshape"):
        ct.reshape(t, (3, 3))


def test_printing(capsys):
    t = ct.arange(4, dtype=ct.int32)
    ct.print(f"value={t}")
    ct.printf("%d;", ct.full((), 42, ct.int32))
    print(f"{t / 2:.1f}")
    out = capsys.readouterr().out
    assert out == "value=[0, 1, 2, 3]\n42;[0.0, 0.5, 1.0, 1.5]\n"


@ct.kernel
def _loop_kernel(x, out, n, T: ct.Constant[int]):
    acc = ct.zeros((T,), ct.float32)
    i = 0
    while i < n:                       # a runtime scalar drives Python control flow
        acc = acc + ct.load(x, (i,), (T,))
        i += 1
    if n > 2:
        acc = acc * 2
    ct.store(out, (0,), acc)


def test_python_control_flow_in_kernels():
    x = torch.randn(3 * 8, generator=gen(8))
    out = torch.empty(8)
    ct.launch(None, (1,), _loop_kernel, (x, out, 3, 8))
    torch.testing.assert_close(out, x.reshape(3, 8).sum(0) * 2)


def test_static_helpers():
    assert ct.static_eval(3) == 3
    assert list(ct.static_iter(range(3))) == [0, 1, 2]
    ct.static_assert(True)
    with pytest.raises(ct.TileStaticAssertionError):
        ct.static_assert(False, "nope")
    with pytest.raises(ct.TileStaticAssertionError):
        ct.ensure_constant(ct.full((), 1, ct.int32))
    assert ct.cdiv(9, 4) == 3 and ct.cdiv(ct.full((), 9, ct.int32), 4).tolist() == 3


# ---------------------------------------------------------------------------------------------
# dtype spellings: cuTile takes ct dtypes, torch dtypes, numpy scalar types and numpy dtype
# objects wherever it takes a dtype (and not Python's own types or strings)

@pytest.mark.parametrize("spelling,expected", [
    (ct.float16, "float16"), (torch.float16, "float16"), ("np.float16", "float16"),
    ("np.dtype('float16')", "float16"), ("np.int32", "int32"), ("np.dtype('int64')", "int64"),
    ("np.bool_", "bool_"), ("np.uint8", "uint8"), ("np.float64", "float64"),
])
def test_dtype_spellings_cutile_accepts(spelling, expected):
    import numpy as np
    d = eval(spelling, {"np": np}) if isinstance(spelling, str) else spelling
    x = torch.rand(13, 7, generator=gen(5)) * 40 + 0.5     # in range of every dtype here
    r = ct.astype(tile(x), d)
    assert r.dtype is getattr(ct, expected)
    z = ct.full((4, 8), 3, dtype=d)
    assert z.dtype is getattr(ct, expected)
    exp = x.double().to(getattr(ct, expected).torch_dtype) if expected != "bool_" else x != 0
    assert torch.equal(val(r).to(exp.dtype), exp)


@pytest.mark.parametrize("spelling", [float, int, "float32"])
def test_dtype_spellings_cutile_rejects(spelling):
    with pytest.raises(interp.TileTypeError):
        ct.astype(tile(torch.randn(4, 4, generator=gen(6))), spelling)


def test_numpy_dtype_in_a_kernel():
    import numpy as np

    @ct.kernel
    def half_copy(x, y, T: ct.Constant[int]):
        b = ct.bid(0)
        t = ct.load(x, index=(b,), shape=(T,))
        ct.store(y, index=(b,), tile=ct.astype(t, np.float16))

    x = torch.randn(50, generator=gen(7))
    y = torch.zeros(50, dtype=torch.float16) + 9
    interp.run_kernel(half_copy, (ct.cdiv(50, 16),), (x, y, 16))
    assert torch.equal(y, x.to(torch.float16))
