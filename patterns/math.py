"""Elementwise math. A table: each cuTile function, its Triton spelling for fp32/fp64 tiles,
and the helper used otherwise (Triton's math takes fp32/fp64 only; cuTile keeps fp16/bf16).
tanh, sinh, cosh, tan and atan2 have no core Triton function (libdevice is not available under
TRITON_INTERPRET), so their helpers compute them from exp / sin / cos in fp32. `erf` is always
the real erf, never a tanh approximation."""
import math as pymath

from tile2triton.model import FLOAT_DTYPES, WIDE_DTYPES, ConstV, Lowered, TileV
from tile2triton.pattern_api import Example, Pattern

from ._common import broadcast_shapes, dtype_of, promote, reject_directed_rounding, tile_shape

# cuTile name -> (direct Triton form for fp32/fp64 tiles or None, Python fold)
TABLE = {
    "exp": ("tl.exp({x})", pymath.exp), "exp2": ("tl.exp2({x})", lambda v: 2.0 ** v),
    "log": ("tl.log({x})", pymath.log), "log2": ("tl.log2({x})", pymath.log2),
    "sqrt": ("tl.sqrt({x})", pymath.sqrt), "rsqrt": ("tl.rsqrt({x})", lambda v: v ** -0.5),
    "sin": ("tl.sin({x})", pymath.sin), "cos": ("tl.cos({x})", pymath.cos),
    "tan": (None, pymath.tan), "tanh": (None, pymath.tanh), "sinh": (None, pymath.sinh),
    "cosh": (None, pymath.cosh), "floor": ("tl.floor({x})", pymath.floor),
    "ceil": ("tl.ceil({x})", pymath.ceil), "erf": ("tl.erf({x})", pymath.erf),
}
DIRECT_DTYPES = {d for d in WIDE_DTYPES if d in FLOAT_DTYPES}  # fp32, fp64, tf32


class Math(Pattern):
    constructs = tuple(TABLE)
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
""", expect=["def _tanh(x):", "def _tanh_f(x):", "tl.exp(a) + tl.erf(a) + _tanh(a)"]),
        Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.sqrt(a))
""", expect=["xf = x.to(tl.float32)", "_sqrt(a)"]),
    ]

    def lower(self, call, cx):
        reject_directed_rounding(call, cx)
        x = call.arg("x")
        direct, fold = TABLE[call.name]
        if isinstance(x.val, ConstV):
            return cx.fold(call.node, fold, x.val.value)
        d = dtype_of(x)
        out_dtype = d if d in ("float16", "bfloat16", "float32", "float64") else (
            "float32" if d else None)
        val = TileV(shape=tile_shape(x), dtype=out_dtype)
        if direct and d in DIRECT_DTYPES:
            return Lowered(direct.format(x=x.code), val)
        if call.name == "tanh":
            cx.need("tanh")
        return Lowered(f"_{cx.need(call.name)}({x.code})", val)


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
        return Lowered(f"_{cx.need('atan2')}({y.code}, {x.code})",
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
