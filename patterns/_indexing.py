"""Element indexing shared by ct.gather / ct.scatter and the atomics.

These constructs address single elements: `indices` is a tuple with one integer tile (or scalar)
per array dimension, all broadcasting to one common shape, or a bare tile for a 1-D array. The
element pointer is `ptr + sum(index_d * stride_d)`; with bounds checking an element takes part
only where every `0 <= index_d < shape_d` (a negative index is out of bounds: cuTile reads the
index as unsigned, it never wraps around as Python does).
"""
from tile2triton.model import ArrayV, ConstExprV, ConstV, EnumV, NoneV, TileV, TupleV

from ._common import broadcast_shapes, dtype_of, is_float, tuple_items

# Index normalization: a literal index arrives in a @triton.jit helper as a constexpr and an
# int8/int16 tile would overflow when multiplied by a stride, so every index becomes a tensor of
# at least 32 bits, and 64 bits when the launcher chose 64-bit offsets (USE_INT64).
ELEM_INDEX_SOURCE = '''
@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of at least 32 bits (64 bits when
    the launcher chose 64-bit offsets), ready to be multiplied by a stride."""
    if USE_INT64:
        return tl.cast(index, tl.int64)
    else:
        return index + tl.zeros((), tl.int32)
'''


def dims(prefix: str, rank: int) -> str:
    return ", ".join(f"{prefix}{d}" for d in range(rank))


def offsets_lines(rank: int, indent: str = "    ") -> str:
    """Source lines computing `i<d>` (normalized indices) and `offs` (element offsets)."""
    lines = [f"{indent}i{d} = _elem_index(index{d}, USE_INT64)" for d in range(rank)]
    lines.append(f"{indent}offs = " + " + ".join(f"i{d} * stride{d}" for d in range(rank)))
    return "\n".join(lines)


def in_bounds_expr(rank: int) -> str:
    return " & ".join(f"(i{d} >= 0) & (i{d} < shape{d})" for d in range(rank))


def array_arg(call, cx, param="array"):
    """The ArrayInfo of the array argument, with a diagnostic when the parameter was not
    recognized as an array (or its rank is unknown)."""
    low = call.arg(param)
    if not isinstance(low.val, ArrayV):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: the first argument must be an array parameter",
                       help="pass the kernel's array parameter itself; a parameter used only by "
                            "gather/scatter/atomics is recognized as an array when it is "
                            "annotated `ct.Array` or its `.shape` is read in the kernel")
    info = low.val.info
    if info.rank is None:
        raise cx.error(call.node_of(param), "T2T104",
                       f"ct.{call.name}: the rank of array `{info.name}` is unknown here",
                       help="unpack its shape (`M, N = x.shape`) or index it with ct.load/ct.store")
    if info.rank == 0:
        raise cx.error(call.node_of(param), "T2T100",
                       f"ct.{call.name} on a 0-d array is not translated",
                       help="use a 1-element 1-D array")
    return info


def index_args(call, cx, rank):
    """The index expressions (one per array dimension) and their broadcast shape."""
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


def check_bounds_kw(call, cx) -> list:
    cb = const_bool(call, cx, "check_bounds")
    return [] if cb is True else [f"CHECK_BOUNDS={cb}"]


def abi(info) -> list:
    return [info.pointer] + [info.shape(d) for d in range(info.rank)] + \
        [info.stride(d) for d in range(info.rank)]
