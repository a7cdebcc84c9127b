"""Shape manipulation: ct.expand_dims, ct.broadcast_to, ct.reshape, ct.permute, ct.transpose.
(`x[:, None]` / `x[None, :]` indexing is handled by the engine and reads the same in Triton.)"""
from tile2triton.model import CT_TO_TL_DTYPE, ConstV, Lowered, TileV
from tile2triton.pattern_api import Example, Pattern

from ._args import const_value, require_tile, static_shape
from ._common import dtype_of, shape_code, tile_shape


def same_kind(x, shape):
    v = x.val
    return TileV(shape=tuple(shape) if shape is not None else None, dtype=dtype_of(x),
                 tf32=getattr(v, "tf32", False), nonneg=getattr(v, "nonneg", False))


class ExpandDims(Pattern):
    constructs = ("expand_dims",)
    summary = "insert an axis of size 1"
    triton = "tl.expand_dims(x, axis)"

    def signature(x, /, axis):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0, 0), ct.expand_dims(a, 0) + a[:, None])
""", expect=["tl.expand_dims(a, 0) + a[:, None]"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        axis = const_value(call, "axis", cx)
        shape = tile_shape(x)
        if shape is not None:
            a = axis if axis >= 0 else axis + len(shape) + 1
            shape = tuple(shape[:a]) + ("1",) + tuple(shape[a:])
        return Lowered(f"tl.expand_dims({x.code}, {axis})", same_kind(x, shape))


class BroadcastTo(Pattern):
    constructs = ("broadcast_to",)
    summary = "broadcast a tile to a shape"
    triton = "tl.broadcast_to(x, shape)"

    def signature(x, /, shape):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0,), (TN,))
    ct.store(y, (0, 0), ct.broadcast_to(a, (TM, TN)))
""", expect=["tl.broadcast_to(a, (TM, TN))"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        dims = static_shape(call, "shape", cx)
        if isinstance(x.val, ConstV):
            return Lowered(f"tl.full({shape_code(dims)}, {x.code}, tl.float32)",
                           TileV(shape=tuple(dims)))
        cx.note_tile(dims)
        return Lowered(f"tl.broadcast_to({x.code}, {shape_code(dims)})", same_kind(x, dims))


class Reshape(Pattern):
    constructs = ("reshape",)
    methods = ("Tile.reshape",)
    summary = "reshape (one dimension may be -1)"
    triton = "tl.reshape(x, shape)"

    def signature(x, /, shape):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0, 0), (1, TM, TN))
    ct.store(y, (0, 0), a.reshape((TM, TN)) + ct.reshape(a, (TM, -1)))
""", expect=["tl.reshape(a, (TM, TN)) + tl.reshape(a, (TM, 1 * TM * TN // (TM)))"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        dims = static_shape(call, "shape", cx)
        if "-1" in dims:
            shape = tile_shape(x)
            if shape is None:
                raise cx.error(call.node_of("shape"), "T2T105", "ct.reshape with -1 needs the "
                               "tile's shape, which is not known here",
                               help="give every dimension explicitly instead of -1")
            total = " * ".join(str(s) for s in shape)
            rest = " * ".join(d for d in dims if d != "-1") or "1"
            dims = [f"{total} // ({rest})" if d == "-1" else d for d in dims]
        if isinstance(x.val, ConstV) and dtype_of(x) is not None and dims:
            # a number (`ct.reshape(4, (1, 1, 1))`): a tile of its dtype (int32, float32 or
            # bool, as cuTile types a Python number); Triton cannot broadcast a constexpr
            dt = {"weak_int": "int32", "weak_float": "float32"}.get(dtype_of(x), dtype_of(x))
            return Lowered(f"tl.full({shape_code(dims)}, {x.code}, {CT_TO_TL_DTYPE[dt]})",
                           TileV(shape=tuple(dims), dtype=dt))
        if tile_shape(x) == () and dims:
            # a 0-d tile to a shape of ones: tl.reshape needs a block, broadcasting a scalar
            # gives the same single element
            return Lowered(f"tl.broadcast_to({x.code}, {shape_code(dims)})", same_kind(x, dims))
        return Lowered(f"tl.reshape({x.code}, {shape_code(dims)})", same_kind(x, dims))


class Permute(Pattern):
    constructs = ("permute",)
    methods = ("Tile.permute",)
    summary = "permute tile axes"
    triton = "tl.permute(x, axes)"

    def signature(x, /, axes):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0, 0), (2, TM, TN))
    ct.store(y, (0, 0, 0), ct.permute(a, (2, 0, 1)) + ct.permute(a, (-1, 0, -2)))
""", expect=["tl.permute(a, (2, 0, 1)) + tl.permute(a, (2, 0, 1))"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        dims = static_shape(call, "axes", cx)
        try:
            axes = [int(d) for d in dims]
        except ValueError:
            raise cx.error(call.node_of("axes"), "T2T103", "ct.permute: axes must be int "
                           "literals",
                           help="pass the axes as int literals, e.g. (1, 0, 2)") from None
        # negative axes count from the end, as in cuTile; tl.permute takes 0..n-1 only
        axes = [a + len(axes) if a < 0 else a for a in axes]
        shape = tile_shape(x)
        if shape is not None and sorted(axes) != list(range(len(shape))):
            raise cx.error(call.node_of("axes"), "T2T105",
                           f"ct.permute: axes {tuple(axes)} are not a permutation of the "
                           f"{len(shape)} axes of the tile",
                           help=f"name each axis 0..{len(shape) - 1} once")
        new = tuple(shape[a] for a in axes) if shape is not None else None
        return Lowered(f"tl.permute({x.code}, {shape_code([str(a) for a in axes])})",
                       same_kind(x, new))


class Transpose(Pattern):
    constructs = ("transpose",)
    methods = ("Tile.transpose",)
    summary = "swap two axes (the two axes of a 2-D tile by default)"
    triton = "tl.trans(x) for 2-D; tl.permute otherwise"

    def signature(x, /, axis0=None, axis1=None):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0, 0), ct.transpose(a))
""", expect=["tl.trans(a).to(y_ptr.dtype.element_ty), mask=mask_y)"])]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        rank = len(shape) if shape is not None else None
        if not call.has("axis0") and not call.has("axis1"):
            if rank not in (2, None):
                raise cx.error(call.node, "T2T102", "ct.transpose of a tile with more than 2 "
                               "dimensions needs axis0 and axis1", help="name the two axes")
            new = (shape[1], shape[0]) if shape is not None else None
            return Lowered(f"tl.trans({x.code})", same_kind(x, new))
        a0 = const_value(call, "axis0", cx)
        a1 = const_value(call, "axis1", cx)
        if rank is None:
            raise cx.error(call.node, "T2T105", "ct.transpose with axes needs the tile's rank",
                           help="give the tile a known rank (an explicit shape), or transpose "
                                "without axes")
        a0, a1 = a0 % rank, a1 % rank
        perm = list(range(rank))
        perm[a0], perm[a1] = perm[a1], perm[a0]
        if rank == 2 and a0 != a1:
            return Lowered(f"tl.trans({x.code})", same_kind(x, (shape[1], shape[0])))
        new = tuple(shape[p] for p in perm)
        return Lowered(f"tl.permute({x.code}, {shape_code([str(p) for p in perm])})",
                       same_kind(x, new))
