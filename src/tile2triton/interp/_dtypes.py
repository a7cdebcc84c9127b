"""cuTile data types on top of torch, and cuTile's type-promotion rules.

Every cuTile dtype has a *representation* torch dtype: the dtype of the torch tensor that holds
a tile's values.  It is the matching torch dtype except:

* ``uint16`` / ``uint32`` are held in ``torch.int64`` (torch's unsigned types beyond uint8 lack
  most CPU kernels); values are kept in ``[0, 2**bits)`` by masking after every operation.
* ``uint64`` is held in ``torch.int64`` as a bit pattern (arithmetic wraps correctly, but
  comparisons, division and right shifts of values >= 2**63 are wrong: a known gap).
* ``tfloat32`` is held in ``torch.float32`` with the mantissa rounded to 10 bits.

Promotion (facts from cuda/tile/_datatype.py and cuda/tile/_ir/ops_utils.py):

* categories: bool < integer < float.  Across categories the higher category's dtype wins.
* within integers: same signedness -> the wider; mixing signed and unsigned is an error.
* within floats: the wider; float16 with bfloat16 is an error.
* restricted floats (tfloat32, float8*, float4) never promote implicitly.
* a Python scalar (a "loosely typed" constant) takes the tile's dtype when both are in the same
  category (an int constant must fit the tile's integer dtype), otherwise the float side wins
  (a Python float is float32, a Python int is int32, or int64 if it does not fit).
* ``force_float`` (true division): a non-float result becomes float32.
"""

from __future__ import annotations

import torch

from ._errors import TileTypeError, TileValueError, InterpreterUnsupported

BOOL, INT, FLOAT = 0, 1, 2


class DType:
    """A cuTile data type (``ct.float16`` ...).  Calling it converts a value: ``ct.int32(x)``."""

    __slots__ = ("name", "category", "bits", "signed", "restricted", "torch_dtype", "repr_dtype",
                 "_math")

    def __init__(self, name, category, bits, signed, restricted, torch_dtype, repr_dtype):
        self.name = name
        self.category = category
        self.bits = bits
        self.signed = signed
        self.restricted = restricted
        self.torch_dtype = torch_dtype      # the torch dtype of arrays of this dtype (or None)
        self.repr_dtype = repr_dtype        # the torch dtype of tiles of this dtype (or None)

    @property
    def bitwidth(self):
        return self.bits

    @property
    def is_float(self):
        return self.category == FLOAT

    @property
    def is_int(self):
        return self.category == INT

    @property
    def is_bool(self):
        return self.category == BOOL

    def __repr__(self):
        return f"<DType '{self.name}'>"

    def __eq__(self, other):
        if isinstance(other, DType):
            return other is self
        # a numpy dtype (`.dtype` of a numpy scalar the kernel closes over) is the cuTile
        # dtype of its name, as cuTile types such a scalar
        if type(other).__module__.startswith("numpy") and isinstance(
                getattr(other, "name", None), str):
            return other.name == ("bool" if self.name == "bool_" else self.name)
        return NotImplemented

    __hash__ = object.__hash__

    def __str__(self):
        return self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    # Calling a dtype (`ct.int32(x)`) is a conversion, so `__call__` is attached by _tile.py,
    # where conversions are: this module depends on nothing in interp/ but _errors.


def _dtype_by_name(name):
    return ALL_DTYPES[name]


def _opt(name):
    return getattr(torch, name, None)


bool_ = DType("bool_", BOOL, 8, False, False, torch.bool, torch.bool)
uint8 = DType("uint8", INT, 8, False, False, torch.uint8, torch.uint8)
uint16 = DType("uint16", INT, 16, False, False, _opt("uint16"), torch.int64)
uint32 = DType("uint32", INT, 32, False, False, _opt("uint32"), torch.int64)
uint64 = DType("uint64", INT, 64, False, False, _opt("uint64"), torch.int64)
int8 = DType("int8", INT, 8, True, False, torch.int8, torch.int8)
int16 = DType("int16", INT, 16, True, False, torch.int16, torch.int16)
int32 = DType("int32", INT, 32, True, False, torch.int32, torch.int32)
int64 = DType("int64", INT, 64, True, False, torch.int64, torch.int64)
float16 = DType("float16", FLOAT, 16, True, False, torch.float16, torch.float16)
bfloat16 = DType("bfloat16", FLOAT, 16, True, False, torch.bfloat16, torch.bfloat16)
float32 = DType("float32", FLOAT, 32, True, False, torch.float32, torch.float32)
float64 = DType("float64", FLOAT, 64, True, False, torch.float64, torch.float64)
tfloat32 = DType("tfloat32", FLOAT, 32, True, True, None, torch.float32)
float8_e4m3fn = DType("float8_e4m3fn", FLOAT, 8, True, True, _opt("float8_e4m3fn"),
                      _opt("float8_e4m3fn"))
float8_e5m2 = DType("float8_e5m2", FLOAT, 8, True, True, _opt("float8_e5m2"), _opt("float8_e5m2"))
float8_e8m0fnu = DType("float8_e8m0fnu", FLOAT, 8, False, True, _opt("float8_e8m0fnu"),
                       _opt("float8_e8m0fnu"))
float8_e5m3fnu = DType("float8_e5m3fnu", FLOAT, 8, False, True, None, None)
float4_e2m1fn = DType("float4_e2m1fn", FLOAT, 4, True, True, None, None)
foreign_pointer_dtype = DType("foreign_pointer", INT, 64, False, True, None, None)

ALL_DTYPES = {d.name: d for d in (
    bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, bfloat16, float32,
    float64, tfloat32, float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float8_e5m3fnu, float4_e2m1fn)}

_FROM_TORCH = {}
for _d in ALL_DTYPES.values():
    if _d.torch_dtype is not None and _d is not tfloat32:
        _FROM_TORCH.setdefault(_d.torch_dtype, _d)

#: float dtypes whose elementwise arithmetic is computed in float32 and rounded back
_NARROW_FLOATS = {float16, bfloat16, float8_e4m3fn, float8_e5m2, float8_e8m0fnu}


def from_torch(tdtype) -> DType:
    try:
        return _FROM_TORCH[tdtype]
    except KeyError:
        raise TileTypeError(f"torch dtype {tdtype} has no cuTile equivalent") from None


def _from_numpy(d) -> DType | None:
    """numpy scalar types (np.float32) and dtype objects (np.dtype("float16")), which cuTile
    accepts wherever it takes a dtype."""
    mod = type(d).__module__ if not isinstance(d, type) else d.__module__
    if not mod.startswith("numpy"):
        return None
    import numpy as np
    try:
        nd = np.dtype(d)
    except TypeError:
        return None
    name = "bool_" if nd.kind == "b" else nd.name
    return ALL_DTYPES.get(name)


def as_dtype(d, what="dtype") -> DType:
    """Accept every dtype spelling cuTile accepts: a ct dtype, a torch dtype, a numpy scalar type
    or dtype object, or a dtype object of the real cuda.tile (by name). Python's own types and
    strings are not dtypes for cuTile either."""
    if isinstance(d, DType):
        return d
    if isinstance(d, torch.dtype):
        return from_torch(d)
    found = _from_numpy(d)
    if found is not None:
        return found
    name = getattr(d, "name", None)
    if isinstance(name, str) and name in ALL_DTYPES and not isinstance(d, (str, type)):
        return ALL_DTYPES[name]       # e.g. a dtype object of the real cuda.tile
    raise TileTypeError(f"{what}: expected a cuTile dtype, got {d!r}")


def check_representable(d: DType, what: str):
    if d.repr_dtype is None:
        raise InterpreterUnsupported(f"{what}: dtype {d} is not supported by the interpreter "
                                     f"(torch has no representation for it)")


def math_dtype(d: DType):
    """The torch dtype elementwise arithmetic of ``d`` is computed in."""
    if d in _NARROW_FLOATS:
        return torch.float32
    return d.repr_dtype


def int_range(d: DType):
    if d.signed:
        return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1
    return 0, (1 << d.bits) - 1


def needs_mask(d: DType) -> bool:
    """uint16/uint32 live in int64 and must be wrapped to their width after arithmetic."""
    return d is uint16 or d is uint32


def wrap_unsigned(t: torch.Tensor, d: DType) -> torch.Tensor:
    if needs_mask(d):
        return t & ((1 << d.bits) - 1)
    return t


# ---------------------------------------------------------------------------------------------
# Python scalars ("loosely typed" constants)

def is_loose(v) -> bool:
    return isinstance(v, (bool, int, float))


def dtype_of_loose(v) -> DType:
    if isinstance(v, bool):
        return bool_
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return int32
        if -2**63 <= v < 2**63:
            return int64
        if 0 <= v < 2**64:
            return uint64
        raise TileValueError(f"Constant {v} is out of range of any supported integer type")
    if isinstance(v, float):
        return float32
    raise TileTypeError(f"Python value {v!r} of type {type(v).__name__} is not a cuTile scalar")


# ---------------------------------------------------------------------------------------------
# Promotion

def promote_typed(t1: DType, t2: DType, force_float=False, what="operation") -> DType:
    if t1 is t2 and (not force_float or t1.is_float):
        return t1
    if t1.restricted or t2.restricted:
        raise TileTypeError(
            f"{what}: implicit promotion of {t1} and {t2} is not supported as it involves "
            f"restricted float dtypes; use an explicit astype")
    if t1.category != t2.category:
        ret = t1 if t1.category > t2.category else t2
    elif t1 is t2:
        ret = t1
    elif t1.category == INT:
        if t1.signed != t2.signed:
            raise TileTypeError(f"{what}: implicit promotion of {t1} and {t2} (signed with "
                                f"unsigned) is not supported; use an explicit astype")
        ret = t1 if t1.bits >= t2.bits else t2
    else:  # FLOAT
        if {t1, t2} == {float16, bfloat16}:
            raise TileTypeError(f"{what}: implicit promotion of float16 and bfloat16 is not "
                                f"supported; use an explicit astype")
        ret = t1 if t1.bits >= t2.bits else t2
    if force_float and not ret.is_float:
        ret = float32
    return ret


def promote_with_loose(t: DType, v, force_float=False, what="operation") -> DType:
    lt = dtype_of_loose(v)
    cat = t.category
    if lt.category == cat:
        ret = t
        if cat == INT and not force_float:
            lo, hi = int_range(t)
            if not lo <= v <= hi:
                raise TileValueError(f"{what}: integer constant {v} is out of range of {t}")
    else:
        ret = lt if lt.category > cat else t
    if force_float and not ret.is_float:
        ret = float32
    return ret


def promote(a, b, force_float=False, what="operation") -> DType:
    """Promote two operand kinds, each a DType (typed) or a Python scalar (loose)."""
    a_loose = not isinstance(a, DType)
    b_loose = not isinstance(b, DType)
    if a_loose and b_loose:
        return promote_typed(dtype_of_loose(a), dtype_of_loose(b), force_float, what)
    if a_loose:
        return promote_with_loose(b, a, force_float, what)
    if b_loose:
        return promote_with_loose(a, b, force_float, what)
    return promote_typed(a, b, force_float, what)


def check_implicit_cast(src, dst: DType, what: str):
    """cuTile's implicit cast (store, scatter, padding values): only value-preserving widening."""
    if not isinstance(src, DType):
        v = src
        scat = dtype_of_loose(v).category
        if dst.is_bool:
            if scat not in (BOOL, INT) or v not in (0, 1):
                raise TileTypeError(f"{what}: cannot implicitly cast {v!r} to {dst}")
        elif scat > dst.category:
            raise TileTypeError(f"{what}: cannot implicitly cast {v!r} to {dst}")
        elif scat == INT and dst.is_int:
            lo, hi = int_range(dst)
            if not lo <= v <= hi:
                raise TileValueError(f"{what}: {v} is out of range of {dst}")
        return
    if src is dst:
        return
    try:
        common = promote_typed(src, dst)
    except (TileTypeError, TileValueError):
        common = None
    if common is not dst:
        raise TileTypeError(f"{what}: cannot implicitly cast {src} to {dst}; "
                            f"use an explicit astype")


# ---------------------------------------------------------------------------------------------
# Conversions between representations

def round_to_tf32(t: torch.Tensor) -> torch.Tensor:
    """Round float32 values to the nearest tf32 value (10 explicit mantissa bits, ties to even)."""
    t = t.to(torch.float32).contiguous()
    bits = t.view(torch.int32).to(torch.int64)
    lsb = (bits >> 13) & 1
    rounded = (bits + 0x0FFF + lsb) & ~0x1FFF
    rounded = torch.where(rounded >= 2**31, rounded - 2**32, rounded)
    out = rounded.to(torch.int32).view(torch.float32)
    return torch.where(torch.isfinite(t), out, t)


def _float_to_int(t: torch.Tensor, dst: DType) -> torch.Tensor:
    """Round toward zero, saturate to the dtype's range, NaN -> 0 (the GPU's cvt.rzi.sat)."""
    v = torch.trunc(t.to(torch.float64))
    v = torch.nan_to_num(v, nan=0.0)
    lo, hi = int_range(dst)
    if dst.bits == 64:
        big = v >= float(2**63) if dst.signed else v >= float(2**64)
        small = v < float(lo)
        mid = torch.where(big | small, torch.zeros_like(v), v)
        if dst.signed:
            out = mid.to(torch.int64)
            out = torch.where(big, torch.full_like(out, hi), out)
            out = torch.where(small, torch.full_like(out, lo), out)
        else:  # uint64 as a bit pattern in int64
            out = torch.where(mid >= float(2**63), mid - float(2**64), mid).to(torch.int64)
            out = torch.where(big, torch.full_like(out, -1), out)
            out = torch.where(small, torch.zeros_like(out), out)
        return out
    v = v.clamp(float(lo), float(hi))
    return v.to(torch.int64).to(dst.repr_dtype)


def _nudge_toward(r: torch.Tensor, exact: torch.Tensor, mode) -> torch.Tensor:
    """Turn a round-to-nearest result ``r`` into a directed rounding of ``exact``."""
    back = r.to(torch.float64)
    if mode == "zero":
        bad = back.abs() > exact.abs()
        target = torch.zeros_like(r)
    elif mode == "negative_inf":
        bad = back > exact
        target = torch.full_like(r, float("-inf"))
    elif mode == "positive_inf":
        bad = back < exact
        target = torch.full_like(r, float("inf"))
    elif mode == "nearest_away":
        # from the result toward zero: one ulp away where |exact| reaches the midpoint (not
        # from `r`, which torch may have rounded twice, through float32)
        z = _nudge_toward(r, exact, "zero")
        away = torch.where(exact < 0, float("-inf"), float("inf")).to(r.dtype)
        up = torch.nextafter(z, away)
        za, ua = z.to(torch.float64).abs(), up.to(torch.float64).abs()
        below = torch.nextafter(z, torch.zeros_like(z)).to(torch.float64).abs()
        ulp = torch.where(torch.isinf(ua), za - below, ua - za)
        return torch.where(exact.abs() >= za + ulp / 2, up, z)
    else:
        raise InterpreterUnsupported(f"astype: rounding mode {mode!r} is not supported by the "
                                     f"interpreter")
    # an overflow to inf steps back to the largest finite value where the mode says so (IEEE)
    if r.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return torch.where(bad, torch.nextafter(r, target), r)
    raise InterpreterUnsupported(f"astype: directed rounding to {r.dtype} is not supported")


def convert(t: torch.Tensor, src: DType, dst: DType, rounding=None) -> torch.Tensor:
    """Convert a representation tensor of dtype ``src`` to the representation of ``dst``."""
    if src is dst:
        return t
    check_representable(dst, "astype")
    mode = getattr(rounding, "value", rounding)
    if mode in (None, "nearest_even", "full", "approx"):
        mode = None
    if dst.is_bool:
        return t != 0
    if src.is_bool:
        out = t.to(dst.repr_dtype)
        return round_to_tf32(out) if dst is tfloat32 else out
    if dst.is_int:
        if src.is_float:
            return _float_to_int(t, dst)
        out = t.to(torch.int64) if needs_mask(dst) else t.to(dst.repr_dtype)
        return wrap_unsigned(out, dst)
    # dst is float
    if src.is_int and src is uint64:
        t = torch.where(t < 0, t.to(torch.float64) + 2.0**64, t.to(torch.float64))
    if dst is tfloat32:
        src32 = t.to(torch.float32)
        if mode is not None:
            # RA through float32 rounded toward zero, which keeps each value on its side of a
            # tfloat32 midpoint (RA twice could move one onto it)
            src32 = _nudge_toward(src32, t.to(torch.float64),
                                  "zero" if mode == "nearest_away" else mode)
        return round_to_tf32(src32) if mode is None else _tf32_directed(src32, mode)
    out = t.to(dst.repr_dtype)
    if mode is not None:
        out = _nudge_toward(out, t.to(torch.float64), mode)
    return out


def _tf32_directed(t: torch.Tensor, mode) -> torch.Tensor:
    bits = t.contiguous().view(torch.int32).to(torch.int64)
    if mode == "nearest_away":      # a carry into bit 13 where the dropped bits are half or more
        away = (bits + 0x1000) & ~0x1FFF
        away = torch.where(away >= 2**31, away - 2**32, away).to(torch.int32).view(torch.float32)
        return torch.where(torch.isfinite(t), away, t)
    trunc = (bits & ~0x1FFF)
    trunc = torch.where(trunc >= 2**31, trunc - 2**32, trunc).to(torch.int32).view(torch.float32)
    return _nudge_toward_grid(trunc, t, mode)


def _nudge_toward_grid(trunc, exact, mode):
    if mode == "zero":
        return trunc
    # one tfloat32 ulp: 10 mantissa bits below the leading one, 2**-136 among subnormals
    step = torch.ldexp(torch.ones_like(exact), (torch.frexp(exact)[1] - 11).clamp(min=-136))
    up = trunc + torch.sign(exact) * step
    if mode == "negative_inf":
        return torch.where((exact < 0) & (trunc != exact), up, trunc)
    if mode == "positive_inf":
        return torch.where((exact > 0) & (trunc != exact), up, trunc)
    raise InterpreterUnsupported(f"astype: rounding mode {mode!r} is not supported")


def to_repr_from_array(t: torch.Tensor, d: DType) -> torch.Tensor:
    """Array element tensor (torch dtype of the array) -> tile representation."""
    if t.dtype == d.repr_dtype:
        return t
    if d is uint64:
        return t.view(torch.int64) if t.is_contiguous() else t.contiguous().view(torch.int64)
    return t.to(d.repr_dtype)


def to_array_from_repr(t: torch.Tensor, d: DType, tdtype) -> torch.Tensor:
    """Tile representation -> tensor of the array's torch dtype."""
    if t.dtype == tdtype:
        return t
    if d is uint64:
        return t.contiguous().view(tdtype)
    return t.to(tdtype)


def scalar_tensor(v, d: DType, device) -> torch.Tensor:
    """A Python scalar as a 0-d representation tensor of dtype ``d``."""
    check_representable(d, "constant")
    if d.is_bool:
        return torch.tensor(bool(v), dtype=torch.bool, device=device)
    if d.is_int:
        if isinstance(v, float):
            return _float_to_int(torch.tensor(v, dtype=torch.float64), d).to(device)
        v = int(v)
        if d is uint64 and v >= 2**63:
            v -= 2**64
        elif needs_mask(d):
            v &= (1 << d.bits) - 1
        elif d.signed:
            lo, hi = int_range(d)
            v = ((v - lo) % (1 << d.bits)) + lo
        else:
            v &= (1 << d.bits) - 1
        return torch.tensor(v, dtype=d.repr_dtype, device=device)
    if d is tfloat32:
        return round_to_tf32(torch.tensor(float(v), dtype=torch.float32)).to(device)
    if d.repr_dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return torch.tensor(float(v), dtype=d.repr_dtype, device=device)
    return torch.tensor(float(v), dtype=torch.float32, device=device).to(d.repr_dtype)
