"""Compile-time Python that cuTile evaluates inside kernels: `math`, numpy and torch names.

cuTile runs the Python of a kernel at compile time wherever the values are constants, so real
kernels use `math.pi`, `1.0 / math.log(2)`, `ct.arange(n, dtype=torch.int32)` or `np.float32`.
The translator evaluates the same names here: math constants and math functions of constants
fold to numbers, numpy and torch dtypes become cuTile dtypes. Nothing here emits Triton for
these modules; a math function of a value known only at launch becomes a Triton math call.
"""
from __future__ import annotations

import math
import operator
from typing import Optional

# the modules whose names kernels may read (the qualified name an import resolves to)
PY_MODULES = ("math", "numpy", "torch", "cupy",  # cupy re-exports numpy's scalar types
              "operator")

# `operator.<fn>` -> the cuTile construct of the same Python operator (cuTile gives the
# operator functions their operators' meaning on tiles and folds them on constants)
OPERATOR_FUNCTIONS = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv", "floordiv": "floordiv",
    "mod": "mod", "pow": "pow", "and_": "bitwise_and", "or_": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "bitwise_lshift", "rshift": "bitwise_rshift",
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal",
    "ne": "not_equal", "neg": "negative", "invert": "bitwise_not",
}

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf,
                  "nan": math.nan}
# the same constants as numpy (and cupy, which re-exports them) and torch spell them
# (`-np.inf` as a mask fill in attention)
_NUMPY_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
                    "euler_gamma": 0.5772156649015329, "Inf": math.inf, "NaN": math.nan,
                    "NINF": -math.inf, "PINF": math.inf}
_MODULE_CONSTANTS = {
    "math": MATH_CONSTANTS,
    "numpy": _NUMPY_CONSTANTS,
    "cupy": _NUMPY_CONSTANTS,
    "torch": {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan},
}

# math functions folded on constants; those with a Triton spelling also work on runtime values
MATH_FUNCTIONS = {
    "sqrt": "tl.sqrt", "log": "tl.log", "log2": "tl.log2", "exp": "tl.exp", "exp2": "tl.exp2",
    "sin": "tl.sin", "cos": "tl.cos", "floor": "tl.floor", "ceil": "tl.ceil", "fabs": "tl.abs",
    "log10": None, "log1p": None, "expm1": None, "tan": None, "atan": None, "asin": None,
    "acos": None, "atan2": None, "pow": None, "hypot": None, "trunc": None, "isqrt": None,
    "gcd": None, "lcm": None, "factorial": None, "copysign": None, "fmod": None,
    "radians": None, "degrees": None, "isinf": None, "isnan": None, "isfinite": None,
    "prod": None, "comb": None, "perm": None, "ulp": None,
}

# numpy / torch dtype attribute -> cuTile dtype name
_NP_DTYPES = {
    "bool_": "bool_", "bool": "bool_", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
    "uint64": "uint64", "float16": "float16", "half": "float16", "float32": "float32",
    "single": "float32", "float64": "float64", "double": "float64",
}
_TORCH_DTYPES = {
    "bool": "bool_", "int8": "int8", "int16": "int16", "short": "int16", "int32": "int32",
    "int": "int32", "int64": "int64", "long": "int64", "uint8": "uint8", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64", "float16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "float32": "float32", "float": "float32", "float64": "float64",
    "double": "float64", "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "float8_e8m0fnu": "float8_e8m0fnu", "float4_e2m1fn_x2": None,
}


def dtype_name(qualname: str) -> Optional[str]:
    """'float32' for `numpy.float32` / `torch.float32` (and their aliases), else None."""
    module, _, attr = qualname.partition(".")
    if module in ("numpy", "cupy"):
        return _NP_DTYPES.get(attr)
    if module == "torch":
        return _TORCH_DTYPES.get(attr)
    return None


def math_constant(qualname: str):
    """The value of `math.pi`, `np.inf`, `torch.pi` etc., or None."""
    module, _, attr = qualname.partition(".")
    return _MODULE_CONSTANTS.get(module, {}).get(attr)


def dtype_cast(kind: str, value, bits: int = 64, name: str = "float64"):
    """`np.float32(v)` / `ct.int16(v)` / `torch.float32(v)` on a constant, as cuTile folds it:
    a float dtype keeps the number as a float, an integer dtype truncates toward zero and wraps
    to its width (`ct.uint32(-3) == 2**32 - 3`), giving a strictly typed constant whose later
    arithmetic wraps too; bool_ tests it; with no argument, zero of the kind."""
    if kind == "bool":
        return bool(value) if value is not None else False
    if kind in ("int", "uint"):
        return TypedInt.of(int(value) if value is not None else 0, bits, kind == "int")
    if value is None:
        return 0.0
    return round_float(float(value), name)


def round_float(value: float, name: str) -> float:
    """`value` rounded to float dtype `name` (to nearest, as torch converts; cuTile's constant
    of that dtype holds the rounded number: `ct.float16(0.2)` is 0.199951171875)."""
    if name in ("float64", "tfloat32") or math.isnan(value) or math.isinf(value):
        return value
    import torch
    dt = getattr(torch, name, None)
    if dt is None:
        return value
    return torch.tensor(value, dtype=torch.float64).to(dt).to(torch.float64).item()


class TypedInt(int):
    """A strictly typed integer constant (`ct.uint8(150)`): an int to everything else (shapes,
    ranges, generated literals), but arithmetic between typed and plain constants wraps to its
    width and signedness, as cuTile's constant folding does (`ct.uint8(150) + ct.uint8(110)
    == 4`)."""
    bits: int
    signed: bool

    @classmethod
    def of(cls, value: int, bits: int, signed: bool) -> "TypedInt":
        value &= (1 << bits) - 1
        if signed and value >= 1 << (bits - 1):
            value -= 1 << bits
        out = int.__new__(cls, value)
        out.bits, out.signed = bits, signed
        return out

    def _typed(self, other, fn):
        if isinstance(other, float) or isinstance(other, bool):
            return fn(int(self), other)
        if not isinstance(other, int):
            return NotImplemented
        bits, signed = self.bits, self.signed
        if isinstance(other, TypedInt) and (other.bits, other.signed) != (bits, signed):
            # two typed constants: the wider type; of one width, the unsigned one (C's rule)
            if other.bits > bits:
                bits, signed = other.bits, other.signed
            elif other.bits == bits:
                signed = False
        result = fn(int(self), int(other))
        return TypedInt.of(result, bits, signed) if isinstance(result, int) else result

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


def _binary(fn):
    return (lambda self, other: self._typed(other, fn),
            lambda self, other: self._typed(other, lambda a, b: fn(b, a)))


for _name, _fn in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("floordiv", operator.floordiv), ("mod", operator.mod),
                   ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor),
                   ("lshift", operator.lshift), ("rshift", operator.rshift)):
    _f, _r = _binary(_fn)
    setattr(TypedInt, f"__{_name}__", _f)
    setattr(TypedInt, f"__r{_name}__", _r)
TypedInt.__neg__ = lambda self: TypedInt.of(-int(self), self.bits, self.signed)
TypedInt.__invert__ = lambda self: TypedInt.of(~int(self), self.bits, self.signed)
TypedInt.__pos__ = lambda self: self
TypedInt.__abs__ = lambda self: TypedInt.of(abs(int(self)), self.bits, self.signed)


def math_function(qualname: str) -> Optional[str]:
    """The function name for `math.<fn>` that kernels may call, or None."""
    module, _, attr = qualname.partition(".")
    if module == "math" and attr in MATH_FUNCTIONS:
        return attr
    return None


def fold_math(fn: str, args: list):
    """Evaluate math.<fn>(*args) on Python constants, as cuTile does at compile time."""
    if fn in ("factorial", "comb", "perm") and any(
            isinstance(a, int) and a > 10_000 for a in args):
        # the result has tens of thousands of digits: minutes to compute, and no kernel can
        # hold it (found by the fuzzer: math.factorial(10**6) took 110 s)
        raise OverflowError("the result is far too large")
    return getattr(math, fn)(*args)
