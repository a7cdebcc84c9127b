"""Conversions: ct.astype(x, dtype) and x.astype(dtype), including ct.tfloat32.

A tfloat32 tile is held in fp32 registers, unrounded: a tf32 matrix product rounds its operands
itself, so the common `astype(ct.tfloat32)` before ct.mma costs nothing. Where the tile leaves
tfloat32 again (astype to fp32 or any other dtype) its values are rounded to tf32 first, as
cuTile's conversion does (10 mantissa bits, round to nearest even).
"""
from tile2triton.model import ConstV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import dtype_arg, reject_directed_rounding
from ._common import tile_shape


class AsType(Pattern):
    constructs = ("astype",)
    methods = ("Tile.astype",)
    summary = "convert a tile's dtype (tfloat32 marks fp32 operands for tf32 matrix products)"
    triton = "x.to(dtype)"

    def signature(x, dtype, /, *, rounding_mode=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(y, (0,), a.astype(ct.float32) + ct.astype(a, y.dtype))
""", expect=["a.to(tl.float32) + a.to(y_ptr.dtype.element_ty)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(y, (0,), a.astype(ct.float4_e2m1fn))
""", error="T2T106", message="no Triton equivalent"),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.tfloat32)
    ct.store(y, (0,), a.astype(ct.float32))
""", expect=["def _round_tf32(x):", "a = tl.load(", "_round_tf32(a).to(tl.float32)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    dtype = ct.tfloat32 if x.dtype == ct.float32 else x.dtype
    a = ct.load(x, (0,), (TILE,)).astype(dtype)
    ct.store(y, (0,), a.astype(y.dtype))
""", expect=["dtype = tl.float32 if x_ptr.dtype.element_ty == tl.float32 else "
             "x_ptr.dtype.element_ty",
             "(_round_tf32(a) if x_ptr.dtype.element_ty == tl.float32 else a)"
             ".to(y_ptr.dtype.element_ty)"]),
    ]

    def lower(self, call, cx):
        x = call.arg("x")
        dtype = dtype_arg(call, "dtype", cx)
        reject_directed_rounding(call, cx)  # RN is Triton's rounding for conversions too
        tf32 = True if dtype.name == "tfloat32" else (dtype.tf32_when or False)
        val = TileV(shape=tile_shape(x), dtype=dtype.name, tf32=tf32,
                    loaded_from=getattr(x.val, "loaded_from", None))
        if isinstance(x.val, ConstV):
            return Lowered(f"tl.full((), {x.code}, {dtype.triton})", val)
        src = x.wrap(100)
        was = getattr(x.val, "tf32", False)
        if was and tf32 is not True:
            rounded = f"{cx.need(ROUND_TF32)}({x.code})"
            src = rounded if was is True else f"({rounded} if {was} else {x.code})"
        return Lowered(f"{src}.to({dtype.triton})", val)


ROUND_TF32 = DeviceHelper("_round_tf32", """
@triton.jit
def _round_tf32(x):
    # cuTile's tfloat32 keeps 10 mantissa bits, rounded to nearest even; NaN and inf stay
    bits = x.to(tl.float32).to(tl.uint32, bitcast=True)
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    return tl.where(tl.abs(x) < float("inf"), rounded.to(tl.float32, bitcast=True), x)
""")
