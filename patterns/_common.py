"""Small helpers shared by patterns (argument checking and static shape/dtype reasoning)."""
from __future__ import annotations

from tile2triton.model import (FLOAT_DTYPES, INT_DTYPES, PROMOTION_ORDER, ArrayV, ConstExprV, ConstV, DTypeV,
                               Lowered, TileV, TupleV)


def tuple_items(low: Lowered) -> list:
    """Lowered items of a tuple expression (or tuple constant)."""
    items = getattr(low, "items", None)
    if items is not None:
        return items
    v = low.val
    if isinstance(v, ConstV) and isinstance(v.value, tuple):
        return [Lowered(repr(x), ConstV(x)) for x in v.value]
    names = getattr(low, "names", None)
    if names is not None:
        return [Lowered(n, i) for n, i in zip(names, v.items)]
    if isinstance(v, TupleV) and v.items:  # a name bound to a tuple: index into it
        return [Lowered(repr(i.value), i) if isinstance(i, ConstV) and not isinstance(
            i.value, tuple) else Lowered(f"{low.code}[{k}]", i) for k, i in enumerate(v.items)]
    return None


def static_shape(call, param: str, cx, allow_scalar=True) -> list:
    """A tile shape argument as a list of source strings; must be compile-time."""
    low = call.arg(param)
    node = call.node_of(param)
    items = tuple_items(low) if isinstance(low.val, (TupleV, ConstV)) else None
    if items is None:
        if allow_scalar and isinstance(low.val, (ConstV, ConstExprV)) and not isinstance(
                getattr(low.val, "value", 0), tuple):
            items = [low]
        else:
            raise cx.error(node, "T2T103", f"ct.{call.name}: `{param}` must be a compile-time "
                           "shape (a tuple of constants or ct.Constant parameters)",
                           help="tile shapes are compile-time in both cuTile and Triton")
    out = []
    for it in items:
        if not isinstance(it.val, (ConstV, ConstExprV)):
            raise cx.error(node, "T2T103", f"ct.{call.name}: every entry of `{param}` must be a "
                           "compile-time constant",
                           help="use literals or ct.Constant[int] parameters")
        out.append(it.code)
    return out


def shape_code(dims: list) -> str:
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def const_value(call, param: str, cx, kinds=(int,)):
    low = call.arg(param)
    if not isinstance(low.val, ConstV) or not isinstance(low.val.value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise cx.error(call.node_of(param), "T2T103",
                       f"ct.{call.name}: `{param}` must be a literal {names}",
                       help="this argument is compile-time in cuTile; write it as a literal or "
                            "a module-level constant")
    return low.val.value


def require_tile(call, param: str, cx) -> Lowered:
    low = call.arg(param)
    if isinstance(low.val, ArrayV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` is an array; load a tile from it first",
                       help="use ct.load(array, index, shape) to get a tile")
    return low


def dtype_arg(call, param: str, cx) -> DTypeV:
    low = call.arg(param)
    if not isinstance(low.val, DTypeV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` must be a cuTile dtype such as ct.float32",
                       help="write ct.float16, ct.float32, ..., or `array.dtype`")
    return low.val


def dtype_of(low: Lowered):
    v = low.val
    if isinstance(v, TileV):
        return v.dtype
    if isinstance(v, ConstV):
        if isinstance(v.value, bool):
            return "bool_"
        if isinstance(v.value, int):
            return "weak_int"
        if isinstance(v.value, float):
            return "weak_float"
    return None


def is_float(d) -> bool:
    return d in FLOAT_DTYPES or d == "weak_float"


def is_int(d) -> bool:
    return d in INT_DTYPES or d == "weak_int"


_RANK = PROMOTION_ORDER


def promote(a, b):
    """Static result dtype of a binary op when both are known (None otherwise)."""
    if "scalar_param" in (a, b):
        # a runtime scalar parameter (fp32 or an int in Triton): fp32/fp64 tiles keep their dtype
        other = b if a == "scalar_param" else a
        return other if other in ("float32", "float64") else None
    if a is None or b is None:
        return None
    if a == b:
        return None if a.startswith("weak") else a
    if a.startswith("weak") and not b.startswith("weak"):
        a, b = b, a
    if b.startswith("weak"):  # python scalar: the tile's dtype wins within its category
        if b == "weak_float" and not is_float(a):
            return "float32"
        return a
    if a == "tfloat32" or b == "tfloat32":
        return "float32"
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    if a in _RANK and b in _RANK:
        return max(a, b, key=_RANK.index)
    return None


def broadcast_shapes(s1, s2):
    if s1 is None or s2 is None:
        return None
    out = []
    for i in range(max(len(s1), len(s2))):
        d1 = s1[len(s1) - 1 - i] if i < len(s1) else 1
        d2 = s2[len(s2) - 1 - i] if i < len(s2) else 1
        if str(d1) == "1":
            out.append(d2)
        elif str(d2) == "1" or str(d1) == str(d2):
            out.append(d1)
        else:
            out.append(d1)  # unknown relation of symbolic sizes: keep the left
    return tuple(reversed(out))


def tile_shape(low: Lowered):
    v = low.val
    if isinstance(v, TileV):
        return v.shape
    if isinstance(v, (ConstV, ConstExprV)):
        return ()
    return None


def axis_list(call, param: str, cx, rank):
    """Normalized non-negative axes of a reduction: None -> all, int -> [int], tuple -> sorted."""
    low = call.arg(param)
    v = low.val
    if isinstance(v, ConstV) and v.value is None or low.code == "None":
        return None
    if isinstance(v, ConstV) and isinstance(v.value, int):
        axes = [v.value]
    elif isinstance(v, ConstV) and isinstance(v.value, tuple):
        axes = list(v.value)
    elif isinstance(v, TupleV) and all(isinstance(i, ConstV) for i in v.items):
        axes = [i.value for i in v.items]
    else:
        raise cx.error(call.node_of(param), "T2T103",
                       f"ct.{call.name}: `{param}` must be None, an int or a tuple of ints",
                       help="reduction axes are compile-time in cuTile")
    if any(a < 0 for a in axes):
        if rank is None:
            raise cx.error(call.node_of(param), "T2T105",
                           f"ct.{call.name}: negative axis on a tile whose rank is unknown here")
        axes = [a + rank if a < 0 else a for a in axes]
    return sorted(set(axes))


# rounding modes that change results: Triton's arithmetic and conversions round to nearest even
# and take no other mode. APPROX and FULL only allow a less exact result than RN, so the exact
# operation is a faithful translation of them.
DIRECTED_ROUNDING = ("RZ", "RM", "RP", "RA", "RZI")


def reject_directed_rounding(call, cx, param="rounding_mode"):
    """T2T106 for `rounding_mode=` RZ/RM/RP/RA/RZI, which Triton cannot express."""
    if not call.has(param):
        return
    v = call.val(param)
    if getattr(v, "enum", None) == "RoundingMode" and v.member in DIRECTED_ROUNDING:
        raise cx.error(call.node_of(param), "T2T106",
                       f"ct.{call.name}: rounding_mode=RoundingMode.{v.member} has no Triton "
                       "equivalent", help="Triton rounds to nearest even (RoundingMode.RN); "
                                          "drop the argument or round explicitly")
