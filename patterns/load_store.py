"""ct.load / ct.store: tile-indexed access to an array's tile space.

`ct.load(x, (i, j), (TM, TN))` reads elements [i*TM + a, j*TN + b]. `order=` permutes the array's
axes before the tile space is built, which is the same as passing the array's shapes and strides
in permuted order. Partial tiles are masked; `padding_mode` becomes the `other=` value.
"""
from tile2triton.model import (PREC, USE_INT64, ArrayV, ConstExprV, ConstV, EnumV, Lowered,
                               NoneV, TileV)
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import array_arg, array_order, check_bounds_code, static_shape, tile_index
from ._common import shape_code

# Jinja macros the tile helpers share (views.py's window helpers too): per-dimension offsets,
# widened to int64 under USE_INT64, the pointer tile, and the bounds mask.
TILE_MACROS = r'''{% macro dims(prefix, rank) %}{% for d in range(rank) %}{{ prefix }}{{ d }}{{ ", " if not loop.last }}{% endfor %}{% endmacro %}
{#- var, scale and block are formats in which "#" stands for the dimension; the first element
    of the tile along d is var * scale (var alone when scale is empty). Under USE_INT64 the
    index is widened before the multiply, so the product itself cannot overflow int32;
    otherwise it keeps its own dtype (a cast to int32 would wrap an int64 index that is out
    of bounds into the array). The condition is a constexpr: Triton compiles one side only. -#}
{% macro offsets(rank, var, scale, block) %}
{% for d in range(rank) %}
    offs{{ d }} = (tl.cast({{ var | replace("#", d|string) }}, tl.int64) if USE_INT64 else {{ var | replace("#", d|string) }}){% if scale %} * {{ scale | replace("#", d|string) }}{% endif %} + tl.arange(0, {{ block | replace("#", d|string) }})
{% endfor %}
{% endmacro %}
{% macro bcast(d, rank) %}{% if rank == 1 %}offs{{ d }}{% else %}offs{{ d }}[{% for e in range(rank) %}{{ ":" if e == d else "None" }}{{ ", " if not loop.last }}{% endfor %}]{% endif %}{% endmacro %}
{% macro pointers(rank, stride="stride#") %}
    ptrs = ptr{% for d in range(rank) %} + {{ bcast(d, rank) }} * {{ stride | replace("#", d|string) }}{% endfor %}
{% endmacro %}
{% macro mask(rank, shape="shape#") %}{% for d in range(rank) %}{{ "(" if rank > 1 }}{{ bcast(d, rank) }} < {{ shape | replace("#", d|string) }}{{ ")" if rank > 1 }}{{ " & " if not loop.last }}{% endfor %}{% endmacro %}
'''

# shape, stride, idx and BLOCK are tuples (one entry per axis), so the signature is one line;
# CHECK_BOUNDS=False gives an all-true mask, which Triton drops when it compiles
LOAD_TILE = DeviceHelper("_load_tile_{rank}d", TILE_MACROS + r'''@triton.jit
def _load_tile_{{ rank }}d(ptr, shape, stride, idx, BLOCK, USE_INT64, PADDING=None, CHECK_BOUNDS=True):
    """ct.load: tile `idx` of the array's tile space (elements idx * BLOCK + offset); out-of-bounds
    elements read as PADDING (None: undetermined, as cuTile's default)."""
{{ offsets(rank, "idx[#]", "BLOCK[#]", "BLOCK[#]") }}{{ pointers(rank, "stride[#]") }}
    mask = {{ mask(rank, "shape[#]") }} if CHECK_BOUNDS else True
    return tl.load(ptrs, mask=mask, other=PADDING)
''')

STORE_TILE = DeviceHelper("_store_tile_{rank}d", TILE_MACROS + r'''@triton.jit
def _store_tile_{{ rank }}d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
{{ offsets(rank, "idx[#]", "TILE[#]", "TILE[#]") }}{{ pointers(rank, "stride[#]") }}
    mask = {{ mask(rank, "shape[#]") }} if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)
''')

PADDING_VALUES = {
    "UNDETERMINED": None, "ZERO": "0.0", "NEG_ZERO": "-0.0", "NAN": 'float("nan")',
    "POS_INF": 'float("inf")', "NEG_INF": 'float("-inf")',
}


def padding_value(call, cx):
    """The `other=` value of a masked load for `padding_mode` (None: undetermined)."""
    pad = call.val("padding_mode")
    if isinstance(pad, EnumV):
        if pad.enum != "PaddingMode":
            raise cx.error(call.node_of("padding_mode"), "T2T102",
                           "ct.load: padding_mode must be a ct.PaddingMode member",
                           help="pass a ct.PaddingMode member, e.g. ct.PaddingMode.ZERO")
        return PADDING_VALUES[pad.member]
    if isinstance(pad, NoneV):
        return None
    raise cx.error(call.node_of("padding_mode"), "T2T103",
                   "ct.load: padding_mode must be a ct.PaddingMode member known at "
                   "translation time",
                   help="pass a literal ct.PaddingMode member or a ct.Constant parameter")


def reject_memory_order(call, cx):
    for param in ("memory_order", "memory_scope"):
        v = call.val(param)
        if isinstance(v, EnumV) and v.member not in ("WEAK", "NONE"):
            raise cx.error(call.node_of(param), "T2T100",
                           f"ct.{call.name}: {param}={v.enum}.{v.member} is not translated yet",
                           help="only the default (weak) ordering is supported by this version")


def inline_access(cx, info, idx, block, masked: bool):
    """Plain 1-D/2-D tile access written out as a Triton engineer would: one offsets vector per
    dimension and the bounds mask, named before the statement. A tile index is cast to the
    function's offset dtype (int64 when the launcher chose 64-bit offsets) before the multiply,
    so that index * BLOCK and the products with the strides cannot overflow int32. Returns
    (pointer tile, mask name or None), or None where the helper is used instead: other ranks,
    list elements, or an expression no statement can precede (a `while` / `elif` test)."""
    if len(idx) not in (1, 2) or info.shape_codes is not None:
        return None
    offs = [cx.fresh_name(f"offs_{info.name}{d}") for d in range(len(idx))]
    dtype = cx.offset_dtype()
    lines = []
    for name, i, b in zip(offs, idx, block):
        size = b if b.isidentifier() or b.isdigit() else f"({b})"
        arange = f"tl.arange(0, {b})"
        if i.code.isdigit():  # a literal tile index: the arange itself carries the dtype
            start = "" if i.code == "0" else f"{b} + " if i.code == "1" else \
                f"{i.code} * {size} + "
            lines.append(f"{name} = {start}{arange}.to({dtype})")
            continue
        times = "" if b == "1" else f" * {size}"
        lines.append(f"{name} = tl.cast({i.code}, {dtype}){times} + {arange}")
    if len(offs) == 1:
        ptrs = f"{info.pointer} + {offs[0]} * {info.stride(0)}"
        bounds = f"{offs[0]} < {info.shape(0)}"
    else:
        rows, cols = f"{offs[0]}[:, None]", f"{offs[1]}[None, :]"
        ptrs = f"{info.pointer} + {rows} * {info.stride(0)} + {cols} * {info.stride(1)}"
        bounds = f"({rows} < {info.shape(0)}) & ({cols} < {info.shape(1)})"
    mask = cx.fresh_name(f"mask_{info.name}") if masked else None
    if mask:
        lines.append(f"{mask} = {bounds}")
    return (ptrs, mask) if cx.before(*lines) else None


def descriptor_load(call, cx, info, items, block, padding):
    """(descriptor, `desc.load([row, col])`): the tile read through a TMA descriptor the
    launcher builds, for 2-D tiles that feed a matrix product (docs/performance.md); None where
    the load keeps its pointer form only. TMA fills out-of-bounds elements with zeros: ZERO padding, and a valid
    choice for UNDETERMINED. `allow_tma=False` keeps the pointer form, as it keeps cuTile's."""
    allow = call.val("allow_tma")
    if len(block) != 2 or padding not in (None, "0.0") or (
            isinstance(allow, ConstV) and allow.value is False):
        return None
    desc = cx.tensor_descriptor(call.node, info, block)
    if desc is None:
        return None
    coords = []
    for i, b in zip(items, block):
        size = b if b.isidentifier() or b.isdigit() else f"({b})"
        coords.append("0" if i.code == "0" else f"{i.wrap(PREC['*'])} * {size}")
    return desc, f"{desc}.load([{', '.join(coords)}])"


def permuted_abi(info, order):
    return ([info.pointer] + [info.shape(a) for a in order] + [info.stride(a) for a in order])


def tuple_code(items) -> str:
    return shape_code([str(i) for i in items])


def tile_abi(info, order, idx) -> list:
    """The tile helpers' leading arguments: the pointer, then shapes, strides and the tile index,
    each a tuple in `order`."""
    return [info.pointer, tuple_code(info.shape(a) for a in order),
            tuple_code(info.stride(a) for a in order), tuple_code(idx)]


class Load(Pattern):
    constructs = ("load",)
    array_param, index_param, shape_param = "array", "index", "shape"
    summary = "load tile `index` of shape `shape` (order, padding_mode, check_bounds)"
    triton = ("masked tl.load of `index * BLOCK + tl.arange` offsets (other= padding value); "
              "`_load_tile_{rank}d` for order=, rank 3+ and inside while/elif tests")

    def signature(array, /, index, shape, *, order="C", padding_mode=None, check_bounds=True,
                  latency=None, allow_tma=None, memory_order=None, memory_scope=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, pid, (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (pid,), t)
""", expect=["OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32",
             "offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)", "mask_x = offs_pid < x_shape0",
             "t = tl.load(x_ptr + offs_pid * x_stride0, mask=mask_x, other=0.0)",
             # (the store's offsets are the load's: the same vector)
             "tl.store(y_ptr + offs_pid * y_stride0, t.to(y_ptr.dtype.element_ty), mask=mask_y)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, (ct.bid(1), ct.bid(0)), (TN, TM), order="F",
                padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, (ct.bid(0), ct.bid(1)), ct.transpose(t))
""", expect=["_load_tile_2d(x_ptr, (x_shape1, x_shape0), (x_stride1, x_stride0), "
             "(tl.program_id(1), tl.program_id(0)), (TN, TM), USE_INT64, "
             'PADDING=float("-inf"))']),
        Example("""
@ct.kernel
def k(x, y):
    t = ct.load(x, (0, 0), (16, 16), check_bounds=False)
    ct.store(y, (0, 0), t, check_bounds=False)
""", expect=["t = tl.load(x_ptr + offs0[:, None] * x_stride0 + offs0[None, :] * x_stride1)",
             "tl.store(y_ptr + offs0[:, None] * y_stride0 + offs0[None, :] * y_stride1, "
             "t.to(y_ptr.dtype.element_ty))"]),
        Example("""
@ct.kernel
def k(x, y):
    t = ct.load(x, (0, 0), (16,))
    ct.store(y, (0,), t)
""", error="T2T105", message="tile shape has 1 dimensions but the array has rank 2"),
        Example("""
@ct.kernel
def k(x, y, n):
    t = ct.load(x, (0,), (n,))
    ct.store(y, (0,), t)
""", error="T2T103", message="compile-time"),
        Example("""
@ct.kernel
def k(x, y):
    t = ct.load(x, (0, 0), (16, 16), order=(0, 0))
    ct.store(y, (0, 0), t)
""", error="T2T102", message="not a permutation"),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        rank = info.rank
        order = array_order(call, cx, rank)
        items = tile_index(call, cx, rank)
        idx = [it.code for it in items]
        shape = static_shape(call, "shape", cx)
        reject_memory_order(call, cx)
        if len(shape) == 0:
            # a 0-d tile: one element, tile index == element index; int64 offsets (one
            # element costs nothing) and the bounds check of any tile load
            pad = padding_value(call, cx)
            terms, conds = [], []
            for i, a in zip(idx, order):
                if i.isdigit():  # a literal index: no cast, no sign check, no term for 0
                    if i != "0":
                        terms.append(f"{i} * {info.stride(a)}")
                    conds.append(f"({i} < {info.shape(a)})")
                else:
                    terms.append(f"tl.cast({i}, tl.int64) * {info.stride(a)}")
                    conds.append(f"({i} >= 0) & ({i} < {info.shape(a)})")
            offs = " + ".join(terms) or "0"
            mask = " & ".join(conds)
            other = f", other={pad}" if pad is not None else ""
            return Lowered(f"tl.load({info.pointer} + {offs}, mask={mask}{other})",
                           TileV(shape=()))
        if len(shape) != rank:
            raise cx.error(call.node_of("shape"), "T2T105",
                           f"ct.load: tile shape has {len(shape)} dimensions but the array has "
                           f"rank {rank}", help="the tile must have the array's rank; reshape "
                                                 "the loaded tile afterwards if needed")
        padding = padding_value(call, cx)
        check = check_bounds_code(call, cx)
        cx.note_tile(shape)
        # a tile in the array's own axis order: a tf32 product may want the array K-major
        source = info.name if order == list(range(rank)) else None
        plain = order == list(range(rank)) and check in (None, "False")
        access = inline_access(cx, info, items, shape, check is None) if plain else None
        if access is not None:
            ptrs, mask = access
            kw = [f"mask={mask}"] + ([f"other={padding}"] if padding is not None else []) \
                if mask else []
            load = f"tl.load({', '.join([ptrs] + kw)})"
            tma = descriptor_load(call, cx, info, items, shape, padding)
            if tma is not None:  # the descriptor is None where the launcher could not build it
                desc, desc_load = tma
                return Lowered(f"{desc_load} if {desc} is not None else {load}",
                               TileV(shape=tuple(shape), loaded_from=source), PREC["ifexp"])
            return Lowered(load, TileV(shape=tuple(shape), loaded_from=source))
        helper = cx.need(LOAD_TILE, rank=rank)
        args = tile_abi(info, order, idx) + [tuple_code(shape), USE_INT64]
        kw = ([f"PADDING={padding}"] if padding is not None else []) + (
            [f"CHECK_BOUNDS={check}"] if check else [])
        return Lowered(f"{helper}({', '.join(args + kw)})",
                       TileV(shape=tuple(shape), loaded_from=source))


class Store(Pattern):
    constructs = ("store",)
    array_param, index_param = "array", "index"
    summary = "store a tile at tile `index` (out-of-bounds elements dropped, value cast)"
    triton = ("masked tl.store of the tile cast to the array's dtype; "
              "`_store_tile_{rank}d` for order=, scalars, rank 3+ and while/elif tests")

    def signature(array, /, index, tile, *, order="C", check_bounds=True, latency=None,
                  allow_tma=None, memory_order=None, memory_scope=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x):
    ct.store(x, (ct.bid(0), 0), 1.5)
""", expect=["_store_tile_2d(x_ptr, (x_shape0, x_shape1), (x_stride0, x_stride1), "
             "(tl.program_id(0), 0), tl.full((1, 1), 1.5, x_ptr.dtype.element_ty), USE_INT64)"]),
        Example("""
@ct.kernel
def k(x):
    t = ct.full((4, 4), 1.0, dtype=ct.float32)
    ct.store(x, (0,), t)
""", error="T2T105", message="tile of rank 2"),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx)
        rank = info.rank
        order = array_order(call, cx, rank)
        items = tile_index(call, cx, rank)
        idx = [it.code for it in items]
        reject_memory_order(call, cx)
        tile = call.arg("tile")
        v = tile.val
        if isinstance(v, ArrayV):
            raise cx.error(call.node_of("tile"), "T2T102", "ct.store: the value is an array; "
                           "load a tile from it first",
                           help="load a tile from the array with ct.load and store that")
        ones = shape_code(["1"] * rank)
        if isinstance(v, (ConstV, ConstExprV)) or (isinstance(v, TileV) and v.shape == ()):
            # a scalar (a ct.Constant or a compile-time stride too) is stored as a tile of
            # ones-shape (cuTile broadcasts it)
            value = f"tl.full({ones}, {tile.code}, {info.pointer}.dtype.element_ty)"
        elif isinstance(v, TileV):
            if v.rank is not None and v.rank != rank:
                raise cx.error(call.node_of("tile"), "T2T105",
                               f"ct.store: tile of rank {v.rank} stored into array `{info.name}` "
                               f"of rank {rank}", help="reshape the tile to the array's rank")
            value = tile.code
            cx.note_tile(v.shape)
        else:
            raise cx.error(call.node_of("tile"), "T2T102", "ct.store: the value must be a tile "
                           "or a scalar", help="store a tile or a scalar")
        check = check_bounds_code(call, cx)
        block = [str(d) for d in v.shape] if isinstance(v, TileV) and v.shape and all(
            d is not None for d in v.shape) else None
        plain = order == list(range(rank)) and check in (None, "False") and block is not None
        access = inline_access(cx, info, items, block, check is None) if plain else None
        if access is not None:
            ptrs, mask = access
            kw = [f"mask={mask}"] if mask else []
            value = tile.code if tile.code.endswith(f".to({info.pointer}.dtype.element_ty)") \
                else f"{tile.wrap(100)}.to({info.pointer}.dtype.element_ty)"
            return Lowered(f"tl.store({', '.join([ptrs, value] + kw)})", NoneV())
        helper = cx.need(STORE_TILE, rank=rank)
        args = tile_abi(info, order, idx) + [value, USE_INT64]
        if check:
            args.append(f"CHECK_BOUNDS={check}")
        return Lowered(f"{helper}({', '.join(args)})", NoneV())
