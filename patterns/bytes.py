"""Byte reinterpretation: ct.pack_to_bytes(x) and ct.unpack_from_bytes(x, dtype).

Triton bitcasts only between dtypes of one width, so a wider element is first bitcast to the
unsigned integer of its width and split into bytes with shifts and masks (least significant byte
first, the order of the bytes in memory on the GPU); unpacking reassembles each group of bytes
with shifts and a sum (the bytes occupy disjoint bits, so the sum is their bitwise or). The width
is read from the dtype inside the helper, so `y.dtype` of an array parameter works as well as a
literal dtype.
"""
from tile2triton.model import DTYPES, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import dtype_arg, require_tile
from ._common import dtype_of, tile_shape

PACK = DeviceHelper("_pack_to_bytes", """
@triton.jit
def _pack_to_bytes(x):
    # the raw bytes of a tile, flattened, least significant byte of each element first
    NB: tl.constexpr = x.dtype.primitive_bitwidth // 8
    flat = tl.reshape(x, (x.numel,))
    if NB == 1:
        out = flat.to(tl.uint8, bitcast=True)
    else:
        if NB == 2:
            bits = flat.to(tl.uint16, bitcast=True)
        elif NB == 4:
            bits = flat.to(tl.uint32, bitcast=True)
        else:
            bits = flat.to(tl.uint64, bitcast=True)
        shifts = (tl.arange(0, NB) * 8).to(bits.dtype)
        parts = ((bits[:, None] >> shifts[None, :]) & 0xFF).to(tl.uint8)
        out = tl.reshape(parts, (x.numel * NB,))
    return out
""")

UNPACK = DeviceHelper("_unpack_from_bytes", """
@triton.jit
def _unpack_from_bytes(x, DTYPE: tl.constexpr):
    # groups of bytes (least significant first) reassembled into elements of DTYPE
    NB: tl.constexpr = DTYPE.primitive_bitwidth // 8
    if NB == 1:
        out = x.to(DTYPE, bitcast=True)
    else:
        if NB == 2:
            UINT: tl.constexpr = tl.uint16
        elif NB == 4:
            UINT: tl.constexpr = tl.uint32
        else:
            UINT: tl.constexpr = tl.uint64
        shifts = (tl.arange(0, NB) * 8).to(UINT)
        parts = tl.reshape(x, (x.numel // NB, NB)).to(UINT) << shifts[None, :]
        out = tl.sum(parts, axis=1).to(UINT).to(DTYPE, bitcast=True)
    return out
""")


def _bytes_of(dtype_name, cx, node, what):
    d = DTYPES.get(dtype_name) if dtype_name else None
    if d is None:
        return None
    if d.kind == "bool":
        raise cx.error(node, "T2T102", f"ct.{what}: a bool_ tile has no byte layout",
                       help="cuTile rejects bool_ here too; convert with astype(ct.uint8)")
    if d.triton is None or d.bits % 8:
        raise cx.error(node, "T2T106", f"ct.{what}: ct.{d.name} has no Triton equivalent",
                       help="Triton has no dtype of this format")
    return d.bits // 8


def _elements(shape):
    if shape is None:
        return None
    if not shape:
        return "1"
    return " * ".join(str(s) for s in shape)


class PackToBytes(Pattern):
    constructs = ("pack_to_bytes",)
    summary = "a tile's raw bytes as a 1-D uint8 tile"
    triton = "`_pack_to_bytes(x)`: bitcast to the unsigned int of the width, shifts and masks"

    def signature(x, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    ct.store(y, (0,), ct.pack_to_bytes(t))
""", expect=["def _pack_to_bytes(x):", "flat.to(tl.uint32, bitcast=True)",
             "_pack_to_bytes(t)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,)) > 0
    ct.store(y, (0,), ct.pack_to_bytes(t))
""", error="T2T102", message="bool_"),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        nb = _bytes_of(dtype_of(x), cx, call.node, "pack_to_bytes")
        n = _elements(tile_shape(x))
        if n is None:
            shape = None
        elif nb is None:       # the width is known to Triton only: ask it there
            shape = (f"{n} * ({x.code}.dtype.primitive_bitwidth // 8)",) \
                if x.code.isidentifier() else None
        else:
            shape = (n if nb == 1 else f"{n} * {nb}",)
        name = cx.need(PACK)
        # a 0-d tile (a Triton scalar, which has no numel) as a block of one element
        code = f"tl.broadcast_to({x.code}, (1,))" if tile_shape(x) == () else x.code
        return Lowered(f"{name}({code})", TileV(shape=shape, dtype="uint8"))


class UnpackFromBytes(Pattern):
    constructs = ("unpack_from_bytes",)
    summary = "a 1-D uint8 tile's bytes reinterpreted as elements of another dtype"
    triton = "`_unpack_from_bytes(x, dtype)`: shifts and a sum, then a bitcast"

    def signature(x, /, dtype):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    ct.store(y, (0,), ct.unpack_from_bytes(t, y.dtype))
""", expect=["def _unpack_from_bytes(x, DTYPE: tl.constexpr):",
             "_unpack_from_bytes(t, y_ptr.dtype.element_ty)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.unpack_from_bytes(t, ct.int32))
""", error="T2T105", message="1-D"),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        dtype = dtype_arg(call, "dtype", cx)
        shape = tile_shape(x)
        if shape is not None and len(shape) != 1:
            raise cx.error(call.node_of("x"), "T2T105",
                           f"ct.unpack_from_bytes needs a 1-D uint8 tile, got rank {len(shape)}",
                           help="flatten the bytes first with ct.reshape(t, (-1,))")
        if dtype_of(x) not in (None, "uint8"):
            raise cx.error(call.node_of("x"), "T2T102",
                           f"ct.unpack_from_bytes needs a uint8 tile, got {dtype_of(x)}",
                           help="pack the tile with ct.pack_to_bytes first")
        nb = _bytes_of(dtype.name, cx, call.node_of("dtype"), "unpack_from_bytes")
        out = None
        if shape is not None and nb is None:    # the width is known to Triton only
            out = (f"{shape[0]} // ({dtype.triton}.primitive_bitwidth // 8)",)
        elif shape is not None:
            n = shape[0]
            if isinstance(n, int) or str(n).isdigit():
                if int(n) % nb:
                    raise cx.error(call.node, "T2T105",
                                   f"ct.unpack_from_bytes: {n} bytes do not divide into "
                                   f"{nb}-byte elements", help="cuTile rejects this too")
                out = (str(int(n) // nb),)
            else:
                out = (str(n) if nb == 1 else f"{n} // {nb}",)
        name = cx.need(UNPACK)
        return Lowered(f"{name}({x.code}, {dtype.triton})", TileV(shape=out, dtype=dtype.name))
