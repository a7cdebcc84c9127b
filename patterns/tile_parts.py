"""Taking tiles apart and putting them together: ct.cat, ct.extract, ct.insert, tile.item(),
ct.bitcast.

Triton has no tile slicing and its tl.cat may reorder elements, so:
  * cat joins the two tiles on a new last axis (tl.join), moves that axis in front of `axis` and
    merges the two (order-preserving, exact);
  * extract views the tile as a grid of subtiles (G0, S0, G1, S1, ...) and picks the subtile with
    tl.gather along each grid axis of more than one subtile (the grid index may be a runtime
    value, as in cuTile);
  * insert views the tile the same way and selects the new value where the grid position
    matches (tl.where, exact).
"""
from tile2triton.model import dtype_bits, ConstExprV, ConstV, Lowered, TileV, TupleV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import dtype_arg, require_tile, static_shape, tuple_items
from ._common import dtype_of, is_float, shape_code, tile_shape



def grid_dims(rank):
    return ", ".join(f"G{d}, S{d}" for d in range(rank))


def extract_source(rank: int) -> str:
    ones = lambda d: ", ".join(  # noqa: E731 - shape of the index tile for grid axis d
        ("1" if e < d else f"G{e}") + f", S{e}" for e in range(rank))
    lines = [f"    G{d}: tl.constexpr = x.shape[{d}] // S{d}" for d in range(rank)]
    lines.append(f"    t = tl.reshape(x, ({grid_dims(rank)}))")
    for d in range(rank):
        lines.append(f"    if G{d} > 1:")
        lines.append(f"        t = tl.gather(t, tl.full(({ones(d + 1)}), index{d}, tl.int32), "
                     f"{2 * d})")
    sub = ", ".join(f"S{d}" for d in range(rank)) + ("," if rank == 1 else "")
    body = "\n".join(lines)
    idx = ", ".join(f"index{d}" for d in range(rank))
    consts = ", ".join(f"S{d}: tl.constexpr" for d in range(rank))
    return f'''
@triton.jit
def _extract_{rank}d(x, {idx}, {consts}):
    """ct.extract: the subtile of shape (S0, ...) at grid position (index0, ...) of x. x is
    viewed as a grid of subtiles (G0, S0, ...) and tl.gather picks the subtile along each grid
    axis (the grid index may be a runtime value)."""
{body}
    return tl.reshape(t, ({sub}))
'''


def insert_source(rank: int) -> str:
    def sel(d):
        parts = [":" if e == 2 * d else "None" for e in range(2 * rank)]
        return f"(tl.arange(0, G{d}) == index{d})[{', '.join(parts)}]"
    ones = ", ".join(["1"] * rank) + ("," if rank == 1 else "")
    vshape = ", ".join(f"1, S{d}" for d in range(rank))
    xshape = ", ".join(f"x.shape[{d}]" for d in range(rank)) + ("," if rank == 1 else "")
    lines = [f"    S{d}: tl.constexpr = v.shape[{d}]" for d in range(rank)]
    lines += [f"    G{d}: tl.constexpr = x.shape[{d}] // S{d}" for d in range(rank)]
    body = "\n".join(lines)
    idx = ", ".join(f"index{d}" for d in range(rank))
    return f'''
@triton.jit
def _insert_{rank}d(x, {idx}, value):
    """ct.insert: x with the subtile at grid position (index0, ...) replaced by `value` (a 0-d
    value is a unit subtile). x is viewed as a grid of subtiles (G0, S0, ...); `value`
    broadcasts over the grid and is selected where the grid position matches."""
    v = tl.cast(value, x.dtype)
    if len(v.shape) == 0:
        v = tl.broadcast_to(v, ({ones}))
{body}
    t = tl.reshape(x, ({grid_dims(rank)}))
    hit = {" & ".join(sel(d) for d in range(rank))}
    t = tl.where(hit, tl.reshape(v, ({vshape})), t)
    return tl.reshape(t, ({xshape}))
'''


def subtile_index(call, cx, rank):
    low = call.arg("index")
    node = call.node_of("index")
    if isinstance(low.val, TupleV) or (isinstance(low.val, ConstV)
                                       and isinstance(low.val.value, tuple)):
        items = tuple_items(low)
        if items is None:
            raise cx.error(node, "T2T103", f"ct.{call.name}: the index must be a tuple",
                           help="pass the index as a tuple, e.g. (0, i)")
    else:
        items = [low]
    if len(items) != rank:
        raise cx.error(node, "T2T105", f"ct.{call.name}: index has {len(items)} entries but the "
                       f"tile has rank {rank}", help="give one grid index per tile dimension")
    for it in items:
        v = it.val
        if not (isinstance(v, ConstExprV) or (isinstance(v, ConstV) and isinstance(v.value, int))
                or (isinstance(v, TileV) and v.shape in (None, ()) and not is_float(v.dtype))):
            raise cx.error(node, "T2T102", f"ct.{call.name}: grid indices must be integer "
                           "scalars", help="use integer scalars as indices")
    return [it.code for it in items]


def known_shape(call, cx, param):
    x = require_tile(call, param, cx)
    shape = tile_shape(x)
    if shape is None:
        raise cx.error(call.node_of(param), "T2T105",
                       f"ct.{call.name}: the shape of this tile is not known at translation time",
                       help="tile2triton needs the operand's shape here; give the tile a "
                            "known shape (e.g. assign ct.load / ct.reshape results to names)")
    return x, shape


EXTRACT = DeviceHelper("_extract_{rank}d", extract_source)
INSERT = DeviceHelper("_insert_{rank}d", insert_source)


class Cat(Pattern):
    constructs = ("cat",)
    summary = "concatenate two tiles of one shape along an axis"
    triton = ("tl.reshape(tl.permute(tl.join(x, y), ...), ...) (order-preserving; tl.cat may "
              "reorder)")

    def signature(tiles, /, axis):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    b = ct.load(x, (1, 0), (TM, TN))
    ct.store(y, (0, 0), ct.cat((a, b), 1))
    ct.store(y, (0, 0), ct.cat((a, b), -2))
""", expect=["tl.reshape(tl.permute(tl.join(a, b), (0, 2, 1)), (TM, 2 * TN))",
             "tl.reshape(tl.permute(tl.join(a, b), (2, 0, 1)), (2 * TM, TN))"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.cat((a, a, a), 0))
""", error="T2T102", message="two tiles"),
    ]

    def lower(self, call, cx):
        low = call.arg("tiles")
        items = tuple_items(low) if isinstance(low.val, TupleV) else None
        if items is None or len(items) not in (1, 2):
            raise cx.error(call.node_of("tiles"), "T2T102",
                           "ct.cat takes a tuple of two tiles", help="write ct.cat((x, y), axis)")
        axis_low = call.arg("axis")
        if not isinstance(axis_low.val, ConstV) or not isinstance(axis_low.val.value, int):
            raise cx.error(call.node_of("axis"), "T2T103", "ct.cat: `axis` must be an int literal",
                           help="pass the axis as an int literal")
        if len(items) == 1:
            return items[0]
        a, b = items
        shape = tile_shape(a) or tile_shape(b)
        if shape is None:
            raise cx.error(call.node_of("tiles"), "T2T105", "ct.cat: the shape of the tiles is "
                           "not known at translation time",
                           help="give the tiles known shapes (e.g. from ct.load / ct.reshape)")
        rank = len(shape)
        axis = axis_low.val.value % rank if rank else 0
        perm = list(range(axis)) + [rank] + list(range(axis, rank))
        size = str(shape[axis])
        new = [str(d) for d in shape]
        new[axis] = str(2 * int(size)) if size.isdigit() else (
            f"2 * {size}" if size.isidentifier() else f"2 * ({size})")
        cx.note_tile(new)
        return Lowered(f"tl.reshape(tl.permute(tl.join({a.code}, {b.code}), "
                       f"{shape_code([str(p) for p in perm])}), {shape_code(new)})",
                       TileV(shape=tuple(new), dtype=dtype_of(a) or dtype_of(b)))


class Extract(Pattern):
    constructs = ("extract",)
    methods = ("Tile.extract",)
    summary = "the subtile at a grid index (index may be a runtime scalar)"
    triton = "`_extract_{rank}d`: reshape to a grid of subtiles + tl.gather on the grid axes"

    def signature(x, /, index, shape):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    lo = ct.extract(a, (0, ct.bid(0)), (TM, TN // 2))
    hi = a.extract((0, 1), shape=(TM, TN // 2))
    ct.store(y, (0, 0), lo + hi)
""", expect=["def _extract_2d(x, index0, index1, S0: tl.constexpr, S1: tl.constexpr):",
             "t = tl.gather(t, tl.full((1, S0, G1, S1), index0, tl.int32), 0)",
             "lo = _extract_2d(a, 0, tl.program_id(0), TM, TN // 2)",
             "hi = _extract_2d(a, 0, 1, TM, TN // 2)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.full((1,), ct.extract(a, (3,), ()), dtype=ct.float32))
""", expect=["_extract_1d(a, 3, 1).item()"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TM))
    ct.store(y, (0, 0), ct.extract(a, (0,), (TM, 4)))
""", error="T2T105", message="index has 1 entries but the tile has rank 2"),
    ]

    def lower(self, call, cx):
        x, shape = known_shape(call, cx, "x")
        rank = len(shape)
        sub = static_shape(call, "shape", cx)
        scalar = len(sub) == 0
        if scalar:
            sub = ["1"] * rank
        if len(sub) != rank:
            raise cx.error(call.node_of("shape"), "T2T105",
                           f"ct.extract: shape has {len(sub)} dimensions but the tile has rank "
                           f"{rank}", help="give the shape one entry per axis of the tile")
        idx = subtile_index(call, cx, rank)
        if rank == 0:
            return x
        name = cx.need(EXTRACT, rank=rank)
        code = f"{name}({', '.join([x.code] + idx + sub)})"
        if scalar:
            return Lowered(f"{code}.item()", TileV(shape=(), dtype=dtype_of(x)))
        cx.note_tile(sub)
        return Lowered(code, TileV(shape=tuple(sub), dtype=dtype_of(x)))


class Insert(Pattern):
    constructs = ("insert",)
    methods = ("Tile.insert",)
    summary = "a copy of a tile with the subtile at a grid index replaced"
    triton = "`_insert_{rank}d`: reshape to a grid of subtiles + tl.where on the grid position"

    def signature(x, /, index, value):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    z = ct.zeros((TM, TN // 2), dtype=ct.float32)
    b = ct.insert(a, (0, 1), z)
    ct.store(y, (0, 0), b.insert((0, 0), 0.0))
""", expect=["def _insert_2d(x, index0, index1, value):",
             "hit = (tl.arange(0, G0) == index0)[:, None, None, None] & "
             "(tl.arange(0, G1) == index1)[None, None, :, None]",
             "b = _insert_2d(a, 0, 1, z)", "_insert_2d(b, 0, 0, 0.0)"]),
    ]

    def lower(self, call, cx):
        x, shape = known_shape(call, cx, "x")
        rank = len(shape)
        idx = subtile_index(call, cx, rank)
        value = call.arg("value")
        vshape = tile_shape(value)
        if vshape not in (None, ()) and len(vshape) != rank:
            raise cx.error(call.node_of("value"), "T2T105",
                           f"ct.insert: value of rank {len(vshape)} into a tile of rank {rank}",
                           help="insert a value of the tile's rank (reshape it first)")
        name = cx.need(INSERT, rank=rank)
        return Lowered(f"{name}({', '.join([x.code] + idx + [value.code])})",
                       TileV(shape=tuple(shape), dtype=dtype_of(x)))


class Item(Pattern):
    constructs = ("item",)
    methods = ("Tile.item",)
    summary = "the single element of a one-element tile, as a scalar"
    triton = "x.item()"

    def signature(x, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y):
    i = ct.load(x, (0,), (1,)).item()
    t = ct.load(y, (i,), (4,))
    ct.store(y, (0,), t)
""", expect=["i = tl.load(x_ptr + offs_x0 * x_stride0, mask=mask_x).item()"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        if isinstance(x.val, ConstV) or tile_shape(x) == ():
            return x
        shape = tile_shape(x)
        if shape is not None and any(str(s) != "1" for s in shape) and all(
                str(s).isdigit() for s in shape):
            raise cx.error(call.node, "T2T105", f"item() of a tile of shape "
                           f"{shape_code([str(s) for s in shape])}: the tile must have one element",
                           help="call item() on a tile of one element, or use ct.extract to take "
                                "one")
        return Lowered(f"{x.wrap(100)}.item()", TileV(shape=(), dtype=dtype_of(x)))


class Bitcast(Pattern):
    constructs = ("bitcast",)
    summary = "reinterpret the bits of a tile as another dtype of the same width"
    triton = "x.to(dtype, bitcast=True)"

    def signature(x, /, dtype):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,)).astype(ct.float32)
    bits = ct.bitcast(a, ct.int32)
    ct.store(y, (0,), (bits >> 23) & 255)
    ct.store(y, (0,), ct.bitcast(1.0, ct.uint32))
""", expect=["bits = a.to(tl.int32, bitcast=True)", "tl.cast(1.0, tl.uint32, bitcast=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,)).astype(ct.float32)
    ct.store(y, (0,), ct.bitcast(a, ct.int16))
""", error="T2T102", message="bit width"),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        dt = dtype_arg(call, "dtype", cx)
        src = dtype_of(x)
        if src == "weak_float":
            src = "float32"
        if src == "weak_int":
            src = "int32"
        if dtype_bits(src) and dtype_bits(dt.name):
            if "bool_" in (src, dt.name) and src != dt.name:
                raise cx.error(call.node, "T2T102", "ct.bitcast to or from bool is not supported "
                               "(cuTile rejects it too)", help="compare with 0 or use astype")
            if dtype_bits(src) != dtype_bits(dt.name):
                raise cx.error(call.node, "T2T102",
                               f"ct.bitcast from {src} to {dt.name}: the bit width differs "
                               f"({dtype_bits(src)} vs {dtype_bits(dt.name)})",
                               help="bitcast keeps the bits, so both dtypes need the same width")
        val = TileV(shape=tile_shape(x), dtype=dt.name)
        if isinstance(x.val, (ConstV, ConstExprV)):
            # a Python float is an fp32 constant (an int an int32 one) in cuTile and in Triton
            return Lowered(f"tl.cast({x.code}, {dt.triton}, bitcast=True)", val)
        return Lowered(x.cast(dt.triton, bitcast=True), val)
