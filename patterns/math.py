"""Elementwise math. A table: each cuTile function, its Triton spelling for fp32/fp64 tiles,
and the helper used otherwise (Triton's math takes fp32/fp64 only; cuTile keeps fp16/bf16).
tanh, sinh, cosh, tan and atan2 have no core Triton function (libdevice is not available under
TRITON_INTERPRET), so their helpers compute them from exp / sin / cos in fp32. `erf` is always
the real erf, never a tanh approximation."""
import math as pymath

from tile2triton.model import FLOAT_DTYPES, WIDE_DTYPES, ConstExprV, ConstV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import reject_directed_rounding
from ._common import broadcast_shapes, dtype_of, promote, tile_shape

# cuTile name -> (direct Triton form for fp32/fp64 tiles or None, Python fold)
TABLE = {
    "exp": ("tl.exp({x})", pymath.exp), "exp2": ("tl.exp2({x})", lambda v: 2.0 ** v),
    "log": ("tl.log({x})", pymath.log), "log2": ("tl.log2({x})", pymath.log2),
    "sqrt": ("tl.sqrt({x})", pymath.sqrt), "rsqrt": ("tl.rsqrt({x})", lambda v: v ** -0.5),
    "sin": ("tl.sin({x})", pymath.sin), "cos": ("tl.cos({x})", pymath.cos),
    "tan": (None, pymath.tan), "tanh": (None, pymath.tanh), "sinh": (None, pymath.sinh),
    "cosh": (None, pymath.cosh), "floor": ("tl.floor({x})", pymath.floor),
    "ceil": ("tl.ceil({x})", pymath.ceil), "erf": ("tl.erf({x})", pymath.erf),
    # not in cuda-tile 1.7.0 (Math.newer)
    "sigmoid": ("tl.sigmoid({x})", lambda v: 1.0 / (1.0 + pymath.exp(-v))),
}
# How the `_<fn>` helper computes each function from an fp32/fp64 X (no libdevice).
FORMULAS = {
    "exp": "tl.exp(X)", "exp2": "tl.exp2(X)", "log": "tl.log(X)", "log2": "tl.log2(X)",
    "sqrt": "tl.sqrt(X)", "rsqrt": "tl.rsqrt(X)", "sin": "tl.sin(X)", "cos": "tl.cos(X)",
    "tan": "tl.sin(X) / tl.cos(X)", "floor": "tl.floor(X)", "ceil": "tl.ceil(X)",
    "erf": "tl.erf(X)", "tanh": "_tanh_f(X)",
    "sinh": "0.5 * (tl.exp(X) - tl.exp(-X))", "cosh": "0.5 * (tl.exp(X) + tl.exp(-X))",
    "sigmoid": "tl.sigmoid(X)",
}
TANH_F = DeviceHelper("_tanh_f", r'''@triton.jit
def _tanh_f(x):
    # tanh(x) = sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|); Taylor series near 0 where
    # 1 - e would cancel.
    ax = tl.abs(x)
    e = tl.exp(-2.0 * ax)
    big = (1.0 - e) / (1.0 + e)
    x2 = x * x
    small = ax * (1.0 - x2 * (1.0 / 3.0 - x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))))
    t = tl.where(ax < 0.0625, small, big)
    return tl.where(x < 0, -t, t)
''')
# one helper per function: fp16/bf16 through fp32 and back, integers give fp32
MATH_HELPER = r'''@triton.jit
def _{{ name }}(x):
    """ct.{{ name }}: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = {{ formula | replace("X", "xf") }}
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y
'''
ATAN2 = DeviceHelper("_atan2", r'''@triton.jit
def _atan_unit(t):
    # atan on [0, 1]: reduce by atan(t) = pi/6 + atan((t*sqrt3 - 1) / (t + sqrt3)) above
    # 2 - sqrt(3), then an odd Taylor series of degree 11 (error < 2e-8 on the reduced range).
    SQRT3: tl.constexpr = 1.7320508075688772
    big = t > 0.2679491924311227
    u = tl.where(big, (t * SQRT3 - 1.0) / (t + SQRT3), t)
    u2 = u * u
    p = u * (1.0 - u2 * (1.0 / 3.0 - u2 * (1.0 / 5.0 - u2 * (1.0 / 7.0 - u2 * (1.0 / 9.0 - u2 * (1.0 / 11.0 - u2 / 13.0))))))
    return tl.where(big, 0.5235987755982988 + p, p)


@triton.jit
def _atan2(y, x):
    """ct.atan2 in fp32: the angle of (x, y) in [-pi, pi]."""
    yf = tl.cast(y + 0 * x, tl.float32)  # (tl.cast: Python numbers under TRITON_INTERPRET too)
    xf = tl.cast(x + 0 * y, tl.float32)
    ax = tl.abs(xf)
    ay = tl.abs(yf)
    swap = ay > ax
    num = tl.where(swap, ax, ay)
    den = tl.where(swap, ay, ax)
    a = _atan_unit(tl.where(den == 0, 0.0, num / den))
    a = tl.where(swap, 1.5707963267948966 - a, a)
    a = tl.where(xf < 0, 3.141592653589793 - a, a)
    a = tl.where(yf < 0, -a, a)
    if isinstance(y + x, tl.tensor) and (y + x).dtype.is_floating():
        a = a.to((y + x).dtype)
    return a
''')
DIRECT_DTYPES = {d for d in WIDE_DTYPES if d in FLOAT_DTYPES}  # fp32, fp64, tf32


NEWER = ("sigmoid",)     # names later cuda-tile releases add (Pattern.newer)


class Math(Pattern):
    constructs = tuple(n for n in TABLE if n not in NEWER)
    summary = "exp, exp2, log, log2, sqrt, rsqrt, sin, cos, tan, tanh, sinh, cosh, floor, ceil, erf"
    triton = "tl.<fn> on fp32/fp64; `_<fn>` helper (through fp32) otherwise"

    def signature(x, /, *, rounding_mode=None, flush_to_zero=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.float32)
    ct.store(x, (0,), ct.exp(a) + ct.erf(a) + ct.tanh(a))
""", expect=["def _tanh_f(x):", "def _tanh(x):", "tl.exp(a) + tl.erf(a) + _tanh(a)"]),
        Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.sqrt(a))
""", expect=["xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)",
             "_sqrt(a)"]),
    ]

    def lower(self, call, cx):
        reject_directed_rounding(call, cx)
        x = call.arg("x")
        direct, fold = TABLE[call.name]
        if isinstance(x.val, ConstV):
            return cx.fold(call.node, fold, x.val.value)
        d = dtype_of(x)
        if isinstance(x.val, ConstExprV) or d == "scalar_param":
            # a scalar parameter or a constexpr: a Python number to Triton (which has no
            # `.dtype`, and tl.floor needs a tensor); cuTile computes it in fp32
            x = Lowered(f"tl.full((), {x.code}, tl.float32)", TileV(shape=(), dtype="float32"))
            d = "float32"
        out_dtype = d if d in ("float16", "bfloat16", "float32", "float64") else (
            "float32" if d else None)
        val = TileV(shape=tile_shape(x), dtype=out_dtype)
        if direct and d in DIRECT_DTYPES:
            return Lowered(direct.format(x=x.code), val)
        helper = DeviceHelper(f"_{call.name}", MATH_HELPER,
                              requires=(TANH_F,) if call.name == "tanh" else ())
        name = cx.need(helper, name=call.name, formula=FORMULAS[call.name])
        return Lowered(f"{name}({x.code})", val)


class NewerMath(Math):
    constructs = NEWER
    newer = NEWER
    summary = "sigmoid, where the installed cuda-tile defines it (1.7.0 does not)"
    triton = "tl.sigmoid on fp32/fp64; `_sigmoid` helper (through fp32) otherwise"
    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int], FAST: ct.Constant[bool]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.float32)
    if FAST:
        a = ct.sigmoid(a)
    else:
        a = 1.0 / (1.0 + ct.exp(-a))
    ct.store(x, (0,), a)
""", expect=["if FAST:", "tl.static_assert(False, \"ct.sigmoid is not in cuda-tile"])]


class Atan2(Pattern):
    constructs = ("atan2",)
    summary = "two-argument arctangent"
    triton = "`_atan2` helper (fp32 range-reduced series)"

    def signature(x1, x2, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.atan2(a, a + 1.0))
""", expect=["_atan2(a, a + 1.0)"])]

    def lower(self, call, cx):
        y, x = call.arg("x1"), call.arg("x2")
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, pymath.atan2, y.val.value, x.val.value)
        d = promote(dtype_of(y), dtype_of(x))
        return Lowered(f"{cx.need(ATAN2)}({y.code}, {x.code})",
                       TileV(shape=broadcast_shapes(tile_shape(y), tile_shape(x)),
                             dtype=d if d in ("float16", "bfloat16", "float64") else "float32"))


class Abs(Pattern):
    constructs = ("abs",)
    summary = "absolute value"
    triton = "tl.abs(x)"

    def signature(x, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.abs(a) + abs(a))
""", expect=["tl.abs(a) + tl.abs(a)"])]

    def lower(self, call, cx):
        x = call.arg("x")
        if isinstance(x.val, ConstV):
            return cx.fold(call.node, abs, x.val.value)
        return Lowered(f"tl.abs({x.code})", TileV(shape=tile_shape(x), dtype=dtype_of(x),
                                                   nonneg=True))


class IsNan(Pattern):
    constructs = ("isnan",)
    summary = "elementwise NaN test"
    triton = "x != x"

    def signature(x, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.where(ct.isnan(a), 0.0, a))
""", expect=["tl.where(a != a, 0.0, a)"])]

    def lower(self, call, cx):
        x = call.arg("x")
        return Lowered(f"{x.wrap(7)} != {x.wrap(7)}", TileV(shape=tile_shape(x), dtype="bool_"),
                       6)
