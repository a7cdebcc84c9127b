"""Array views: `x.slice(axis, start, stop)` and `x.tiled_view(tile_shape, padding_mode=...)`
with `TiledView.load` / `.store` / `.num_tiles` / `.atomic_store_<op>`.

A slice is a new array: its pointer moves by `start * stride[axis]` and its shape along `axis`
is `stop - start`; assigned to a name, these are computed once. A tiled view exists only at
translation time: its loads and stores are ct.load / ct.store with the view's tile shape and
padding mode.
"""
from tile2triton.model import (PREC, ArrayInfo, ArrayV, ConstExprV, ConstV, Lowered, NoneV,
                               TiledViewV, TileV, TupleV)
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import (array_arg, check_bounds_code, const_value, static_shape, tile_index,
                    tile_index_codes)
from ._common import shape_code
from .grid import NumTiles
from .load_store import TILE_MACROS, Load, Store

# TiledView load/store with traversal steps: a BLOCK-shaped window at an element offset.
LOAD_WINDOW = DeviceHelper("_load_window_{rank}d", TILE_MACROS + r'''@triton.jit
def _load_window_{{ rank }}d(ptr, {{ dims("shape", rank) }}, {{ dims("stride", rank) }}, {{ dims("start", rank) }},
{{ " " * (19 + rank|string|length) }}{% for d in range(rank) %}BLOCK{{ d }}: tl.constexpr, {% endfor %}USE_INT64: tl.constexpr,
{{ " " * (19 + rank|string|length) }}PADDING: tl.constexpr = None, CHECK_BOUNDS: tl.constexpr = True):
    """TiledView.load with traversal steps: the BLOCK-shaped window whose first element is at
    `start` (index * step: tiles may overlap or leave gaps)."""
{{ offsets(rank, "start#", "", "BLOCK#") }}{{ pointers(rank) }}
    if CHECK_BOUNDS:
        return tl.load(ptrs, mask={{ mask(rank) }}, other=PADDING)
    else:
        return tl.load(ptrs)
''')

STORE_WINDOW = DeviceHelper("_store_window_{rank}d", TILE_MACROS + r'''@triton.jit
def _store_window_{{ rank }}d(ptr, {{ dims("shape", rank) }}, {{ dims("stride", rank) }}, {{ dims("start", rank) }}, tile,
{{ " " * (20 + rank|string|length) }}{% for d in range(rank) %}BLOCK{{ d }}: tl.constexpr, {% endfor %}USE_INT64: tl.constexpr,
{{ " " * (20 + rank|string|length) }}CHECK_BOUNDS: tl.constexpr = True):
    """TiledView.store with traversal steps: the tile (broadcast to BLOCK) at element `start`."""
{{ offsets(rank, "start#", "", "BLOCK#") }}{{ pointers(rank) }}
    value = tl.broadcast_to(tile.to(ptr.dtype.element_ty), ({% for d in range(rank) %}BLOCK{{ d }}{{ ", " if not loop.last }}{% endfor %}{{ "," if rank == 1 }}))
    if CHECK_BOUNDS:
        tl.store(ptrs, value, mask={{ mask(rank) }})
    else:
        tl.store(ptrs, value)
''')

# TiledView.atomic_store_<op>: an element-wise atomic on the window of the tile at `index`.
ATOMIC_STORE_WINDOW = DeviceHelper("_atomic_store_{op}_{rank}d", TILE_MACROS + r'''@triton.jit
def _atomic_store_{{ op }}_{{ rank }}d(ptr, {{ dims("shape", rank) }}, {{ dims("stride", rank) }}, {{ dims("start", rank) }}, update,
{{ " " * (20 + op|length + rank|string|length) }}{% for d in range(rank) %}BLOCK{{ d }}: tl.constexpr, {% endfor %}USE_INT64: tl.constexpr):
    """TiledView.atomic_store_{{ op }}: combine `update` (broadcast to BLOCK, cast to the array's
    dtype) into the BLOCK-shaped window whose first element is at `start`, one relaxed atomic
    per element at device scope (cuTile's order and scope for view atomics); out-of-bounds
    elements are left alone."""
{{ offsets(rank, "start#", "", "BLOCK#") }}{{ pointers(rank) }}
    mask = {{ mask(rank) }}
    # tl.where broadcasts the update to the window (lanes outside it are never written) and
    # gives a dense array: Triton's interpreter hands the value's buffer to its atomic as is,
    # and a (1, 1) tile broadcast by tl.broadcast_to alone reads as garbage there.
    value = tl.where(mask, tl.cast(update, ptr.dtype.element_ty), 0)
    tl.atomic_{{ op }}(ptrs, value, mask=mask, sem="relaxed", scope="gpu")
''')

VIEW_ATOMIC_OPS = ("add", "max", "min", "and", "or", "xor")


class ArraySlice(Pattern):
    constructs = ("Array.slice",)
    array_param = "array"
    summary = "view of an array restricted to [start, stop) along one axis"
    triton = "pointer + start * stride[axis], shape[axis] = stop - start"

    def signature(array, /, axis, start, stop):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, off, n, TILE: ct.Constant[int]):
    sub = x.slice(axis=1, start=off, stop=off + n)
    ct.store(y, (0, 0), ct.load(sub, (0, 0), (TILE, TILE)))
""", expect=["sub_ptr = x_ptr + off * x_stride1", "sub_shape0 = x_shape0",
             "sub_shape1 = off + n - off",
             "tl.load(sub_ptr + offs_tile[:, None] * sub_stride0 + offs_tile[None, :] * "
             "sub_stride1, mask=mask_sub)"])]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        axis = const_value(call, "axis", cx)
        if not -info.rank <= axis < info.rank:
            raise cx.error(call.node_of("axis"), "T2T102",
                           f"Array.slice: axis {axis} out of range for rank {info.rank}",
                           help="use an axis below the array's rank")
        axis %= info.rank
        start, stop = call.arg("start"), call.arg("stop")
        shapes = [info.shape(d) for d in range(info.rank)]
        if isinstance(start.val, ConstV) and isinstance(stop.val, ConstV) \
                and isinstance(start.val.value, int) and isinstance(stop.val.value, int):
            # constant bounds give a constant extent, usable as a tile shape (as in cuTile)
            shapes[axis] = str(max(stop.val.value - start.val.value, 0))
        else:
            shapes[axis] = f"{stop.wrap(11)} - {start.wrap(12)}"
        view = ArrayInfo(f"{info.name}_slice", rank=info.rank,
                         pointer=f"{info.pointer} + {start.wrap(12)} * {info.stride(axis)}",
                         shape_codes=shapes,
                         stride_codes=[info.stride(d) for d in range(info.rank)])
        return Lowered(f"{info.name}.slice(...)", ArrayV(view))


class TiledView(Pattern):
    constructs = ("Array.tiled_view",)
    array_param, shape_param = "array", "tile_shape"
    summary = "a tiled view of an array (tile shape and padding mode fixed once)"
    triton = ("nothing at run time; its load/store/num_tiles become ct.load/ct.store/ct.num_tiles "
              "(`_load_window_{rank}d` / `_store_window_{rank}d` with traversal_steps)")

    def signature(array, /, tile_shape, *, padding_mode=None, traversal_steps=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    tv = x.tiled_view((TM, TN), padding_mode=ct.PaddingMode.ZERO)
    out = y.tiled_view((TM, TN))
    for j in range(tv.num_tiles(1)):
        out.store((ct.bid(0), j), tv.load((ct.bid(0), j)) * 2)
""", expect=["for j in range(tl.cdiv(x_shape1, TN)):",
             "offs_j = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)",
             "(tl.load(x_ptr + offs0[:, None] * x_stride0 + offs_j[None, :] * x_stride1, "
             "mask=mask_x, other=0.0) * 2).to(y_ptr.dtype.element_ty), mask=mask_y)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    tv = x.tiled_view((TM,), traversal_steps=(2,), padding_mode=ct.PaddingMode.ZERO)
    n = tv.num_tiles(0)
    ct.store(y, (ct.bid(0),), tv.load((ct.bid(0),)) + n)
""", expect=["def _load_window_1d(ptr, shape0, stride0, start0,",
             "n = tl.cdiv(x_shape0, 2)",
             "_load_window_1d(x_ptr, x_shape0, x_stride0, tl.program_id(0) * 2, TM, USE_INT64, "
             "PADDING=0.0)"]),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    tv = x.tiled_view((TM, TM), traversal_steps=(1,))
    ct.store(x, (0, 0), tv.load((0, 0)))
""", error="T2T105", message="traversal_steps of rank 1"),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        shape = static_shape(call, "tile_shape", cx)
        if len(shape) != info.rank and shape:     # tile shape (): one element per tile
            raise cx.error(call.node_of("tile_shape"), "T2T105",
                           f"tiled_view: tile shape of rank {len(shape)} for an array of rank "
                           f"{info.rank}",
                           help="give the tile shape one entry per axis of the array")
        steps = None
        open_steps = call.val("traversal_steps")
        if isinstance(open_steps, ConstExprV) and open_steps.kind == "open_shape":
            # a factory's value, None or one step per axis as the launch chooses: each axis
            # steps by a constexpr expression Triton folds (the tile extent when it is None)
            s = open_steps.name
            steps = [f"({t} if {s} is None else {s}[{d}])"
                     for d, t in enumerate(shape or ["1"] * info.rank)]
        elif not isinstance(call.val("traversal_steps"), NoneV):
            steps = static_shape(call, "traversal_steps", cx)
            if len(steps) != info.rank:
                raise cx.error(call.node_of("traversal_steps"), "T2T105",
                               f"tiled_view: traversal_steps of rank {len(steps)} for an array "
                               f"of rank {info.rank}",
                               help="give traversal_steps one entry per axis of the array")
            if steps == shape:
                steps = None  # the plain tile space
        padding = call.arg("padding_mode") if call.has("padding_mode") else None
        view = TiledViewV(info, shape, padding)
        view.steps = steps
        return Lowered(f"{info.name}.tiled_view(...)", view)


def _view(call, cx) -> TiledViewV:
    return call.val("view")


def _window_call(call, cx, view, store: bool):
    """Load/store of a tiled view whose traversal steps differ from its tile shape."""
    from .load_store import PADDING_VALUES
    info = view.array
    name = cx.need(STORE_WINDOW if store else LOAD_WINDOW, rank=info.rank)
    idx = tile_index_codes(call, cx, info.rank)
    starts = [f"{i} * {s}" if s != "1" else i for i, s in zip(idx, view.steps)]
    args = ([info.pointer] + [info.shape(d) for d in range(info.rank)]
            + [info.stride(d) for d in range(info.rank)] + starts)
    if store:
        args.append(call.arg("tile").code)
    args += list(view.tile_shape) + ["USE_INT64"]  # BLOCKs: the window is the tile shape
    pad = view.padding.val if view.padding is not None else None
    if not store and pad is not None and getattr(pad, "member", None) not in (
            None, "UNDETERMINED"):
        args.append(f"PADDING={PADDING_VALUES[pad.member]}")
    check = check_bounds_code(call, cx)
    if check:
        args.append(f"CHECK_BOUNDS={check}")
    cx.note_tile(view.tile_shape)
    code = f"{name}({', '.join(args)})"
    if store:
        return Lowered(code, NoneV())
    from tile2triton.model import TileV
    return Lowered(code, TileV(shape=tuple(view.tile_shape)))


def _array_low(view: TiledViewV) -> Lowered:
    return Lowered(view.array.name, ArrayV(view.array))


def _shape_low(view: TiledViewV) -> Lowered:
    items = [Lowered(d, ConstV(int(d)) if d.isdigit() else ConstExprV(d))
             for d in view.tile_shape]
    return Lowered(shape_code(view.tile_shape), TupleV([i.val for i in items]), items=items)


class TiledViewLoad(Pattern):
    constructs = ("TiledView.load",)
    summary = "load the tile at `index` of a tiled view"
    triton = "as ct.load with the view's shape and padding"

    def signature(view, /, index, *, check_bounds=True, latency=None, allow_tma=None):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    tv = x.tiled_view(TILE, padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(x, (0,), tv.load(1))
""", expect=["offs_x0 = TILE + tl.arange(0, TILE).to(OFFSET_DTYPE)",
             'tl.load(x_ptr + offs_x0 * x_stride0, mask=mask_x, other=float("-inf"))'])]

    def lower(self, call, cx):
        view = _view(call, cx)
        if getattr(view, "steps", None) and not view.tile_shape:
            # 0-d tiles every `steps` elements: the element at index * steps
            items = [Lowered(f"{it.wrap(PREC['*'])} * {st}" if st != "1" else it.code,
                             TileV(shape=(), dtype="int32"), PREC["*"])
                     for it, st in zip(tile_index(call, cx, view.array.rank), view.steps)]
            extra = {"array": _array_low(view), "shape": _shape_low(view),
                     "index": Lowered(shape_code([i.code for i in items]),
                                      TupleV([i.val for i in items]), items=items)}
            if view.padding is not None:
                extra["padding_mode"] = view.padding
            return call.forward(Load(), extra)
        if getattr(view, "steps", None):
            return _window_call(call, cx, view, store=False)
        extra = {"array": _array_low(view), "shape": _shape_low(view)}
        if view.padding is not None:
            extra["padding_mode"] = view.padding
        return call.forward(Load(), extra)


def _require_broadcastable(call, cx, param, what, ushape, shape):
    """cuTile rejects a tile stored into a view whose tile shape it does not broadcast to;
    sizes spelled differently (`TM`, `16`) are left to Triton's broadcast."""
    ok = len(ushape) <= len(shape) and not any(
        u.isdigit() and v.isdigit() and u not in ("1", v)
        for u, v in zip(reversed(ushape), reversed(shape)))
    if not ok:
        raise cx.error(call.node_of(param), "T2T105",
                       f"{what} of shape {shape_code(ushape)} is not broadcastable to the "
                       f"view's tile shape {shape_code(shape)}",
                       help="give it the view's tile shape (or a shape that broadcasts to it)")


class TiledViewStore(Pattern):
    constructs = ("TiledView.store",)
    summary = "store a tile at `index` of a tiled view"
    triton = "as ct.store"

    def signature(view, /, index, tile, *, check_bounds=True, latency=None, allow_tma=None):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    tv = x.tiled_view((TILE,))
    tv.store((0,), ct.full((TILE,), 1.0, dtype=ct.float32))
""", expect=["tl.store(x_ptr + offs_x0 * x_stride0, tl.full((TILE,), 1.0, tl.float32)"
             ".to(x_ptr.dtype.element_ty), mask=mask_x)"]),
        Example("""
@ct.kernel
def k(x, y):
    x.tiled_view(16).store(0, y.tiled_view(32).load(0))
""", error="T2T105", message="(32,) is not broadcastable to the view's tile shape (16,)")]

    def lower(self, call, cx):
        view = _view(call, cx)
        if getattr(view, "steps", None) and view.tile_shape:
            return _window_call(call, cx, view, store=True)
        tile = call.arg("tile")                 # lowered once, here
        extra = {"array": _array_low(view), "tile": tile}
        shape = tuple(view.tile_shape)
        if shape and isinstance(tile.val, TileV) and tile.val.shape is not None \
                and tuple(str(d) for d in tile.val.shape) != shape:
            _require_broadcastable(call, cx, "tile", "TiledView.store: a tile",
                                   [str(d) for d in tile.val.shape], [str(d) for d in shape])
            # a smaller tile (a scalar, size-1 axes) is broadcast to the view's tile shape
            extra["tile"] = Lowered(f"tl.broadcast_to({tile.code}, {shape_code(list(shape))})",
                                    TileV(shape=shape, dtype=tile.val.dtype))
        elif shape and isinstance(tile.val, ConstV):
            extra["tile"] = Lowered(f"tl.full({shape_code(list(shape))}, {tile.code}, "
                                    f"{view.array.pointer}.dtype.element_ty)", TileV(shape=shape))
        return call.forward(Store(), extra)


class TiledViewNumTiles(Pattern):
    constructs = ("TiledView.num_tiles",)
    summary = "number of tiles of a tiled view along an axis"
    triton = "tl.cdiv(shape[axis], tile_shape[axis])"

    def signature(view, /, axis):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    n = x.tiled_view((TILE,)).num_tiles(0)
    ct.store(x, (0,), ct.full((TILE,), n, dtype=ct.float32))
""", expect=["n = tl.cdiv(x_shape0, TILE)"])]

    def lower(self, call, cx):
        view = _view(call, cx)
        if getattr(view, "steps", None):
            # one tile per origin 0, step, 2*step, ... inside the array: cdiv(n, step)
            # (measured against real cuTile on the H200, docs/gpu-results.md run 7; the
            # docstring does not say)
            axis = const_value(call, "axis", cx) % view.array.rank
            n, st = view.array.shape(axis), view.steps[axis]
            return Lowered(f"tl.cdiv({n}, {st})", TileV(shape=(), dtype="int32", nonneg=True))
        return call.forward(NumTiles(), {"array": _array_low(view),
                                            "shape": _shape_low(view)})


class TiledViewAtomicStore(Pattern):
    constructs = tuple(f"TiledView.atomic_store_{op}" for op in VIEW_ATOMIC_OPS)
    summary = ("atomically combine a tile (broadcast to the view's tile shape) into the tile at "
               "`index` of a tiled view (add, max, min, and, or, xor; relaxed, device scope)")
    triton = ("masked `tl.atomic_<op>(ptrs, update, mask, sem=\"relaxed\", scope=\"gpu\")` through "
              "`_atomic_store_<op>_{rank}d`")

    def signature(view, index, update, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    tv = x.tiled_view((TM, TN))
    u = y.tiled_view((TM, TN)).load((ct.bid(0), ct.bid(1)))
    tv.atomic_store_add((ct.bid(0), ct.bid(1)), u)
""", expect=["def _atomic_store_add_2d(ptr, shape0, shape1, stride0, stride1, start0, start1, "
             "update,",
             "mask = (offs0[:, None] < shape0) & (offs1[None, :] < shape1)",
             'tl.atomic_add(ptrs, value, mask=mask, sem="relaxed", scope="gpu")',
             "_atomic_store_add_2d(x_ptr, x_shape0, x_shape1, x_stride0, x_stride1, "
             "tl.program_id(0) * TM, tl.program_id(1) * TN,"]),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    tv = x.tiled_view((TM,), traversal_steps=(3,))
    tv.atomic_store_max(ct.bid(0), 5)
""", expect=["_atomic_store_max_1d(x_ptr, x_shape0, x_stride0, tl.program_id(0) * 3, 5, TM, "
             "USE_INT64)"]),
        Example("""
@ct.kernel
def k(x, y):
    tv = x.tiled_view((16,))
    tv.atomic_store_add(0, y.tiled_view((8,)).load(0))
""", error="T2T105", message="not broadcastable to the view's tile shape (16,)"),
    ]

    def lower(self, call, cx):
        op = call.name.rsplit("_", 1)[-1]
        view = _view(call, cx)
        info = view.array
        rank = info.rank
        shape = [str(d) for d in view.tile_shape] or ["1"] * rank   # (): one element per tile
        steps = [str(d) for d in (view.steps or shape)]
        idx = tile_index_codes(call, cx, rank)
        starts = [i if st == "1" or i == "0" else f"{i} * {st}" for i, st in zip(idx, steps)]
        update = call.arg("update")
        if isinstance(update.val, (ArrayV, NoneV, TiledViewV)):
            raise cx.error(call.node_of("update"), "T2T102",
                           f"TiledView.atomic_store_{op}: `update` must be a tile or a scalar",
                           help="pass a tile or a scalar as the update")
        code = update.code
        ushape = update.val.shape if isinstance(update.val, TileV) else None
        if ushape:
            ushape = [str(d) for d in ushape]
            _require_broadcastable(call, cx, "update", f"TiledView.atomic_store_{op}: an update",
                                   ushape, shape)
            if len(ushape) < rank:      # tl.broadcast_to needs equal ranks: add leading axes
                pad = ", ".join(["None"] * (rank - len(ushape)) + [":"] * len(ushape))
                code = f"{update.wrap(100)}[{pad}]"
        name = cx.need(ATOMIC_STORE_WINDOW, op=op, rank=rank)
        args = ([info.pointer] + [info.shape(d) for d in range(rank)]
                + [info.stride(d) for d in range(rank)] + starts + [code] + shape + ["USE_INT64"])
        cx.note_tile(shape)
        return Lowered(f"{name}({', '.join(args)})", NoneV())
