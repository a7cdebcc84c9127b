"""Element indexing shared by ct.gather / ct.scatter and the atomics.

These constructs address single elements: `indices` is a tuple with one integer tile (or scalar)
per array dimension, all broadcasting to one common shape, or a bare tile for a 1-D array. The
element pointer is `ptr + sum(index_d * stride_d)`; with bounds checking an element takes part
only where every `0 <= index_d < shape_d` (a negative index is out of bounds: cuTile reads the
index as unsigned, it never wraps around as Python does).
"""
from tile2triton.pattern_api import DeviceHelper

# Index normalization: a literal index arrives in a @triton.jit helper as a constexpr and an
# int8/int16 tile would overflow when multiplied by a stride, so every index becomes a tensor of
# at least 32 bits, and 64 bits when the launcher chose 64-bit offsets (USE_INT64).
ELEM_INDEX = DeviceHelper("_elem_index", '''
@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)
''')


def dims(prefix: str, rank: int) -> str:
    return ", ".join(f"{prefix}{d}" for d in range(rank))


def offsets_lines(rank: int, indent: str = "    ") -> str:
    """Source lines computing `i<d>` (normalized indices) and `offs` (element offsets) from the
    helper's `index` and `stride` tuples."""
    lines = [f"{indent}i{d} = _elem_index(index[{d}], USE_INT64)" for d in range(rank)]
    lines.append(f"{indent}offs = " + " + ".join(f"i{d} * stride[{d}]" for d in range(rank)))
    return "\n".join(lines)


def in_bounds_expr(rank: int) -> str:
    return " & ".join(f"(i{d} >= 0) & (i{d} < shape[{d}])" for d in range(rank))


def tuple_code(items) -> str:
    items = [str(i) for i in items]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def abi(info, idx) -> list:
    """The element helpers' leading arguments: the pointer, then the array's shape, its strides
    and the element indices, each a tuple (one entry per axis: the signature stays one line)."""
    return [info.pointer, tuple_code(info.shape(d) for d in range(info.rank)),
            tuple_code(info.stride(d) for d in range(info.rank)), tuple_code(idx)]
