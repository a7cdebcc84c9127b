"""ct.gather / ct.scatter: element-indexed loads and stores.

`ct.gather(x, (i, j))` reads `x[i, j]` elementwise, the index tiles broadcasting to the result
shape; `ct.scatter(x, (i, j), v)` writes `v` there. Out-of-bounds indices (negative ones too)
read `padding_value` / are not written unless `check_bounds=False`; a user `mask` is ANDed in.
Each lowers to one masked tl.load / tl.store on `ptr + sum(index_d * stride_d)`, through a
`_gather_{rank}d` / `_scatter_{rank}d` helper the pattern emits itself.
"""
from tile2triton.model import USE_INT64, ArrayV, ConstV, Lowered, NoneV, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import array_arg, check_bounds_kw, element_indices
from ._indexing import ELEM_INDEX, abi, in_bounds_expr, offsets_lines


def gather_source(rank: int) -> str:
    # MASK=True (no mask) and CHECK_BOUNDS=False give an all-true constant mask, which Triton
    # drops when it compiles: one tl.load serves every case
    return f'''
@triton.jit
def _gather_{rank}d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0, CHECK_BOUNDS=True):
    """ct.gather: ptr[index], the index tiles broadcast together; PADDING where an index is out
    of bounds (negative ones included) or MASK is False."""
{offsets_lines(rank)}
    ok = {in_bounds_expr(rank)} & MASK if CHECK_BOUNDS else MASK
    return tl.load(ptr + offs, mask=ok, other=PADDING)
'''


def scatter_source(rank: int) -> str:
    return f'''
@triton.jit
def _scatter_{rank}d(ptr, shape, stride, index, value, USE_INT64, MASK=True, CHECK_BOUNDS=True):
    """ct.scatter: `value` (broadcast, cast to the array's dtype) to ptr[index], except where an
    index is out of bounds (negative ones included) or MASK is False."""
{offsets_lines(rank)}
    ok = {in_bounds_expr(rank)} & MASK if CHECK_BOUNDS else MASK
    tl.store(ptr + offs, value, mask=ok)
'''


def mask_kw(call, cx) -> list:
    if not call.has("mask"):
        return []
    m = call.arg("mask")
    if isinstance(m.val, NoneV):
        return []
    if isinstance(m.val, ConstV) and m.val.value is True:
        return []
    if isinstance(m.val, ArrayV):
        raise cx.error(call.node_of("mask"), "T2T102", f"ct.{call.name}: `mask` must be a "
                       "boolean tile or scalar, not an array",
                       help="pass a boolean tile (e.g. a comparison) or scalar as the mask")
    return [f"MASK={m.code}"]


GATHER = DeviceHelper("_gather_{rank}d", gather_source, requires=(ELEM_INDEX,))
SCATTER = DeviceHelper("_scatter_{rank}d", scatter_source, requires=(ELEM_INDEX,))


class Gather(Pattern):
    constructs = ("gather",)
    array_param, index_param = "array", "indices"
    summary = "load elements at per-element indices (mask, padding_value, check_bounds)"
    triton = ("masked tl.load on `ptr + sum(idx_d * stride_d)` through `_gather_{rank}d`; "
              "`tl.load(ptr)` on a 0-d array")

    def signature(array, indices, /, *, mask=None, padding_value=0, check_bounds=True,
                  latency=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(table, ids, out, D: ct.Constant[int]):
    V, E = table.shape
    tok = ct.load(ids, (ct.bid(0),), (1,))
    rows = ct.reshape(tok, (1, 1))
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    ct.store(out, (ct.bid(0), 0), ct.gather(table, (rows, cols)))
""", expect=["def _elem_index(index, USE_INT64: tl.constexpr):",
             "def _gather_2d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0,",
             "_gather_2d(table_ptr, (table_shape0, table_shape1), (table_stride0, table_stride1), "
             "(rows, cols), USE_INT64)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    n = x.shape[0]
    i = ct.arange(TILE, dtype=ct.int32) * 2 - 3
    t = ct.gather(x, i, mask=i < 100, padding_value=-1.0, check_bounds=False)
    ct.store(y, (0,), t)
""", expect=["_gather_1d(x_ptr, (x_shape0,), (x_stride0,), (i,), USE_INT64, MASK=i < 100, "
             "PADDING=-1.0, CHECK_BOUNDS=False)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    M, N = x.shape
    i = ct.arange(TILE, dtype=ct.int32)
    ct.store(y, (0,), ct.gather(x, i))
""", error="T2T105", message="rank"),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    M, N = x.shape
    i = ct.arange(TILE, dtype=ct.float32)
    ct.store(y, (0,), ct.gather(x, (i, i)))
""", error="T2T102", message="indices must be integer"),
        Example("""
@ct.kernel
def k(x, y):
    v = ct.gather(x, ())
    ct.scatter(y, (), v * 2 + 1)
""", expect=["v = tl.load(x_ptr)", "tl.store(y_ptr, v * 2 + 1)"]),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx, zero_d=True)
        idx, shape = element_indices(call, cx, info.rank)
        kw = mask_kw(call, cx)
        pad = call.arg("padding_value")
        if isinstance(pad.val, ArrayV):
            raise cx.error(call.node_of("padding_value"), "T2T102",
                           "ct.gather: `padding_value` must be a scalar or a tile",
                           help="pass a scalar or a tile as padding_value")
        if info.rank == 0:       # the one element, always in bounds
            mask = kw[0][len("MASK="):] if kw else None
            code = f"tl.load({info.pointer})" if mask is None else \
                f"tl.load({info.pointer}, mask={mask}, other={pad.code})"
            return Lowered(code, TileV(shape=()))
        name = cx.need(GATHER, rank=info.rank)
        if not (isinstance(pad.val, ConstV) and pad.val.value == 0
                and not isinstance(pad.val.value, bool)):
            kw.append(f"PADDING={pad.code}")
        kw += check_bounds_kw(call, cx)
        cx.note_tile(shape)
        args = abi(info, idx) + [USE_INT64] + kw
        return Lowered(f"{name}({', '.join(args)})", TileV(shape=shape))


class Scatter(Pattern):
    constructs = ("scatter",)
    array_param, index_param = "array", "indices"
    summary = "store elements at per-element indices (mask, check_bounds)"
    triton = ("masked tl.store on `ptr + sum(idx_d * stride_d)` through `_scatter_{rank}d`; "
              "`tl.store(ptr, value)` on a 0-d array")

    def signature(array, indices, value, /, *, mask=None, check_bounds=True, latency=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    n = y.shape[0]
    i = ct.arange(TILE, dtype=ct.int32)
    v = ct.load(x, (0,), (TILE,))
    ct.scatter(y, n - 1 - i, v, mask=v > 0)
""", expect=["def _scatter_1d(ptr, shape, stride, index, value, USE_INT64, MASK=True,",
             "_scatter_1d(y_ptr, (y_shape0,), (y_stride0,), (n - 1 - i,), v, USE_INT64, MASK=v > 0)"]),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int], TN: ct.Constant[int]):
    M, N = x.shape
    r = ct.arange(TM, dtype=ct.int32)[:, None]
    c = ct.arange(TN, dtype=ct.int32)[None, :]
    ct.scatter(x, (r, c), 0.0, check_bounds=False)
""", expect=["_scatter_2d(x_ptr, (x_shape0, x_shape1), (x_stride0, x_stride1), (r, c), 0.0, "
             "USE_INT64, CHECK_BOUNDS=False)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    n = x.shape[0]
    t = ct.load(y, (0,), (TILE,))
    i = ct.arange(TILE, dtype=ct.int32)
    ct.scatter(x, i, y)
""", error="T2T102", message="the value must be a tile or a scalar"),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx, zero_d=True)
        idx, shape = element_indices(call, cx, info.rank)
        value = call.arg("value")
        if isinstance(value.val, (ArrayV, NoneV)):
            raise cx.error(call.node_of("value"), "T2T102",
                           "ct.scatter: the value must be a tile or a scalar",
                           help="load a tile from an array first")
        if info.rank == 0:       # the one element, always in bounds; tl.store casts the value
            kw = mask_kw(call, cx)
            mask = f", mask={kw[0][len('MASK='):]}" if kw else ""
            return Lowered(f"tl.store({info.pointer}, {value.code}{mask})", NoneV())
        name = cx.need(SCATTER, rank=info.rank)
        kw = mask_kw(call, cx) + check_bounds_kw(call, cx)
        args = abi(info, idx) + [value.code, USE_INT64] + kw
        return Lowered(f"{name}({', '.join(args)})", NoneV())
