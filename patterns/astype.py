"""Conversions: ct.astype(x, dtype) and x.astype(dtype), including ct.tfloat32."""
from tile2triton.model import ConstV, Lowered, TileV
from tile2triton.pattern_api import Example, Pattern

from ._common import dtype_arg, tile_shape


class AsType(Pattern):
    constructs = ("astype",)
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
    ]

    def lower(self, call, cx):
        x = call.arg("x")
        dtype = dtype_arg(call, "dtype", cx)
        if call.has("rounding_mode") and not isinstance(call.val("rounding_mode"), ConstV):
            pass  # RN is Triton's rounding for float conversions too; other modes: see docs
        val = TileV(shape=tile_shape(x), dtype=dtype.name, tf32=dtype.name == "tfloat32")
        if isinstance(x.val, ConstV):
            return Lowered(f"tl.full((), {x.code}, {dtype.triton})", val)
        return Lowered(f"{x.wrap(100)}.to({dtype.triton})", val)
