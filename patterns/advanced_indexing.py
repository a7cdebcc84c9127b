"""ct.load_advanced_indexing / ct.store_advanced_indexing: one gathered dimension, the others dense.

`indices` has one entry per array dimension: exactly one 1-D integer tile (the sparse dimension,
whose values are element indices along it) and `ct.Slice(start, length)` for every other one
(elements `start .. start + length - 1`, `length` a compile-time power of two). The result has
the sparse tile's length on the sparse dimension and each slice's length on the others.

Both lower to the element-indexed helpers of ct.gather / ct.scatter: the sparse tile and each
`start + tl.arange(0, length)` are given their own axis (`[:, None]`, `[None, :]`, ...) so they
broadcast to the result shape. Out-of-bounds elements, on any dimension, read the padding value
(0 where the padding is undetermined) and are not written, which is what cuTile specifies.
"""
import libcst as cst

from tile2triton.model import USE_INT64, ArrayV, ConstExprV, ConstV, Lowered, NoneV, TileV
from tile2triton.pattern_api import Example, Pattern

from ._args import array_arg
from ._common import dtype_of, is_float
from ._indexing import abi
from .gather_scatter import GATHER, SCATTER
from .load_store import padding_value


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def advanced_indices(call, cx, rank):
    """Per-dimension index codes, each given its own axis, and the result shape."""
    node = call.syntax("indices")
    where = call.node_of("indices")
    what = f"ct.{call.name}"
    if not isinstance(node, cst.Tuple):
        raise cx.error(where, "T2T103", f"{what}: `indices` must be written as a tuple "
                       "(one sparse index tile and ct.Slice(start, length) entries)",
                       help="write the tuple at the call, e.g. (rows, ct.Slice(0, COLS))")
    elems = [e.value for e in node.elements]
    if any(isinstance(e, cst.StarredElement) for e in node.elements):
        raise cx.error(where, "T2T103", f"{what}: starred entries in `indices` are not "
                       "translated", help="write one entry per array dimension")
    if len(elems) != rank:
        raise cx.error(where, "T2T105", f"{what}: {len(elems)} indices do not match array rank "
                       f"{rank}", help="give one entry per array dimension")
    entries = []                     # ("slice", start_code, length_code, length) | ("tile", low)
    for e in elems:
        if isinstance(e, cst.Call) and cx.resolve(e.func) == "cuda.tile.Slice":
            args = [a for a in e.args]
            if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
                raise cx.error(e, "T2T102", "ct.Slice takes two positional arguments: "
                               "ct.Slice(start, length)", help="write ct.Slice(start, length)")
            start = cx.expr(args[0].value)
            length = cx.expr(args[1].value)
            if isinstance(start.val, TileV) and start.val.shape not in (None, ()) or \
                    isinstance(start.val, ConstV) and not isinstance(start.val.value, int) or \
                    is_float(dtype_of(start)):
                raise cx.error(args[0].value, "T2T102",
                               "ct.Slice: `start` must be an integer scalar",
                               help="pass an integer scalar as the start")
            if isinstance(length.val, ConstV) and isinstance(length.val.value, int) \
                    and not isinstance(length.val.value, bool):
                if not _power_of_two(length.val.value):
                    raise cx.error(args[1].value, "T2T105", "ct.Slice: the length must be a "
                                   f"power of two, got {length.val.value}",
                                   help="use a power-of-two length, as cuTile requires")
            elif not isinstance(length.val, ConstExprV):
                raise cx.error(args[1].value, "T2T103", "ct.Slice: the length must be a "
                               "compile-time constant",
                               help="use a literal or a ct.Constant[int] parameter")
            entries.append(("slice", start, length))
        else:
            low = cx.expr(e)
            v = low.val
            if not isinstance(v, TileV) or is_float(dtype_of(low)):
                raise cx.error(e, "T2T102", f"{what}: exactly one index must be a 1D integer "
                               "Tile; the others ct.Slice(start, length)",
                               help="index with one 1-D integer tile and ct.Slice(start, length) "
                                    "for the other axes")
            if v.shape is not None and len(v.shape) != 1:
                raise cx.error(e, "T2T105", f"{what}: the sparse index must be a 1D integer "
                               f"Tile, this one has rank {len(v.shape)}",
                               help="reshape the index tile to 1-D first")
            entries.append(("tile", low))
    if sum(1 for k in entries if k[0] == "tile") != 1:
        raise cx.error(where, "T2T102", f"{what}: exactly one index must be a 1D integer Tile "
                       "(the sparse dimension); the others ct.Slice(start, length)",
                       help="index with one 1-D integer tile and ct.Slice(start, length) for the "
                            "other axes")
    codes, shape = [], []
    for d, ent in enumerate(entries):
        axes = ", ".join(":" if k == d else "None" for k in range(rank))
        if ent[0] == "tile":
            low = ent[1]
            code = low.wrap(100)
            shape.append(low.val.shape[0] if low.val.shape else None)
        else:
            start, length = ent[1], ent[2]
            code = f"({start.wrap(11)} + tl.arange(0, {length.code}))"
            shape.append(length.val.value if isinstance(length.val, ConstV) else length.code)
        codes.append(code if rank == 1 else f"{code}[{axes}]")
    return codes, tuple(shape)


class LoadAdvancedIndexing(Pattern):
    constructs = ("load_advanced_indexing",)
    array_param, index_param = "array", "indices"
    summary = "load rows (or columns, ...) chosen by an index tile, dense slices elsewhere"
    triton = ("masked tl.load through `_gather_{rank}d`, the index tile and each "
              "`start + tl.arange(0, length)` broadcast on their own axes")

    def signature(array, indices, /, *, padding_mode=None, latency=None, allow_tma=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, ROWS: ct.Constant[int], COLS: ct.Constant[int], c0):
    rows = ct.arange(ROWS, dtype=ct.int32) * 2
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(c0, COLS)),
                                  padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, (0, 0), t)
""", expect=["_gather_2d(x_ptr, (x_shape0, x_shape1), (x_stride0, x_stride1), (rows[:, None], "
             "(c0 + tl.arange(0, COLS))[None, :]), USE_INT64, PADDING=float(\"-inf\"))"]),
        Example("""
@ct.kernel
def k(x, y):
    t = ct.load_advanced_indexing(x, (ct.Slice(0, 4), ct.Slice(1, 4)))
    ct.store(y, (0, 0), t)
""", error="T2T102", message="exactly one index must be a 1D integer Tile"),
        Example("""
@ct.kernel
def k(x, y):
    rows = ct.arange(4, dtype=ct.int32)
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(0, 3)))
    ct.store(y, (0, 0), t)
""", error="T2T105", message="power of two"),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        idx, shape = advanced_indices(call, cx, info.rank)
        pad = padding_value(call, cx)
        kw = [] if pad in (None, "0.0") else [f"PADDING={pad}"]
        name = cx.need(GATHER, rank=info.rank)
        cx.note_tile(shape)
        args = abi(info, idx) + [USE_INT64] + kw
        return Lowered(f"{name}({', '.join(args)})", TileV(shape=shape))


class StoreAdvancedIndexing(Pattern):
    constructs = ("store_advanced_indexing",)
    array_param, index_param = "array", "indices"
    summary = "store rows (or columns, ...) chosen by an index tile, dense slices elsewhere"
    triton = ("masked tl.store through `_scatter_{rank}d`; out-of-bounds elements are not "
              "written")

    def signature(array, indices, tile, /, *, latency=None, allow_tma=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(y, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    rows = ct.arange(ROWS, dtype=ct.int32) + 1
    ct.store_advanced_indexing(y, (rows, ct.Slice(0, COLS)), ct.full((ROWS, COLS), 1, y.dtype))
""", expect=["_scatter_2d(y_ptr, (y_shape0, y_shape1), (y_stride0, y_stride1), (rows[:, None], "
             "(0 + tl.arange(0, COLS))[None, :]), "]),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        idx, _ = advanced_indices(call, cx, info.rank)
        value = call.arg("tile")
        if isinstance(value.val, (ArrayV, NoneV)):
            raise cx.error(call.node_of("tile"), "T2T102",
                           "ct.store_advanced_indexing: the value must be a tile or a scalar",
                           help="load a tile from an array first")
        name = cx.need(SCATTER, rank=info.rank)
        args = abi(info, idx) + [value.code, USE_INT64]
        return Lowered(f"{name}({', '.join(args)})", NoneV())
