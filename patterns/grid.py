"""Block indices and tile counts: ct.bid, ct.num_blocks, ct.cdiv, ct.num_tiles."""
from tile2triton.model import PREC, ArrayV, ConstExprV, ConstV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import array_order, const_value, static_shape
from ._common import broadcast_shapes, dtype_of, promote, tile_shape

CDIV = DeviceHelper("_cdiv", """@triton.jit
def _cdiv(a, b):
    \"\"\"cuTile's ceiling division rounds the exact quotient up, for any signs; tl.cdiv,
    (a + b - 1) // b with Triton's truncating //, holds only for a >= 0 and b > 0.\"\"\"
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        q = -(-a // b)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) == (b < 0)), q + 1, q)
    return q
""")




class BlockId(Pattern):
    constructs = ("bid",)
    summary = "index of the current block along an axis"
    triton = "tl.program_id(axis)"

    def signature(axis):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x):
    i = ct.bid(0)
    ct.store(x, (i,), ct.full((16,), 1.0, dtype=ct.float32))
""", expect=["i = tl.program_id(0)"]),
        Example("""
@ct.kernel
def k(x, a):
    i = ct.bid(a)
    ct.store(x, (i,), ct.full((16,), 1.0, dtype=ct.float32))
""", error="T2T103", message="`axis` must be a literal int"),
    ]

    def lower(self, call, cx):
        axis = const_value(call, "axis", cx)
        if axis not in (0, 1, 2):
            raise cx.error(call.node_of("axis"), "T2T102", "ct.bid: axis must be 0, 1 or 2",
                           help="use axis 0, 1 or 2")
        return Lowered(f"tl.program_id({axis})", TileV(shape=(), dtype="int32", nonneg=True))


class NumBlocks(Pattern):
    constructs = ("num_blocks",)
    summary = "number of blocks in the grid along an axis"
    triton = "tl.num_programs(axis)"

    def signature(axis):
        pass

    examples = [Example("""
@ct.kernel
def k(x):
    n = ct.num_blocks(1)
    ct.store(x, (ct.bid(0),), ct.full((16,), n, dtype=ct.int32))
""", expect=["n = tl.num_programs(1)"])]

    def lower(self, call, cx):
        axis = const_value(call, "axis", cx)
        if axis not in (0, 1, 2):
            raise cx.error(call.node_of("axis"), "T2T102", "ct.num_blocks: axis must be 0, 1 or 2",
                           help="use axis 0, 1 or 2")
        return Lowered(f"tl.num_programs({axis})", TileV(shape=(), dtype="int32", nonneg=True))


class CeilDiv(Pattern):
    constructs = ("cdiv",)
    summary = "ceiling division (device side; on the host it becomes triton.cdiv)"
    triton = "tl.cdiv(x, y)"

    def signature(x, y):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    n = ct.cdiv(x.shape[0], TILE)
    ct.store(x, (0,), ct.full((TILE,), n, dtype=ct.int32))
""", expect=["n = tl.cdiv(x_shape0, TILE)"])]

    def lower(self, call, cx):
        x, y = call.arg("x"), call.arg("y")
        if isinstance(x.val, ConstV) and isinstance(y.val, ConstV):
            return cx.fold(call.node, lambda a, b: -(-a // b), x.val.value, y.val.value)
        nonneg = cx.is_nonneg(x) and cx.is_nonneg(y)
        if isinstance(x.val, (ConstV, ConstExprV)) and isinstance(y.val, (ConstV, ConstExprV)):
            if nonneg:
                return Lowered(f"({x.code} + {y.code} - 1) // {y.wrap(13)}",
                               ConstExprV("cdiv"), 12)
            # constexpr arithmetic is Python's: -(-x // y) is the ceiling for any signs
            return Lowered(f"-(-{x.wrap(PREC['unary'])} // {y.wrap(13)})", ConstExprV("cdiv"),
                           PREC["unary"])
        # the quotient has the operands' broadcast shape (ct.cdiv of a tile and a scalar is a
        # tile: GPU run 15 compiled it as a scalar)
        shape = broadcast_shapes(tile_shape(x), tile_shape(y))
        # a tile whose dtype is known only at launch keeps it unknown; scalars are int32
        dtype = promote(dtype_of(x), dtype_of(y)) or ("int32" if shape == () else None)
        val = TileV(shape=shape, dtype=dtype, nonneg=nonneg)
        # tl.cdiv holds for x >= 0 and y > 0. A ct.Constant divisor is taken as positive: in
        # practice it is a tile size (cuTile's tile sizes are positive powers of two)
        if cx.is_nonneg(x) and (cx.is_nonneg(y) or isinstance(y.val, ConstExprV)):
            return Lowered(f"tl.cdiv({x.code}, {y.code})", val)
        return Lowered(f"{cx.need(CDIV)}({x.code}, {y.code})", val)


class NumTiles(Pattern):
    constructs = ("num_tiles",)
    array_param, shape_param = "array", "shape"
    summary = "number of tiles of `shape` along `axis` of an array's tile space"
    triton = "tl.cdiv(x_shape{order[axis]}, shape[axis])"

    def signature(array, axis, shape, order="C"):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TM: ct.Constant[int], TN: ct.Constant[int]):
    n = ct.num_tiles(x, 1, (TM, TN))
    ct.store(x, (0, 0), ct.full((TM, TN), n, dtype=ct.float32))
""", expect=["n = tl.cdiv(x_shape1, TN)"]), Example("""
@ct.kernel
def k(x, TM: ct.Constant[int], TN: ct.Constant[int]):
    n = ct.num_tiles(x, 0, (TM, TN), order="F")
    ct.store(x, (0, 0), ct.full((TM, TN), n, dtype=ct.float32))
""", expect=["n = tl.cdiv(x_shape1, TM)"]), Example("""
@ct.kernel
def k(x):
    n = ct.num_tiles(x, -1, ())
    ct.store(x, (0,), n)
""", expect=["n = x_shape0"]), Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    n = ct.num_tiles(x, 1, (TM,))
    ct.store(x, (0,), n)
""", error="T2T102", message="axis 1 is out of range for array `x` of rank 1")]

    def lower(self, call, cx):
        arr = call.arg("array")
        if not isinstance(arr.val, ArrayV):
            raise cx.error(call.node_of("array"), "T2T102", "ct.num_tiles: first argument must "
                           "be an array parameter",
                           help="pass an array parameter of the kernel (or a view of one)")
        info = arr.val.info
        axis = const_value(call, "axis", cx)
        shape = static_shape(call, "shape", cx)
        order = array_order(call, cx, info.rank)
        rank = info.rank
        if not shape:                # cuTile: a 0-d tile shape is the shape of ones
            shape = ["1"] * rank
        if len(shape) != rank:
            raise cx.error(call.node_of("shape"), "T2T105",
                           f"ct.num_tiles: a tile shape of {len(shape)} entries for array "
                           f"`{info.name}` of rank {rank}",
                           help="give one tile extent per array dimension (or `()` for ones)")
        if not -rank <= axis < rank:
            raise cx.error(call.node_of("axis"), "T2T102",
                           f"ct.num_tiles: axis {axis} is out of range for array `{info.name}` "
                           f"of rank {rank}", help="use an axis below the array's rank")
        axis %= rank
        extent = info.shape(order[axis])
        if shape[axis] == "1":       # tiles of one element: as many as elements
            return Lowered(extent, TileV(shape=(), dtype="int32", nonneg=True))
        return Lowered(f"tl.cdiv({extent}, {shape[axis]})",
                       TileV(shape=(), dtype="int32", nonneg=True))
