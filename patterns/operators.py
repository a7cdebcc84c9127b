"""Arithmetic, comparison and bitwise operators, and their functional forms (`ct.add`, ...).

Most map to the same Python operator in Triton. The exceptions carry cuTile's semantics:
integer `//` and `%` floor (Triton truncates toward zero) unless both operands are provably
non-negative or compile-time; `**` has no Triton operator.
"""
import operator as op

from tile2triton.model import MAX_SEQUENCE, PREC, ConstExprV, ConstV, Lowered, TileV, TupleV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import reject_directed_rounding
from ._common import broadcast_shapes, dtype_of, is_float, promote, tile_shape

FOLD = {
    "add": op.add, "sub": op.sub, "mul": op.mul, "truediv": op.truediv, "floordiv": op.floordiv,
    "mod": op.mod, "pow": op.pow, "bitwise_and": op.and_, "bitwise_or": op.or_,
    "bitwise_xor": op.xor, "bitwise_lshift": op.lshift, "bitwise_rshift": op.rshift,
    "less": op.lt, "less_equal": op.le, "greater": op.gt, "greater_equal": op.ge,
    "equal": op.eq, "not_equal": op.ne, "minimum": min, "maximum": max,
}
SYMBOL = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "bitwise_lshift": "<<",
    "bitwise_rshift": ">>", "less": "<", "less_equal": "<=", "greater": ">",
    "greater_equal": ">=", "equal": "==", "not_equal": "!=",
}
HELPERS = {
    "floordiv": DeviceHelper("_floordiv", r'''@triton.jit
def _floordiv(a, b):
    """cuTile's `//` floors, as Python's; Triton's integer `//` truncates toward zero."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        q = a // b
    elif (a + b).dtype.is_floating():  # the IEEE quotient rounded to the dtype, then floored
        dt = (a + b).dtype
        ft = dt if dt == tl.float64 else tl.float32  # (fp32's `/` is approximate: div_rn)
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        q = tl.floor((x / y if dt == tl.float64 else tl.div_rn(x, y)).to(dt).to(ft)).to(dt)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) != (b < 0)), q - 1, q)
    return q
'''),
    "mod": DeviceHelper("_mod", r'''@triton.jit
def _mod(a, b):
    """cuTile's `%` takes the sign of the divisor; Triton's integer `%` that of the dividend."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        r = a % b
    else:  # (floats: C's exact fmod, 16-bit ones in fp32, rounded once at the end)
        dt = (a + b).dtype
        ft = tl.float32 if dt.is_floating() and dt.primitive_bitwidth < 32 else dt
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        r = x % y
        r = tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).to(dt)
    return r
'''),
}
NEGATIVE = DeviceHelper("_negative", r'''@triton.jit
def _negative(x):
    """cuTile negates a boolean as an int32 (-True == -1); Triton's `-` would keep int1."""
    if isinstance(x, tl.tensor) and x.dtype == tl.int1:
        y = -x.to(tl.int32)
    else:
        y = -x
    return y
''')
POW = DeviceHelper("_pow", r'''@triton.jit
def _pow(x, y):
    """x ** y for float tiles: exp2(y * log2|x|) in fp32, negative for odd integer powers of a
    negative base, NaN for other powers of a negative base, 1 for y == 0."""
    xf = tl.cast(x + 0 * y, tl.float32)  # (tl.cast: Python numbers under TRITON_INTERPRET too)
    yf = tl.cast(y + 0 * x, tl.float32)
    r = tl.exp2(yf * tl.log2(tl.abs(xf)))
    y_int = tl.floor(yf) == yf
    y_odd = y_int & (tl.floor(yf * 0.5) * 2.0 != yf)
    r = tl.where(xf < 0, tl.where(y_int, tl.where(y_odd, -r, r), float("nan")), r)
    r = tl.where(yf == 0, 1.0, r)
    return r.to((x + y).dtype) if isinstance(x + y, tl.tensor) else r
''')
COMPARISONS = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"}
BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_lshift", "bitwise_rshift"}


def _prec(symbol):
    return PREC["cmp"] if symbol in ("<", "<=", ">", ">=", "==", "!=") else PREC[symbol]


def infix(name, x, y, val):
    s = SYMBOL[name]
    p = _prec(s)
    return Lowered(f"{x.wrap(p)} {s} {y.wrap(p + 1)}", val, p)


def result_val(name, x, y, cx):
    shape = broadcast_shapes(tile_shape(x), tile_shape(y))
    if name in COMPARISONS:
        return TileV(shape=shape, dtype="bool_")
    dx, dy = dtype_of(x), dtype_of(y)
    dtype = promote(dx, dy)
    if name == "truediv" and dtype is not None and not is_float(dtype):
        dtype = "float32"
    nonneg = name in ("add", "mul", "floordiv", "mod", "truediv", "minimum", "maximum",
                      "bitwise_and") and cx.is_nonneg(x) and cx.is_nonneg(y)
    # >= 1: `n + TILE - 1` is >= 0 (rounding is monotonic, so this holds for floats too)
    one = cx.is_positive(x), cx.is_positive(y)
    positive = nonneg and (name in ("add", "maximum") and any(one)
                           or name in ("mul", "minimum") and all(one))
    if name == "sub" and one[0] and isinstance(y.val, ConstV) and not isinstance(
            y.val.value, bool) and isinstance(y.val.value, (int, float)) and y.val.value <= 1:
        nonneg, positive = True, y.val.value <= 0
    tf32 = getattr(x.val, "tf32", False) or getattr(y.val, "tf32", False)
    # cuTile's arithmetic rejects bool operands, so its results are never bool
    numeric = name not in BITWISE
    return TileV(shape=shape, dtype=dtype, nonneg=nonneg or positive, positive=positive,
                 tf32=tf32, numeric=numeric)


def compile_time(low):
    return isinstance(low.val, (ConstV, ConstExprV))


def _tuple_items(low):
    """The entries of a tuple (written, or a constant), else None."""
    v = low.val
    if isinstance(v, TupleV):
        if low.items is not None:
            return list(low.items)
        return [Lowered(f"{low.wrap(100)}[{i}]", it) for i, it in enumerate(v.items)]
    if isinstance(v, ConstV) and isinstance(v.value, tuple):
        return [Lowered(repr(it), ConstV(it)) for it in v.value]
    return None


def tuple_arith(name, x, y, cx, node):
    """`(0,) * n` and `t1 + t2` of tuples: a tuple at translation time, as in cuTile (whose
    kernels are Python)."""
    tx, ty = _tuple_items(x), _tuple_items(y)
    items = None
    size = None
    if name == "add" and tx is not None and ty is not None:
        size = len(tx) + len(ty)
    elif name == "mul" and (tx is None) != (ty is None):
        n = y if tx is not None else x
        if isinstance(n.val, ConstV) and isinstance(n.val.value, int) \
                and not isinstance(n.val.value, bool):
            size = len(tx if tx is not None else ty) * max(n.val.value, 0)
    if size is None:
        return None
    if size > MAX_SEQUENCE:  # refused before it is built
        raise cx.error(node, "T2T120", f"this compile-time tuple is far too long ({size:,} "
                       f"items; at most {MAX_SEQUENCE:,})",
                       help="kernels hold short compile-time tuples")
    items = tx + ty if name == "add" else (tx if tx is not None else ty) * max(n.val.value, 0)
    code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
    return Lowered(code, TupleV([i.val for i in items]), items=items)


class BinaryOperator(Pattern):
    constructs = ("add", "sub", "mul", "truediv", "bitwise_and", "bitwise_or", "bitwise_xor",
                  "bitwise_lshift", "bitwise_rshift", "less", "less_equal", "greater",
                  "greater_equal", "equal", "not_equal")
    summary = "`+ - * / & | ^ << >> < <= > >= == !=` and ct.add, ct.sub, ct.mul, ct.truediv, ..."
    triton = "the same Python operator"
    operators = {SYMBOL[c]: c for c in constructs}

    def signature(x, y, /, *, rounding_mode=None, flush_to_zero=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    b = ct.add(a, 2.0) * (a - 1.0) / ct.truediv(a, 3.0)
    ct.store(y, (ct.bid(0),), ct.where(ct.greater(b, a), b, a))
""", expect=["b = (a + 2.0) * (a - 1.0) / (a / 3.0)", "tl.where(b > a, b, a)"]),
        Example("""
@ct.kernel
def k(x):
    n = 3 * 4 + 1
    ct.store(x, (0,), ct.full((16,), n, dtype=ct.int32))
""", expect=["n: tl.constexpr = 3 * 4 + 1"]),
    ]

    def lower(self, call, cx):
        name = call.name
        reject_directed_rounding(call, cx)
        x, y = call.arg("x"), call.arg("y")
        joined = tuple_arith(name, x, y, cx, call.node) if name in ("add", "mul") else None
        if joined is not None:
            return joined
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, FOLD[name], x.val.value, y.val.value)
        if compile_time(x) and compile_time(y):
            return infix(name, x, y, ConstExprV(name, kind="bool" if name in COMPARISONS
                                                else "int"))
        return infix(name, x, y, result_val(name, x, y, cx))


class FloorDivMod(Pattern):
    constructs = ("floordiv", "mod")
    summary = "`//` and `%` (floor semantics, also for negative integers)"
    triton = "`//`, `%` when operands are non-negative; else `_floordiv` / `_mod` helpers"
    operators = {"//": "floordiv", "%": "mod"}

    def signature(x, y, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), a // 3 + ct.mod(a, -5))
""", expect=["def _floordiv(a, b):", "def _mod(a, b):", "_floordiv(a, 3) + _mod(a, -5)"]),
        Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    row = ct.bid(0) // 4
    col = ct.bid(0) % 4
    ct.store(x, (row, col), ct.full((TILE, TILE), 1.0, dtype=ct.float32))
""", expect=["row = tl.program_id(0) // 4", "col = tl.program_id(0) % 4"]),
    ]

    def lower(self, call, cx):
        name = call.name
        x, y = call.arg("x"), call.arg("y")
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, FOLD[name], x.val.value, y.val.value)
        if compile_time(x) and compile_time(y):
            return infix(name, x, y, ConstExprV(name))  # constexpr math is Python's: floors
        val = result_val(name, x, y, cx)
        if cx.is_nonneg(x) and cx.is_nonneg(y):
            return infix(name, x, y, val)
        helper = cx.need(HELPERS[name])
        return Lowered(f"{helper}({x.code}, {y.code})", val)


class Power(Pattern):
    constructs = ("pow",)
    operators = {"**": "pow"}
    summary = "`**` and ct.pow"
    triton = "repeated multiplication for small integer exponents; else `_pow` (fp32 exp2/log2)"

    def signature(x, y, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), a ** 2 + ct.pow(a, 0.5))
""", expect=["a * a + _pow(a, 0.5)"])]

    def lower(self, call, cx):
        x, y = call.arg("x"), call.arg("y")
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, op.pow, x.val.value, y.val.value)
        if compile_time(x) and compile_time(y):
            return Lowered(f"{x.wrap(15)} ** {y.wrap(14)}", ConstExprV("pow"), 14)
        val = result_val("pow", x, y, cx)
        if isinstance(y.val, ConstV) and y.val.value in (1, 2, 3, 4) \
                and isinstance(y.val.value, int) and x.prec == 100:
            return Lowered(" * ".join([x.code] * y.val.value), val, PREC["*"])
        helper = cx.need(POW)
        return Lowered(f"{helper}({x.code}, {y.code})", val)


class MinMax(Pattern):
    constructs = ("minimum", "maximum")
    summary = "elementwise minimum / maximum"
    triton = "tl.minimum / tl.maximum (propagate_nan mapped)"

    def signature(x, y, /, *, flush_to_zero=False, propagate_nan=False):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), ct.maximum(ct.minimum(a, 1.0), -1.0, propagate_nan=True))
""", expect=["tl.maximum(tl.minimum(a, 1.0), -1.0, propagate_nan=tl.PropagateNan.ALL)"])]

    def lower(self, call, cx):
        x, y = call.arg("x"), call.arg("y")
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, FOLD[call.name], x.val.value, y.val.value)
        fn = "tl.minimum" if call.name == "minimum" else "tl.maximum"
        nan = call.val("propagate_nan")
        extra = ", propagate_nan=tl.PropagateNan.ALL" if isinstance(nan, ConstV) and nan.value \
            else ""
        return Lowered(f"{fn}({x.code}, {y.code}{extra})", result_val(call.name, x, y, cx))


class Unary(Pattern):
    constructs = ("negative", "bitwise_not")
    operators = {"unary -": "negative", "~": "bitwise_not"}
    summary = "unary `-` and `~`"
    triton = "the same operator"

    def signature(x, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), -(a * 2) + ct.negative(a > 0))
""", expect=["-(a * 2) + -(a > 0).to(tl.int32)"]), Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), -a)
""", expect=["def _negative(x):", "if isinstance(x, tl.tensor) and x.dtype == tl.int1:", "_negative(a)"])]

    def lower(self, call, cx):
        x = call.arg("x")
        if isinstance(x.val, ConstV):
            if call.name == "bitwise_not" and isinstance(x.val.value, bool):
                return cx.const(not x.val.value)     # a bool's bitwise not is `not`, not -1/-2
            return cx.fold(call.node, op.neg if call.name == "negative" else op.invert,
                           x.val.value)
        sym = "-" if call.name == "negative" else "~"
        if sym == "~" and isinstance(x.val, ConstExprV) and x.val.kind == "bool":
            # a bool known when Triton compiles: Python's `~True` would be the int -2
            return Lowered(f"not {x.wrap(100)}", ConstExprV("not", kind="bool"),
                           PREC["not"])
        if sym == "~" and is_float(dtype_of(x)):
            raise cx.error(call.node, "T2T106", "`~` (bitwise not) is not defined on floats",
                           help="use it on integer or boolean tiles")
        v = x.val
        if sym == "-" and isinstance(v, TileV) and dtype_of(x) == "bool_":
            # cuTile negates a boolean as an int32 (-True == -1); Triton's `-` keeps int1.
            return Lowered(f"-{x.cast('tl.int32')}",
                           TileV(shape=tile_shape(x), dtype="int32"), PREC["unary"])
        if sym == "-" and isinstance(v, TileV) and v.dtype is None and not v.numeric:
            # a tile whose dtype is known only at launch (loaded from an array) may be boolean
            return Lowered(f"{cx.need(NEGATIVE)}({x.code})",
                           TileV(shape=tile_shape(x), numeric=True))
        val = TileV(shape=tile_shape(x), dtype=dtype_of(x), numeric=sym == "-") \
            if isinstance(v, TileV) else v
        return Lowered(f"{sym}{x.wrap(PREC['unary'])}", val, PREC["unary"])
