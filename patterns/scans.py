"""Scans and user reductions: ct.cumsum, ct.cumprod, ct.scan, ct.reduce.

cuTile scans keep the input dtype. tl.cumsum accumulates small integers in int32 and bf16 in fp32,
and tl.cumprod returns fp32 for bf16, so those (and tiles whose dtype is only known to Triton)
scan with tl.associative_scan and a plain `+` / `*` combiner, which keeps the dtype (bool tiles
are counted in int32, as in cuTile).

ct.scan / ct.reduce take a user combiner: a module-level function (translated once as a
@triton.jit helper, like any helper the kernel calls), a lambda (translated into a @triton.jit
helper of its own), or operator.add / ct.maximum and the like. Triton needs no identity: it
combines the tile's own elements only, so `identity` is checked but not used. A tuple of tiles
gives a tuple of results, as in cuTile (tl.reduce / tl.associative_scan take tuples too).
"""
import functools

import libcst as cst

from tile2triton.model import WIDE_DTYPES, ConstV, EnumV, Lowered, TileV, TupleV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import axis_arg, const_bool, require_tile, tuple_items
from ._common import broadcast_shapes, dtype_of, shape_code, tile_shape

# dtypes for which tl.cumsum / tl.cumprod already scan in the input dtype: the wide ones, and
# float16 (bf16 and small integers are widened)
NATIVE_SCAN = WIDE_DTYPES | {"float16"}

COMBINE_SOURCES = {
    "_add_combine": "@triton.jit\ndef _add_combine(a, b):\n    return a + b",
    "_mul_combine": "@triton.jit\ndef _mul_combine(a, b):\n    return a * b",
    "_max_combine": "@triton.jit\ndef _max_combine(a, b):\n    return tl.maximum(a, b)",
    "_min_combine": "@triton.jit\ndef _min_combine(a, b):\n    return tl.minimum(a, b)",
    "_and_combine": "@triton.jit\ndef _and_combine(a, b):\n    return a & b",
    "_or_combine": "@triton.jit\ndef _or_combine(a, b):\n    return a | b",
    "_xor_combine": "@triton.jit\ndef _xor_combine(a, b):\n    return a ^ b",
}
COMBINERS = {name: DeviceHelper(name, text) for name, text in COMBINE_SOURCES.items()}
BOOL_AS_INT32 = DeviceHelper("_bool_as_int32", """
@triton.jit
def _bool_as_int32(x):
    # cuTile scans booleans as int32 counts; every other dtype is scanned as it is
    if x.dtype == tl.int1:
        return x.to(tl.int32)
    else:
        return x
""")
# built-in combiners users pass as `func`: operator.*, ct.*, and the builtins max/min
KNOWN_COMBINERS = {
    "operator.add": "_add_combine", "operator.mul": "_mul_combine",
    "operator.and_": "_and_combine", "operator.or_": "_or_combine",
    "operator.xor": "_xor_combine",
    "cuda.tile.add": "_add_combine", "cuda.tile.mul": "_mul_combine",
    "cuda.tile.maximum": "_max_combine", "cuda.tile.minimum": "_min_combine",
    "cuda.tile.bitwise_and": "_and_combine", "cuda.tile.bitwise_or": "_or_combine",
    "cuda.tile.bitwise_xor": "_xor_combine",
    "builtins.max": "_max_combine", "builtins.min": "_min_combine",
}


def kw_flag(name, value):
    """`, name=True` / `, name=FLAG` for a compile-time bool that is not the default False."""
    return "" if value is False else f", {name}={value}"


def reject_numeric_modes(call, cx):
    rm = call.val("rounding_mode")
    if isinstance(rm, EnumV) and rm.member not in ("RN",):
        raise cx.error(call.node_of("rounding_mode"), "T2T106",
                       f"ct.{call.name}: rounding_mode=RoundingMode.{rm.member} has no Triton "
                       "equivalent", help="Triton's additions and multiplications round to "
                                          "nearest even (RoundingMode.RN); drop the argument")
    ftz = call.val("flush_to_zero")
    if isinstance(ftz, ConstV) and ftz.value:
        raise cx.error(call.node_of("flush_to_zero"), "T2T106",
                       f"ct.{call.name}: flush_to_zero=True has no Triton equivalent",
                       help="Triton keeps subnormals; drop the argument")


class CumScan(Pattern):
    constructs = ("cumsum", "cumprod")
    summary = "inclusive prefix sum / product along an axis (reverse=True scans from the end)"
    triton = ("tl.cumsum / tl.cumprod(x, axis, reverse) when they keep the dtype; "
              "tl.associative_scan with `_add_combine` / `_mul_combine` otherwise")

    def signature(x, /, axis=0, *, reverse=False, rounding_mode=None, flush_to_zero=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN)).astype(ct.float32)
    ct.store(y, (0, 0), ct.cumsum(a, 1) + ct.cumprod(a, axis=0, reverse=True))
""", expect=["tl.cumsum(a, axis=1) + tl.cumprod(a, axis=0, reverse=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], REV: ct.Constant[bool]):
    a = ct.load(x, (0,), (TM,)).astype(ct.int64)
    ct.store(y, (0,), ct.cumsum(a, reverse=REV))
""", expect=["tl.cumsum(a, axis=0, reverse=REV)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    b = a.astype(ct.bfloat16)
    ct.store(y, (0,), ct.cumsum(a, reverse=True) + ct.cumprod(b, -1))
""", expect=["def _add_combine(a, b):", "def _mul_combine(a, b):",
             "tl.associative_scan(_bool_as_int32(a), 0, _add_combine, reverse=True) + "
             "tl.associative_scan(b, 0, _mul_combine)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.cumsum(a, 0, rounding_mode=ct.RoundingMode.RZ))
""", error="T2T106", message="no Triton equivalent"),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        axis = axis_arg(call, cx, len(shape) if shape is not None else None)
        reverse = const_bool(call, cx, "reverse")
        reject_numeric_modes(call, cx)
        d = dtype_of(x)
        code = x.code
        if d == "bool_":  # cuTile counts booleans in int32
            code, d = x.cast("tl.int32"), "int32"
        elif d is None:
            # the dtype is known only to Triton (a load from an array): a bool tile must still
            # be counted in int32, so the widening is decided when Triton compiles
            code = f"{cx.need(BOOL_AS_INT32)}({x.code})"
        rev = kw_flag("reverse", reverse)
        if d in NATIVE_SCAN:
            out = f"tl.{call.name}({code}, axis={axis}{rev})"
        else:
            fn = "_add_combine" if call.name == "cumsum" else "_mul_combine"
            cx.need(COMBINERS[fn])
            out = f"tl.associative_scan({code}, {axis}, {fn}{rev})"
        return Lowered(out, TileV(shape=shape, dtype=d))


def _broadcast_together(items):
    """cuTile broadcasts a tuple's tiles to one shape; tl.reduce / tl.associative_scan need the
    shapes equal, so the smaller tiles are broadcast here (when all shapes are known)."""
    shapes = [tile_shape(it) for it in items if isinstance(it.val, TileV)]
    if not shapes or any(s is None for s in shapes):
        return items
    common = functools.reduce(broadcast_shapes, shapes)
    if common is None:
        return items
    out = []
    for it in items:
        shape = it.val.shape if isinstance(it.val, TileV) else None
        if shape is not None and tuple(map(str, shape)) != tuple(map(str, common)):
            code = it.code
            if len(shape) < len(common):       # tl.broadcast_to wants equal ranks
                code += "[" + ", ".join(["None"] * (len(common) - len(shape)) +
                                        [":"] * len(shape)) + "]"
            it = Lowered(f"tl.broadcast_to({code}, {shape_code([str(d) for d in common])})",
                         TileV(shape=common, dtype=dtype_of(it)))
        out.append(it)
    return out


def _inputs(call, cx):
    """The scanned / reduced tiles: one tile, or a tuple of tiles (is_tuple)."""
    low = call.arg("x")
    if isinstance(low.val, TupleV):
        items = tuple_items(low)
        if items is None:
            raise cx.error(call.node_of("x"), "T2T103", f"ct.{call.name}: the tuple of tiles "
                           "must be written out", help=f"write ct.{call.name}((a, b), ...)")
        for it in items:
            if not isinstance(it.val, (TileV, ConstV)):
                raise cx.error(call.node_of("x"), "T2T102",
                               f"ct.{call.name}: every input must be a tile",
                               help="pass tiles (load from arrays first)")
        return _broadcast_together(items), True
    return [require_tile(call, "x", cx)], False


def _check_identity(call, cx, n):
    low = call.arg("identity")
    v = low.val
    values = tuple_items(low) if isinstance(v, TupleV) or (
        isinstance(v, ConstV) and isinstance(v.value, tuple)) else [low]
    if values is None or not all(isinstance(i.val, ConstV) for i in values):
        raise cx.error(call.node_of("identity"), "T2T103",
                       f"ct.{call.name}: `identity` must be a constant (or a tuple of constants)",
                       help="pass constants as identity values, one per input tile")
    if len(values) != n:
        raise cx.error(call.node_of("identity"), "T2T102",
                       f"ct.{call.name}: {n} input tile(s) but {len(values)} identity value(s)",
                       help="give one identity value per input tile")


def combiner(call, cx, inputs) -> str:
    """The name of a @triton.jit combiner for `func`, translating it if needed."""
    node = call.node_of("func")
    n = 2 * len(inputs)
    arg_vals = [TileV(shape=(), dtype=dtype_of(t)) for t in inputs] * 2
    q = cx.resolve(node)
    if q in KNOWN_COMBINERS:
        if len(inputs) != 1:
            raise cx.error(node, "T2T102", f"ct.{call.name}: `{q}` combines single tiles; a "
                           "tuple of tiles needs a function of 2N arguments",
                           help="for N tiles, pass a combiner function of 2N arguments")
        name = KNOWN_COMBINERS[q]
        return cx.need(COMBINERS[name])
    if isinstance(node, cst.Lambda):
        ps = node.params
        if ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg is not None \
                or ps.kwonly_params or any(p.default is not None for p in ps.params):
            raise cx.error(node, "T2T102", f"ct.{call.name}: the combiner lambda must take plain "
                           "positional parameters",
                           help="give the lambda plain positional parameters")
        taken = len(ps.posonly_params) + len(ps.params)
        if taken != n:
            raise cx.error(node, "T2T102", f"ct.{call.name}: the combiner must take "
                           f"{n} arguments, the lambda takes {taken}",
                           help="give the combiner two arguments per input tile")
    elif q is not None or not isinstance(node, cst.Name):
        raise cx.error(node, "T2T100", f"ct.{call.name}: this combiner cannot be translated",
                       help="pass a module-level function, a lambda, operator.add / operator.mul "
                            "or ct.maximum / ct.minimum")
    name, taken = cx.lower_callable(node, call.node, arg_vals)
    if taken != n:
        raise cx.error(node, "T2T102", f"ct.{call.name}: the combiner must take {n} "
                       f"arguments, `{name}` takes {taken}",
                       help="give the combiner two arguments per input tile")
    return name


def _results(inputs, is_tuple, shape_of, code):
    vals = [TileV(shape=shape_of(t), dtype=dtype_of(t)) for t in inputs]
    if is_tuple:
        return Lowered(code, TupleV(vals))
    return Lowered(code, vals[0])


class Scan(Pattern):
    constructs = ("scan",)
    summary = "inclusive scan with a user combiner (function, lambda, operator.add, ...)"
    triton = "tl.associative_scan(x, axis, combiner, reverse=...)"

    def signature(x, /, axis, func, identity, *, reverse=False):
        pass

    examples = [
        Example("""
def running_max(a, b):
    return ct.maximum(a, b)

@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0, 0), ct.scan(a, 1, running_max, float("-inf"), reverse=True))
""", expect=["@triton.jit\ndef running_max(a, b):", "return tl.maximum(a, b)",
             "tl.associative_scan(a, 1, running_max, reverse=True)"]),
        Example("""
import operator

@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    s = ct.scan(a, 0, lambda u, v: u * v, 1.0)
    ct.store(y, (0,), s + ct.scan(a, 0, operator.add, 0))
""", expect=["@triton.jit\ndef _lambda_", "(u, v):\n    return u * v",
             "s = tl.associative_scan(a, 0, _lambda_", "tl.associative_scan(a, 0, _add_combine)"]),
    ]

    def lower(self, call, cx):
        inputs, is_tuple = _inputs(call, cx)
        shape = tile_shape(inputs[0])
        axis = axis_arg(call, cx, len(shape) if shape is not None else None)
        reverse = const_bool(call, cx, "reverse")
        _check_identity(call, cx, len(inputs))
        fn = combiner(call, cx, inputs)
        x = "(" + ", ".join(t.code for t in inputs) + ")" if is_tuple else inputs[0].code
        rev = kw_flag("reverse", reverse)
        return _results(inputs, is_tuple, tile_shape,
                        f"tl.associative_scan({x}, {axis}, {fn}{rev})")


class UserReduce(Pattern):
    constructs = ("reduce",)
    summary = "reduction along one axis with a user combiner (function, lambda, operator.*)"
    triton = "tl.reduce(x, axis, combiner, keep_dims=...)"

    def signature(x, /, axis, func, identity, *, keepdims=False):
        pass

    examples = [
        Example("""
def argmax_combine(v1, i1, v2, i2):
    take2 = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return ct.where(take2, v2, v1), ct.where(take2, i2, i1)

@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    cols = ct.arange(TN, dtype=ct.int32)[None, :] + ct.zeros((TM, TN), dtype=ct.int32)
    best, where = ct.reduce((a, cols), 1, argmax_combine, (float("-inf"), 0), keepdims=True)
    ct.store(y, (0, 0), where)
""", expect=["@triton.jit\ndef argmax_combine(v1, i1, v2, i2):",
             "best, where = tl.reduce((a, cols), 1, argmax_combine, keep_dims=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.reduce(a, 0, max, float("-inf"), keepdims=True))
""", expect=["def _max_combine(a, b):", "tl.reduce(a, 0, _max_combine, keep_dims=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.reduce(a, 0, lambda u: u, 0.0))
""", error="T2T102", message="the combiner must take 2 arguments"),
        Example("""
def first_min(v1, i1, v2, i2):
    take1 = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return ct.where(take1, v1, v2), ct.where(take1, i1, i2)

@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    _, where = ct.reduce((a, ct.arange(TN, dtype=ct.int32)), 1, first_min, (0.0, 0))
    ct.store(y, (0,), where)
""", expect=["tl.reduce((a, tl.broadcast_to(tl.arange(0, TN)[None, :], (TM, TN))), 1, first_min)"]),
    ]

    def lower(self, call, cx):
        inputs, is_tuple = _inputs(call, cx)
        shape = tile_shape(inputs[0])
        rank = len(shape) if shape is not None else None
        axis = axis_arg(call, cx, rank)
        keep = const_bool(call, cx, "keepdims")
        _check_identity(call, cx, len(inputs))
        fn = combiner(call, cx, inputs)
        x = "(" + ", ".join(t.code for t in inputs) + ")" if is_tuple else inputs[0].code
        kd = kw_flag("keep_dims", keep)
        if not isinstance(keep, bool):
            raise cx.error(call.node_of("keepdims"), "T2T103",
                           "ct.reduce: `keepdims` must be True or False",
                           help="the result's rank must be known at translation time")

        def reduced(t):
            s = tile_shape(t)
            if s is None:
                return None
            return tuple(("1" if keep else None) if i == axis else d for i, d in enumerate(s)
                         if keep or i != axis)
        return _results(inputs, is_tuple, reduced, f"tl.reduce({x}, {axis}, {fn}{kd})")
