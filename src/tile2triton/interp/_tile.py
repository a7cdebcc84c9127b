"""The interpreter's Tile (a torch tensor plus a cuTile dtype) and its elementwise semantics.

Operands of every elementwise construct are tiles or Python scalars.  Python scalars
(``bool``/``int``/``float`` constants, ``ct.Constant`` parameters, loop counters of plain
``range``) are *loosely typed*: they adopt the tile's dtype within their category; see
``_dtypes`` for the promotion rules.  Two Python scalars combine with plain Python semantics.

Arithmetic is computed in the result dtype: float16/bfloat16 are computed in float32 and rounded
back to the result dtype after every operation (as hardware does for one fp16 instruction);
integer arithmetic wraps around at the dtype's width.
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator

import torch

from . import _dtypes as D
from ._dtypes import DType
from ._errors import TileTypeError, TileValueError, InterpreterUnsupported
from ._state import STATE, garbage

_py_abs, _py_min, _py_max = builtins.abs, builtins.min, builtins.max


class Tile:
    """A cuTile tile: an immutable n-d value of one dtype.  ``._t`` is the torch tensor."""

    __slots__ = ("_t", "_dtype")

    def __init__(self, t: torch.Tensor, dtype: DType):
        self._t = t
        self._dtype = dtype

    # ---- attributes ------------------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def shape(self) -> tuple:
        return tuple(self._t.shape)

    @property
    def ndim(self) -> int:
        return self._t.dim()

    def torch(self) -> torch.Tensor:
        """The tile's values as a torch tensor of the matching torch dtype (debugging aid)."""
        d = self._dtype
        if d.torch_dtype is not None and d.torch_dtype != self._t.dtype and d is not D.uint64:
            return self._t.to(d.torch_dtype)
        return self._t

    def tolist(self):
        return _to_python(self._t, self._dtype)

    # ---- methods of the cuTile Tile class ---------------------------------------------------
    def item(self):
        if self._t.numel() != 1:
            raise TileTypeError(f"Tile.item: the tile has shape {self.shape}; item() needs "
                                f"exactly one element")
        return Tile(self._t.reshape(()), self._dtype)

    def extract(self, index, shape):
        return extract(self, index, shape)

    def insert(self, index, value):
        return insert(self, index, value)

    def reshape(self, shape):
        return reshape(self, shape)

    def permute(self, axes):
        return permute(self, axes)

    def transpose(self, axis0=None, axis1=None):
        return transpose(self, axis0, axis1)

    def astype(self, dtype, *, rounding_mode=None):
        return astype(self, dtype, rounding_mode=rounding_mode)

    def __getitem__(self, index):
        return _expand_dims_sugar(self, index)

    def __iter__(self):
        raise TileTypeError("a Tile is not iterable (use ct.extract or a loop over indices)")

    def __len__(self):
        raise TileTypeError("len() of a Tile is not supported; use tile.shape")

    # ---- scalar conversions (0-d tiles) ------------------------------------------------------
    def _scalar(self, what):
        if self._t.dim() != 0:
            raise TileTypeError(f"{what}: needs a 0-d tile (a scalar), got a tile of shape "
                                f"{self.shape}")
        return _to_python(self._t, self._dtype)

    def __index__(self):
        if not (self._dtype.is_int or self._dtype.is_bool):
            raise TileTypeError(f"a {self._dtype} tile cannot be used as an index")
        return int(self._scalar("using a tile as an integer index"))

    def __int__(self):
        return int(self._scalar("int(tile)"))

    def __float__(self):
        return float(self._scalar("float(tile)"))

    def __bool__(self):
        if self._t.dim() != 0:
            raise TileTypeError(
                f"the truth value of a tile of shape {self.shape} is ambiguous: Python "
                f"'if'/'while'/'and'/'or'/'not' need a 0-d tile (use ct.where, &, | on tiles)")
        return bool(self._scalar("bool(tile)"))

    __hash__ = object.__hash__

    # ---- operators ---------------------------------------------------------------------------
    def __add__(self, o): return _bin(add, self, o)
    def __radd__(self, o): return _bin(add, o, self)
    def __sub__(self, o): return _bin(sub, self, o)
    def __rsub__(self, o): return _bin(sub, o, self)
    def __mul__(self, o): return _bin(mul, self, o)
    def __rmul__(self, o): return _bin(mul, o, self)
    def __truediv__(self, o): return _bin(truediv, self, o)
    def __rtruediv__(self, o): return _bin(truediv, o, self)
    def __floordiv__(self, o): return _bin(floordiv, self, o)
    def __rfloordiv__(self, o): return _bin(floordiv, o, self)
    def __mod__(self, o): return _bin(mod, self, o)
    def __rmod__(self, o): return _bin(mod, o, self)
    def __pow__(self, o): return _bin(pow, self, o)
    def __rpow__(self, o): return _bin(pow, o, self)
    def __and__(self, o): return _bin(bitwise_and, self, o)
    def __rand__(self, o): return _bin(bitwise_and, o, self)
    def __or__(self, o): return _bin(bitwise_or, self, o)
    def __ror__(self, o): return _bin(bitwise_or, o, self)
    def __xor__(self, o): return _bin(bitwise_xor, self, o)
    def __rxor__(self, o): return _bin(bitwise_xor, o, self)
    def __lshift__(self, o): return _bin(bitwise_lshift, self, o)
    def __rlshift__(self, o): return _bin(bitwise_lshift, o, self)
    def __rshift__(self, o): return _bin(bitwise_rshift, self, o)
    def __rrshift__(self, o): return _bin(bitwise_rshift, o, self)
    def __divmod__(self, o): return _bin(divmod_, self, o)
    def __rdivmod__(self, o): return _bin(divmod_, o, self)
    def __ge__(self, o): return _bin(greater_equal, self, o)
    def __gt__(self, o): return _bin(greater, self, o)
    def __le__(self, o): return _bin(less_equal, self, o)
    def __lt__(self, o): return _bin(less, self, o)
    def __eq__(self, o): return _bin(equal, self, o)
    def __ne__(self, o): return _bin(not_equal, self, o)
    def __neg__(self): return negative(self)
    def __pos__(self): return self if not self._dtype.is_bool else astype(self, D.int32)
    def __invert__(self): return bitwise_not(self)
    def __abs__(self): return abs_(self)

    # `x @ y` (`__matmul__`, `__rmatmul__`) is ct.matmul: attached by _ops.py, where matrix
    # products are, so that this module does not import the one that builds on it.

    # ---- printing ----------------------------------------------------------------------------
    def __format__(self, spec):
        return _format_nested(self.tolist(), spec)

    def __str__(self):
        return _format_nested(self.tolist(), "")

    def __repr__(self):
        return f"<tile[{self._dtype}, {self.shape}] {self}>"


_TILE_LIKE = (Tile, bool, int, float)


def _bin(func, a, b):
    if not isinstance(a, _TILE_LIKE) and not _is_number(a):
        return NotImplemented
    if not isinstance(b, _TILE_LIKE) and not _is_number(b):
        return NotImplemented
    return func(a, b)


def _is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, complex)


def _to_python(t: torch.Tensor, d: DType):
    if d.is_bool:
        return t.tolist()
    if d.is_int:
        v = t.to(torch.int64).tolist()
        if d is D.uint64:
            v = _map_nested(v, lambda x: x + 2**64 if x < 0 else x)
        return v
    if t.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        t = t.to(torch.float32)
    return t.tolist()


def _map_nested(v, f):
    if isinstance(v, list):
        return [_map_nested(x, f) for x in v]
    return f(v)


def _format_nested(v, spec):
    if isinstance(v, list):
        return "[" + ", ".join(_format_nested(x, spec) for x in v) + "]"
    if isinstance(v, bool):
        v = int(v)
    return format(v, spec)


# ---------------------------------------------------------------------------------------------
# Operand handling

def _device_of(*xs):
    for x in xs:
        if isinstance(x, Tile):
            return x._t.device
    return STATE.device


def _norm_scalar(v, what):
    """A Python-level number (incl. numpy / 0-d torch scalars) as bool/int/float, else error."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, torch.Tensor) and v.dim() == 0:
        return v.item()
    if _is_number(v):
        if isinstance(v, numbers.Integral):
            return int(v) if not type(v).__name__.startswith("bool") else bool(v)
        return float(v)
    if hasattr(v, "dtype") and hasattr(v, "item") and getattr(v, "shape", None) == ():
        return v.item()     # numpy scalar types
    raise TileTypeError(f"{what}: expected a tile or a scalar, got {type(v).__name__} {v!r}")


def _kind(x, what):
    """The promotion kind of an operand: its DType if a tile, else the normalised scalar."""
    if isinstance(x, Tile):
        return x._dtype
    return _norm_scalar(x, what)


def _tensor(x, d: DType, device):
    """Operand as a representation tensor of dtype ``d`` (no broadcasting)."""
    if isinstance(x, Tile):
        return D.convert(x._t, x._dtype, d)
    return D.scalar_tensor(x, d, device)


def as_tile(x, what="value") -> Tile:
    """Any operand as a Tile (a Python scalar becomes a 0-d tile of its default dtype)."""
    if isinstance(x, Tile):
        return x
    v = _norm_scalar(x, what)
    d = D.dtype_of_loose(v)
    return Tile(D.scalar_tensor(v, d, STATE.device), d)


def _finish(r: torch.Tensor, d: DType) -> torch.Tensor:
    if r.dtype != d.repr_dtype:
        r = r.to(d.repr_dtype)
    if D.needs_mask(d):
        r = D.wrap_unsigned(r, d)
    return r


def _ftz(t: torch.Tensor, enabled: bool) -> torch.Tensor:
    if enabled and t.dtype == torch.float32:
        tiny = torch.finfo(torch.float32).tiny
        return torch.where(t.abs() < tiny, torch.zeros_like(t) * torch.sign(t), t)
    return t


def _check_rounding(rounding_mode, what):
    mode = getattr(rounding_mode, "value", rounding_mode)
    if mode not in (None, "nearest_even", "full", "approx"):
        raise InterpreterUnsupported(f"{what}: rounding_mode={rounding_mode} is not supported by "
                                     f"the interpreter (only the default round-to-nearest)")


# ---------------------------------------------------------------------------------------------
# Binary arithmetic

def _arith(name, x, y, compute, py, *, force_float=False, rounding_mode=None,
           flush_to_zero=False, float_only=False, int_only=False):
    what = f"ct.{name}"
    kx, ky = _kind(x, what), _kind(y, what)
    if not isinstance(kx, DType) and not isinstance(ky, DType):
        return py(kx, ky)
    _check_rounding(rounding_mode, what)
    for k, side in ((kx, "left-hand side"), (ky, "right-hand side")):
        if isinstance(k, DType) and k.restricted:
            raise TileTypeError(f"{what}: {side} has non-arithmetic dtype {k}")
    rd = D.promote(kx, ky, force_float=force_float, what=what)
    if rd.is_bool:
        raise TileTypeError(f"{what}: binary arithmetic does not support bool; cast bool "
                            f"to int first")
    if float_only and not rd.is_float:
        raise TileTypeError(f"{what}: needs float operands, got {rd}")
    if int_only and not rd.is_int:
        raise TileTypeError(f"{what}: needs integer operands, got {rd}")
    dev = _device_of(x, y)
    md = D.math_dtype(rd)
    a = _tensor(x, rd, dev).to(md)
    b = _tensor(y, rd, dev).to(md)
    if flush_to_zero:
        a, b = _ftz(a, True), _ftz(b, True)
    r = compute(a, b, rd)
    r = _ftz(r, flush_to_zero)
    return Tile(_finish(r, rd), rd)


def _safe_int_div(a, b, rd, kind):
    """Integer floor division / floor modulo; division by zero gives an undetermined value."""
    zero = b == 0
    ovf = None
    if rd.signed:
        lo, _ = D.int_range(rd)
        ovf = (a == lo) & (b == -1)
        bad = zero | ovf
    else:
        bad = zero
    if bool(bad.any()):
        b = torch.where(bad, torch.ones_like(b), b)
    if kind == "floordiv":
        r = torch.div(a, b, rounding_mode="floor")
    else:
        r = torch.remainder(a, b)
    if ovf is not None and bool(ovf.any()):
        r = torch.where(ovf, a if kind == "floordiv" else torch.zeros_like(a), r)
    if bool(zero.any()):
        g = garbage(r.shape, rd, r.device).to(r.dtype)
        r = torch.where(zero, g, r)
    return r


def _c_add(a, b, rd): return a + b
def _c_sub(a, b, rd): return a - b
def _c_mul(a, b, rd): return a * b


def _c_truediv(a, b, rd):
    return a / b


def _c_floordiv(a, b, rd):
    if rd.is_float:
        q = (a / b).to(rd.repr_dtype).to(a.dtype)   # x / y rounded to the dtype, then floor
        return torch.floor(q)
    return _safe_int_div(a, b, rd, "floordiv")


def _c_mod(a, b, rd):
    if rd.is_float:
        r = torch.fmod(a, b)                     # exact
        fix = (r != 0) & ((r < 0) != (b < 0))
        return torch.where(fix, r + b, r)        # floor modulo: the sign of the divisor
    return _safe_int_div(a, b, rd, "mod")


def _c_pow(a, b, rd):
    if rd.is_int and bool((b < 0).any()):
        # integer power with a negative exponent: truncated 1 / a**|b|
        pos = torch.pow(a, b.abs())
        one = torch.ones_like(a)
        neg = torch.where(a == 1, one, torch.where(a == -1, torch.where(b % 2 == 0, one, -one),
                                                   torch.zeros_like(a)))
        return torch.where(b < 0, neg, pos)
    return torch.pow(a, b)


def _py_floordiv(x, y):
    return x // y


def add(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    return _arith("add", x, y, _c_add, operator.add, rounding_mode=rounding_mode,
                  flush_to_zero=flush_to_zero)


def sub(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    return _arith("sub", x, y, _c_sub, operator.sub, rounding_mode=rounding_mode,
                  flush_to_zero=flush_to_zero)


def mul(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    return _arith("mul", x, y, _c_mul, operator.mul, rounding_mode=rounding_mode,
                  flush_to_zero=flush_to_zero)


def truediv(x, y, /, *, rounding_mode=None, flush_to_zero=False):
    return _arith("truediv", x, y, _c_truediv, operator.truediv, force_float=True,
                  rounding_mode=rounding_mode, flush_to_zero=flush_to_zero)


def floordiv(x, y, /):
    return _arith("floordiv", x, y, _c_floordiv, _py_floordiv)


def mod(x, y, /):
    kx, ky = _kind(x, "ct.mod"), _kind(y, "ct.mod")
    if kx is D.bool_ and ky is D.bool_:
        raise TileTypeError("ct.mod: modulo does not support bool")
    return _arith("mod", x, y, _c_mod, operator.mod)


def pow(x, y, /):
    return _arith("pow", x, y, _c_pow, operator.pow)


def divmod_(x, y, /):
    kx, ky = _kind(x, "divmod"), _kind(y, "divmod")
    if not isinstance(kx, DType) and not isinstance(ky, DType):
        return builtins.divmod(kx, ky)
    rd = D.promote(kx, ky, what="divmod")
    if rd.is_float:
        raise TileTypeError("divmod: not implemented for floating-point values (as in cuTile)")
    return floordiv(x, y), mod(x, y)


def _minmax(name, x, y, propagate_nan, flush_to_zero, tfunc_nan, tfunc_ignore, py):
    def compute(a, b, rd):
        if rd.is_float:
            return (tfunc_nan if propagate_nan else tfunc_ignore)(a, b)
        return tfunc_nan(a, b)
    return _arith(name, x, y, compute, py, flush_to_zero=flush_to_zero)


def minimum(x, y, /, *, flush_to_zero=False, propagate_nan=False):
    return _minmax("minimum", x, y, propagate_nan, flush_to_zero, torch.minimum, torch.fmin,
                   _py_min)


def maximum(x, y, /, *, flush_to_zero=False, propagate_nan=False):
    return _minmax("maximum", x, y, propagate_nan, flush_to_zero, torch.maximum, torch.fmax,
                   _py_max)


def atan2(x1, x2, /):
    return _arith("atan2", x1, x2, lambda a, b, rd: torch.atan2(a, b), math.atan2,
                  force_float=True)


# ---------------------------------------------------------------------------------------------
# Comparisons

def _compare(name, x, y, tfunc, py):
    what = f"ct.{name}"
    kx, ky = _kind(x, what), _kind(y, what)
    if not isinstance(kx, DType) and not isinstance(ky, DType):
        return py(kx, ky)
    rd = D.promote(kx, ky, what=what)
    dev = _device_of(x, y)
    md = D.math_dtype(rd)
    a = _tensor(x, rd, dev)
    b = _tensor(y, rd, dev)
    if D.needs_mask(rd) or rd.is_bool:
        pass
    elif a.dtype != md:
        a, b = a.to(md), b.to(md)
    return Tile(tfunc(a, b), D.bool_)


def equal(x, y, /): return _compare("equal", x, y, torch.eq, operator.eq)
def not_equal(x, y, /): return _compare("not_equal", x, y, torch.ne, operator.ne)
def less(x, y, /): return _compare("less", x, y, torch.lt, operator.lt)
def less_equal(x, y, /): return _compare("less_equal", x, y, torch.le, operator.le)
def greater(x, y, /): return _compare("greater", x, y, torch.gt, operator.gt)
def greater_equal(x, y, /): return _compare("greater_equal", x, y, torch.ge, operator.ge)


# ---------------------------------------------------------------------------------------------
# Bitwise

def _bitwise(name, x, y, tfunc, py):
    what = f"ct.{name}"
    kx, ky = _kind(x, what), _kind(y, what)
    if not isinstance(kx, DType) and not isinstance(ky, DType):
        return py(kx, ky)
    dx = kx if isinstance(kx, DType) else D.dtype_of_loose(kx)
    dy = ky if isinstance(ky, DType) else D.dtype_of_loose(ky)
    for d in (dx, dy):
        if not (d.is_int or d.is_bool) or d.restricted:
            raise TileTypeError(f"{what}: bitwise operations require integers or booleans, got "
                                f"{d} (use ct.bitcast for float bits)")
    if isinstance(kx, DType) == isinstance(ky, DType) and dx is not dy:
        raise TileTypeError(f"{what}: bitwise operands must have the same dtype, got {dx} "
                            f"and {dy}")
    if {dx, dy} == {D.bool_, D.int8}:
        raise TileTypeError(f"{what}: bitwise op does not support bool and int8")
    rd = D.promote(kx, ky, what=what)
    dev = _device_of(x, y)
    a, b = _tensor(x, rd, dev), _tensor(y, rd, dev)
    return Tile(_finish(tfunc(a, b), rd), rd)


def bitwise_and(x, y, /): return _bitwise("bitwise_and", x, y, torch.bitwise_and, operator.and_)
def bitwise_or(x, y, /): return _bitwise("bitwise_or", x, y, torch.bitwise_or, operator.or_)
def bitwise_xor(x, y, /): return _bitwise("bitwise_xor", x, y, torch.bitwise_xor, operator.xor)


def _shift(name, x, y, left, py):
    what = f"ct.{name}"
    kx, ky = _kind(x, what), _kind(y, what)
    if not isinstance(kx, DType) and not isinstance(ky, DType):
        return py(kx, ky)
    for k, side in ((kx, "left"), (ky, "right")):
        d = k if isinstance(k, DType) else D.dtype_of_loose(k)
        if not d.is_int:
            raise TileTypeError(f"{what}: bitwise shift requires an integer for the {side}-hand "
                                f"side, got {d}")
    rd = D.promote(kx, ky, what=what)
    dev = _device_of(x, y)
    a, b = _tensor(x, rd, dev), _tensor(y, rd, dev)
    a, b = torch.broadcast_tensors(a, b)
    big = (b >= rd.bits) | (b < 0)
    bs = torch.where(big, torch.zeros_like(b), b)
    if left:
        r = torch.bitwise_left_shift(a, bs)
        r = torch.where(big, torch.zeros_like(r), r)
    else:
        r = torch.bitwise_right_shift(a, bs)
        fill = torch.where(a < 0, -torch.ones_like(a), torch.zeros_like(a)) if rd.signed \
            else torch.zeros_like(a)
        r = torch.where(big, fill, r)
    return Tile(_finish(r, rd), rd)


def bitwise_lshift(x, y, /): return _shift("bitwise_lshift", x, y, True, operator.lshift)
def bitwise_rshift(x, y, /): return _shift("bitwise_rshift", x, y, False, operator.rshift)


# ---------------------------------------------------------------------------------------------
# Unary

_TO_FLOAT, _STRICT_FLOAT, _INT_FLOAT, _BOOL_INT, _ANY = range(5)


def _unary(name, x, tfunc, py, behavior, *, rounding_mode=None, flush_to_zero=False):
    what = f"ct.{name}"
    k = _kind(x, what)
    if not isinstance(k, DType):
        return py(k)
    _check_rounding(rounding_mode, what)
    d = k
    if d.restricted:
        raise TileTypeError(f"{what}: unsupported dtype {d}")
    if d.is_bool:
        if behavior in (_TO_FLOAT,):
            x, d = astype(x, D.float32), D.float32
        elif behavior == _INT_FLOAT:
            x, d = astype(x, D.int32), D.int32
        elif behavior in (_BOOL_INT, _ANY):
            pass
        else:
            raise TileTypeError(f"{what}: boolean inputs are not supported")
    elif d.is_int:
        if behavior == _TO_FLOAT:
            x, d = astype(x, D.float32), D.float32
        elif behavior == _STRICT_FLOAT:
            raise TileTypeError(f"{what}: integer inputs are not supported (needs a float tile)")
    elif d.is_float and behavior == _BOOL_INT:
        raise TileTypeError(f"{what}: float inputs are not supported")
    t = x._t
    md = D.math_dtype(d)
    if t.dtype != md and not d.is_bool:
        t = t.to(md)
    t = _ftz(t, flush_to_zero)
    r = _ftz(tfunc(t, d), flush_to_zero)
    return Tile(_finish(r, d), d)


def _py_rsqrt(v):
    return 1.0 / math.sqrt(v)


def _py_exp2(v):
    return 2.0 ** v


def exp(x, /, *, rounding_mode=None):
    return _unary("exp", x, lambda t, d: torch.exp(t), math.exp, _TO_FLOAT,
                  rounding_mode=rounding_mode)


def exp2(x, /, *, flush_to_zero=False):
    return _unary("exp2", x, lambda t, d: torch.exp2(t), _py_exp2, _TO_FLOAT,
                  flush_to_zero=flush_to_zero)


def log(x, /):
    return _unary("log", x, lambda t, d: torch.log(t), math.log, _TO_FLOAT)


def log2(x, /):
    return _unary("log2", x, lambda t, d: torch.log2(t), math.log2, _TO_FLOAT)


def sqrt(x, /, *, rounding_mode=None, flush_to_zero=False):
    return _unary("sqrt", x, lambda t, d: torch.sqrt(t), math.sqrt, _TO_FLOAT,
                  rounding_mode=rounding_mode, flush_to_zero=flush_to_zero)


def rsqrt(x, /, *, flush_to_zero=False):
    return _unary("rsqrt", x, lambda t, d: torch.rsqrt(t), _py_rsqrt, _TO_FLOAT,
                  flush_to_zero=flush_to_zero)


def sin(x, /): return _unary("sin", x, lambda t, d: torch.sin(t), math.sin, _TO_FLOAT)
def cos(x, /): return _unary("cos", x, lambda t, d: torch.cos(t), math.cos, _TO_FLOAT)
def tan(x, /): return _unary("tan", x, lambda t, d: torch.tan(t), math.tan, _TO_FLOAT)
def sinh(x, /): return _unary("sinh", x, lambda t, d: torch.sinh(t), math.sinh, _TO_FLOAT)
def cosh(x, /): return _unary("cosh", x, lambda t, d: torch.cosh(t), math.cosh, _TO_FLOAT)


def tanh(x, /, *, rounding_mode=None):
    return _unary("tanh", x, lambda t, d: torch.tanh(t), math.tanh, _TO_FLOAT,
                  rounding_mode=rounding_mode)


def floor(x, /):
    return _unary("floor", x, lambda t, d: torch.floor(t), math.floor, _STRICT_FLOAT)


def ceil(x, /):
    return _unary("ceil", x, lambda t, d: torch.ceil(t), math.ceil, _STRICT_FLOAT)


def abs_(x, /):
    return _unary("abs", x, lambda t, d: t if d.is_bool else torch.abs(t), _py_abs, _ANY)


def negative(x, /):
    return _unary("negative", x, lambda t, d: torch.neg(t) if d.is_float else torch.zeros_like(t) - t,
                  operator.neg, _INT_FLOAT)


def bitwise_not(x, /):
    def f(t, d):
        return torch.logical_not(t) if d.is_bool else torch.bitwise_not(t)
    # a Python bool stays a bool (cuTile's bitwise not of a bool is `not`; Python's ~True is -2)
    return _unary("bitwise_not", x, f, lambda v: not v if isinstance(v, bool) else ~v,
                  _BOOL_INT)


def isnan(x, /):
    k = _kind(x, "ct.isnan")
    if not isinstance(k, DType):
        return math.isnan(k)
    if k.is_float:
        t = x._t if x._t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) \
            else x._t.to(torch.float32)
        return Tile(torch.isnan(t), D.bool_)
    return Tile(torch.zeros_like(x._t, dtype=torch.bool), D.bool_)


# ---------------------------------------------------------------------------------------------
# astype / where

def astype(x, dtype, /, *, rounding_mode=None):
    d = D.as_dtype(dtype, "ct.astype")
    D.check_representable(d, "ct.astype")
    if rounding_mode is not None:
        src = x._dtype if isinstance(x, Tile) else None
        if not d.is_float or (src is not None and not src.is_float) or (
                src is None and not isinstance(_norm_scalar(x, "ct.astype"), float)):
            raise TileTypeError("ct.astype: rounding_mode is only valid for float to float "
                                "conversions")
        if src is not None and src.name == "float8_e8m0fnu" and getattr(
                rounding_mode, "value", rounding_mode) in ("nearest_away", "negative_inf",
                                                           "positive_inf"):
            raise TileTypeError(f"ct.astype: rounding_mode={rounding_mode} is not supported "
                                f"for conversion from {src} to {d}")
    if isinstance(x, Tile):
        return Tile(D.convert(x._t, x._dtype, d, rounding_mode), d)
    v = _norm_scalar(x, "ct.astype")
    if isinstance(v, float):
        t, src = torch.tensor(v, dtype=torch.float64, device=STATE.device), D.float64
    else:
        src = D.dtype_of_loose(v)
        t = D.scalar_tensor(v, src, STATE.device)
    return Tile(D.convert(t, src, d, rounding_mode), d)


def _dtype_call(self, value=0):
    """``DType.__call__``: ``ct.int32(x)`` converts ``x`` (see the note in DType)."""
    if isinstance(value, str):
        # a constant goes through the category's Python type first (`float32("-inf")`)
        try:
            value = (bool, int, float)[self.category](value)
        except ValueError:
            raise TileTypeError(f"Invalid argument type for {self.name}") from None
    return astype(value, self)


DType.__call__ = _dtype_call


def where(cond, x, y, /):
    what = "ct.where"
    kc = _kind(cond, what)
    if isinstance(kc, DType):
        if not kc.is_bool:
            raise TileTypeError(f"{what}: the condition must be a bool tile, got {kc} "
                                f"(compare it, e.g. cond != 0)")
    elif not isinstance(kc, bool):
        raise TileTypeError(f"{what}: the condition must be a bool tile, got {kc!r}")
    kx, ky = _kind(x, what), _kind(y, what)
    rd = D.promote(kx, ky, what=what)
    dev = _device_of(cond, x, y)
    c = cond._t if isinstance(cond, Tile) else torch.tensor(bool(kc), device=dev)
    a, b = _tensor(x, rd, dev), _tensor(y, rd, dev)
    return Tile(torch.where(c, a, b), rd)


# ---------------------------------------------------------------------------------------------
# Shape manipulation

def _const_int(v, what):
    if isinstance(v, Tile):
        raise TileTypeError(f"{what}: expected a compile-time constant integer, got a tile "
                            f"(a runtime value); pass it as a ct.Constant")
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TileTypeError(f"{what}: expected a constant integer, got {v!r}")
    return int(v)


def const_shape(shape, what, allow_int=True):
    if isinstance(shape, (list, tuple)):
        return tuple(_const_int(s, what) for s in shape)
    if allow_int:
        return (_const_int(shape, what),)
    raise TileTypeError(f"{what}: expected a tuple of constant integers, got {shape!r}")


def check_pow2(shape, what):
    for s in shape:
        if s <= 0 or (s & (s - 1)) != 0:
            raise TileValueError(f"{what}: tile dimensions must be powers of two, got shape "
                                 f"{tuple(shape)}")


def _axis(a, ndim, what):
    a = _const_int(a, what)
    if not -ndim <= a < ndim:
        raise TileValueError(f"{what}: axis {a} is out of range for a tile of rank {ndim}")
    return a % ndim


def _req_tile(x, what):
    if isinstance(x, Tile):
        return x
    if isinstance(x, _TILE_LIKE) or _is_number(x):
        return as_tile(x, what)
    raise TileTypeError(f"{what}: expected a tile, got {type(x).__name__}")


def reshape(x, /, shape):
    what = "ct.reshape"
    x = _req_tile(x, what)
    shape = const_shape(shape, what)
    n = x._t.numel()
    if sum(1 for s in shape if s == -1) > 1:
        raise TileTypeError(f"{what}: only one dimension can be -1, got {shape}")
    if any(s < -1 for s in shape):
        raise TileTypeError(f"{what}: dimensions can only be -1 or non-negative, got {shape}")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or n % known:
            raise TileTypeError(f"{what}: cannot reshape {x.shape} to {shape}")
        shape = tuple(n // known if s == -1 else s for s in shape)
    elif known != n:
        raise TileTypeError(f"{what}: cannot reshape {x.shape} ({n} elements) to {shape}")
    check_pow2(shape, what)
    return Tile(x._t.reshape(shape), x._dtype)


def permute(x, /, axes):
    what = "ct.permute"
    x = _req_tile(x, what)
    axes = const_shape(axes, what)
    if sorted(a % x.ndim if x.ndim else a for a in axes) != list(range(x.ndim)) \
            or len(axes) != x.ndim:
        raise TileValueError(f"{what}: axes {axes} is not a permutation of the {x.ndim} axes "
                             f"of a tile of shape {x.shape}")
    return Tile(x._t.permute(*[a % x.ndim for a in axes]), x._dtype)


def transpose(x, /, axis0=None, axis1=None):
    what = "ct.transpose"
    x = _req_tile(x, what)
    if axis0 is None and axis1 is None:
        if x.ndim != 2:
            raise TileValueError(f"{what}: a tile of rank {x.ndim} needs axis0 and axis1 "
                                 f"(only 2-d tiles transpose by default)")
        axis0, axis1 = 0, 1
    elif axis0 is None or axis1 is None:
        raise TileValueError(f"{what}: give both axis0 and axis1")
    a0, a1 = _axis(axis0, x.ndim, what), _axis(axis1, x.ndim, what)
    return Tile(x._t.transpose(a0, a1), x._dtype)


def expand_dims(x, /, axis):
    what = "ct.expand_dims"
    x = _req_tile(x, what)
    a = _const_int(axis, what)
    if not -(x.ndim + 1) <= a <= x.ndim:
        raise TileValueError(f"{what}: axis {a} is out of range for a tile of rank {x.ndim}")
    return Tile(x._t.unsqueeze(a % (x.ndim + 1)), x._dtype)


def _expand_dims_sugar(x, index):
    what = "tile[...] (expand_dims sugar)"
    if not isinstance(index, tuple):
        index = (index,)
    n_ell = sum(1 for i in index if i is Ellipsis)
    n_dims = sum(1 for i in index if isinstance(i, slice))
    if n_ell > 1:
        raise TileTypeError(f"{what}: at most one '...' is allowed")
    new_index = []
    for i in index:
        if i is Ellipsis:
            new_index.extend([slice(None)] * (x.ndim - n_dims))
        elif i is None:
            new_index.append(None)
        elif isinstance(i, slice):
            if i != slice(None):
                raise TileTypeError(f"{what}: only ':' slices are supported, got {i}")
            new_index.append(i)
        else:
            raise TileTypeError(f"{what}: tiles can only be indexed with None and ':' to add "
                                f"axes, got {i!r}; use ct.extract to take a sub-tile")
    if sum(1 for i in new_index if isinstance(i, slice)) > x.ndim:
        raise TileTypeError(f"{what}: too many ':' for a tile of rank {x.ndim}")
    return Tile(x._t[tuple(new_index)], x._dtype)


def broadcast_to(x, /, shape):
    what = "ct.broadcast_to"
    x = _req_tile(x, what)
    shape = const_shape(shape, what)
    try:
        t = torch.broadcast_to(x._t, shape)
    except RuntimeError:
        raise TileTypeError(f"{what}: cannot broadcast a tile of shape {x.shape} to "
                            f"{shape}") from None
    return Tile(t, x._dtype)


def cat(tiles, /, axis):
    what = "ct.cat"
    if not isinstance(tiles, (tuple, list)) or len(tiles) != 2:
        raise TileTypeError(f"{what}: expects a pair of tiles")
    a, b = (_req_tile(t, what) for t in tiles)
    if a.shape != b.shape:
        raise TileTypeError(f"{what}: the two tiles must have the same shape, got {a.shape} "
                            f"and {b.shape}")
    if a._dtype is not b._dtype:
        raise TileTypeError(f"{what}: the two tiles must have the same dtype, got {a._dtype} "
                            f"and {b._dtype}")
    ax = _axis(axis, a.ndim, what)
    return Tile(torch.cat([a._t, b._t], dim=ax), a._dtype)


def _subtile_slices(x, index, shape, what):
    if not isinstance(index, (tuple, list)):
        index = (index,)
    if len(index) != x.ndim or len(shape) != x.ndim:
        raise TileTypeError(f"{what}: index {tuple(index)} and shape {tuple(shape)} must have "
                            f"the rank of the tile ({x.ndim})")
    sl = []
    for d, (i, s) in enumerate(zip(index, shape)):
        if s <= 0 or x.shape[d] % s:
            raise TileValueError(f"{what}: shape {tuple(shape)} must evenly divide the tile "
                                 f"shape {x.shape}")
        i = int(i)
        if not 0 <= i < x.shape[d] // s:
            raise TileValueError(f"{what}: index {i} along axis {d} is out of range "
                                 f"[0, {x.shape[d] // s})")
        sl.append(slice(i * s, (i + 1) * s))
    return tuple(sl)


def extract(x, /, index, shape):
    what = "ct.extract"
    x = _req_tile(x, what)
    shape = const_shape(shape, what)
    if shape == () and x.ndim > 0:
        # a 0-d extract is one element: subtiles of shape (1, ...), the result reshaped to ()
        sl = _subtile_slices(x, index, (1,) * x.ndim, what)
        return Tile(x._t[sl].reshape(()).clone(), x._dtype)
    sl = _subtile_slices(x, index, shape, what)
    return Tile(x._t[sl].clone(), x._dtype)


def insert(x, /, index, value):
    what = "ct.insert"
    x = _req_tile(x, what)
    if isinstance(value, Tile):
        v = value
    else:
        v = Tile(_tensor(value, x._dtype, x._t.device), x._dtype)
    vt = D.convert(v._t, v._dtype, x._dtype)
    shape = v.shape if v.ndim else (1,) * x.ndim
    sl = _subtile_slices(x, index, shape, what)
    out = x._t.clone()
    out[sl] = vt.reshape(shape)
    return Tile(out, x._dtype)
