"""Reading a construct's arguments, in one place for every pattern: arrays, tile-space and
per-element indices, axes, shapes and compile-time values (bools, ints, dtypes). Each reader
returns what the lowering needs or raises the located diagnostic a user should see."""
from __future__ import annotations

from tile2triton.model import (ArrayV, ConstExprV, ConstV, DTypeV, EnumV, Lowered, NoneV, TileV,
                               TupleV)

from ._common import broadcast_shapes, dtype_of, is_float


# ---------------------------------------------------------------- tuples and shapes


def tuple_items(low: Lowered) -> list:
    """Lowered items of a tuple expression (or tuple constant)."""
    if low.items is not None:
        return low.items
    v = low.val
    if isinstance(v, ConstV) and isinstance(v.value, tuple):
        return [Lowered(repr(x), ConstV(x)) for x in v.value]
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


# ---------------------------------------------------------------- compile-time values


def const_value(call, param: str, cx, kinds=(int,)):
    low = call.arg(param)
    if not isinstance(low.val, ConstV) or not isinstance(low.val.value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise cx.error(call.node_of(param), "T2T103",
                       f"ct.{call.name}: `{param}` must be a literal {names}",
                       help="this argument is compile-time in cuTile; write it as a literal or "
                            "a module-level constant")
    return low.val.value


def const_bool(call, cx, param):
    """A compile-time bool argument: its Python value, or the name of a constexpr parameter."""
    low = call.arg(param)
    if isinstance(low.val, ConstV) and isinstance(low.val.value, bool):
        return low.val.value
    if isinstance(low.val, ConstExprV):
        return low.code
    raise cx.error(call.node_of(param), "T2T103",
                   f"ct.{call.name}: `{param}` must be a compile-time bool",
                   help="write True or False (or pass a ct.Constant[bool] parameter)")


def check_bounds_code(call, cx):
    """`check_bounds` as a helper keyword value: None for the default True, else "False" or the
    ct.Constant[bool] parameter's name."""
    cb = const_bool(call, cx, "check_bounds")
    return None if cb is True else str(cb)


def check_bounds_kw(call, cx) -> list:
    cb = const_bool(call, cx, "check_bounds")
    return [] if cb is True else [f"CHECK_BOUNDS={cb}"]


def dtype_arg(call, param: str, cx) -> DTypeV:
    low = call.arg(param)
    if not isinstance(low.val, DTypeV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` must be a cuTile dtype such as ct.float32",
                       help="write ct.float16, ct.float32, ..., or `array.dtype`")
    return low.val


# ---------------------------------------------------------------- axes


def axis_arg(call, cx, rank, param="axis"):
    """One compile-time axis, made non-negative."""
    low = call.arg(param)
    if not isinstance(low.val, ConstV) or not isinstance(low.val.value, int) \
            or isinstance(low.val.value, bool):
        raise cx.error(call.node_of(param), "T2T103",
                       f"ct.{call.name}: `{param}` must be an int literal",
                       help="the axis is compile-time in cuTile")
    axis = low.val.value
    if axis < 0:
        if rank is None:
            raise cx.error(call.node_of(param), "T2T105",
                           f"ct.{call.name}: negative axis on a tile whose rank is unknown here",
                           help="use a non-negative axis, or give the tile a known rank")
        axis += rank
    return axis


def axis_list(call, param: str, cx, rank, negative_ok: bool = False):
    """Normalized non-negative axes of a reduction: None -> all, int -> [int], tuple -> sorted.
    With `negative_ok`, axes all negative on a tile of unknown rank are kept as they are,
    sorted from the first axis (Triton counts a negative axis from the end, and reducing an
    axis leaves the later ones' negative numbers unchanged)."""
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
        if rank is None and negative_ok and all(a < 0 for a in axes):
            return sorted(set(axes))
        if rank is None:
            raise cx.error(call.node_of(param), "T2T105",
                           f"ct.{call.name}: negative axis on a tile whose rank is unknown here",
                           help="use a non-negative axis, or give the tile a known rank")
        axes = [a + rank if a < 0 else a for a in axes]
    return sorted(set(axes))


def launch_axes(call, param: str, cx, rank):
    """Reduction axes that ct.Constant[int] parameters give (`axis=(a1, a2)`), known only per
    launch: (the axes as written, each as Triton code, and each made non-negative as a Triton
    constexpr expression, `(a1 % 3)`), or None where no axis is such a parameter (axis_list
    reads those). Triton specializes on the parameters, so the expressions fold per launch;
    the tile's rank must be known here, to make the axes non-negative."""
    low = call.arg(param)
    v = low.val
    if isinstance(v, ConstExprV):
        items = [low]
    elif isinstance(v, TupleV) and v.known:
        items = tuple_items(low) or []
    else:
        return None

    def literal(it):
        return isinstance(it.val, ConstV) and isinstance(it.val.value, int) \
            and not isinstance(it.val.value, bool)

    if not any(isinstance(it.val, ConstExprV) for it in items) or not all(
            literal(it) or isinstance(it.val, ConstExprV) and it.val.kind == "int"
            for it in items):
        return None
    if rank is None:
        raise cx.error(call.node_of(param), "T2T105",
                       f"ct.{call.name}: axes given by ct.Constant parameters on a tile whose "
                       "rank is unknown here",
                       help="give the tile a known rank, or write the axes as literals")
    written = [repr(it.val.value) if literal(it) else it.code for it in items]
    return written, [str(it.val.value % rank) if literal(it) else f"({it.code} % {rank})"
                     for it in items]


# ---------------------------------------------------------------- arrays and indices


def array_arg(call, cx, param="array", zero_d=False):
    """The ArrayInfo of the array argument, with a diagnostic when the parameter was not
    recognized as an array (or its rank is unknown, or is 0 and `zero_d` is not allowed)."""
    low = call.arg(param)
    if not isinstance(low.val, ArrayV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` must be an array parameter",
                       help="pass the kernel's array parameter itself (not a tile or an expression); "
                            "a parameter used only by "
                            "gather/scatter/atomics is recognized as an array when it is "
                            "annotated `ct.Array` or its `.shape` is read in the kernel")
    info = low.val.info
    if info.rank is None:
        raise cx.error(call.node_of(param), "T2T104",
                       f"ct.{call.name}: the rank of array `{info.name}` is unknown here",
                       help="unpack its shape (`M, N = x.shape`) or index it with ct.load/ct.store")
    if info.rank == 0 and not zero_d:
        raise cx.error(call.node_of(param), "T2T100",
                       f"ct.{call.name} on a 0-d array is not translated",
                       help="use a 1-element 1-D array")
    return info


def array_order(call, cx, rank):
    """The permutation `order=` applies to array axes ("C", "F" or a tuple)."""
    low = call.arg("order")
    v = low.val
    if isinstance(v, ConstV) and v.value == "C":
        return list(range(rank))
    if isinstance(v, ConstV) and v.value == "F":
        return list(reversed(range(rank)))
    items = tuple_items(low) if isinstance(v, (TupleV, ConstV)) else None
    if items is None or not all(isinstance(i.val, ConstV) and isinstance(i.val.value, int)
                                for i in items):
        raise cx.error(call.node_of("order"), "T2T103",
                       f'ct.{call.name}: `order` must be "C", "F" or a tuple of int literals',
                       help='write order="C", order="F" or a tuple of axis numbers such as (1, 0)')
    perm = [i.val.value for i in items]
    if sorted(perm) != list(range(rank)):
        raise cx.error(call.node_of("order"), "T2T102",
                       f"ct.{call.name}: order {tuple(perm)} is not a permutation of the "
                       f"array's {rank} axes",
                       help="list every axis of the array once, e.g. (1, 0) for a 2-D array")
    return perm


def tile_index(call, cx, rank):
    """A tile-space index (ct.load/ct.store): one scalar per array dimension, lowered."""
    low = call.arg("index")
    items = tuple_items(low) if isinstance(low.val, TupleV) else [low]
    if len(items) != rank:
        raise cx.error(call.node_of("index"), "T2T105",
                       f"ct.{call.name}: index has {len(items)} entries but the array has rank "
                       f"{rank}", help="give one tile index per array dimension")
    for it in items:
        if isinstance(it.val, TileV) and it.val.shape not in (None, ()):
            raise cx.error(call.node_of("index"), "T2T102",
                           f"ct.{call.name}: tile indices must be scalars, not tiles",
                           help="use ct.gather / ct.scatter for per-element indices")
    return items


def tile_index_codes(call, cx, rank):
    return [it.code for it in tile_index(call, cx, rank)]


def element_indices(call, cx, rank):
    """Per-element indices (gather/scatter/atomics): one integer tile or scalar per array
    dimension; their codes and broadcast shape."""
    low = call.arg("indices")
    node = call.node_of("indices")
    if isinstance(low.val, TupleV) or (isinstance(low.val, ConstV)
                                       and isinstance(low.val.value, tuple)):
        items = tuple_items(low)
        if items is None:
            raise cx.error(node, "T2T103", f"ct.{call.name}: the number of indices must be "
                           "known at translation time", help="write the indices as a tuple")
    else:
        items = [low]
        if rank != 1:
            raise cx.error(node, "T2T105",
                           f"ct.{call.name}: a single index tile addresses a 1-D array, but the "
                           f"array has rank {rank}",
                           help=f"pass a tuple of {rank} index tiles, one per dimension")
    if len(items) != rank:
        raise cx.error(node, "T2T105",
                       f"ct.{call.name}: {len(items)} indices for an array of rank {rank}",
                       help="give one index tile (or scalar) per array dimension")
    shape = ()
    for it in items:
        v = it.val
        if isinstance(v, (ArrayV, NoneV, EnumV)) or (isinstance(v, ConstV) and (
                not isinstance(v.value, int) or isinstance(v.value, bool))) \
                or isinstance(v, TupleV) or is_float(dtype_of(it)):
            raise cx.error(node, "T2T102", f"ct.{call.name}: indices must be integer tiles or "
                           "integer scalars", help="convert float indices with .astype(ct.int32)")
        s = v.shape if isinstance(v, TileV) else (() if isinstance(v, (ConstV, ConstExprV))
                                                   else None)
        shape = broadcast_shapes(shape, s)
    return [it.code for it in items], shape


# ---------------------------------------------------------------- tiles


def require_tile(call, param: str, cx) -> Lowered:
    low = call.arg(param)
    if isinstance(low.val, ArrayV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` is an array; load a tile from it first",
                       help="use ct.load(array, index, shape) to get a tile")
    return low


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
