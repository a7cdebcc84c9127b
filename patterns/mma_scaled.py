"""ct.mma_scaled: block-scaled matrix multiply-accumulate.

cuTile computes sum_k x[i, k] * x_scale[i, k // B] * y[k, j] * y_scale[k // B, j] + acc[i, j]
with B = K // K_s. Triton 3.6's tl.dot_scaled covers cuTile's fp8 row: float8_e4m3fn / float8_e5m2
operands with float8_e8m0fnu scales over blocks of B = 32, fp32 accumulator, 2-D or 3-D
(batched) tiles. It takes the scales as uint8 and the right-hand scales laid out (N, K // 32),
the transpose of cuTile's (K // 32, N), so the `_mma_scaled` helper bitcasts and transposes them.

cuTile's float4_e2m1fn rows have no translation: Triton takes fp4 operands packed two per byte
(a uint8 tile of half the K extent), while a cuTile fp4 tile holds one value per element and
Triton has no fp4 element type to load it into; e4m3 scales (B = 16) only exist for fp4 in both.
"""
from tile2triton.model import Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import require_tile
from ._common import dtype_of, tile_shape

FP8 = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}

MMA_SCALED = DeviceHelper("_mma_scaled", '''
@triton.jit
def _mma_scaled(x, x_scale, y, y_scale, acc):
    """ct.mma_scaled for fp8 operands (e4m3 / e5m2) with e8m0 scales, one per 32 elements of K:
    tl.dot_scaled, which takes the scales as uint8 and the right-hand scales laid out
    (N, K // 32), the transpose of cuTile's (K // 32, N)."""
    tl.static_assert((x.dtype == tl.float8e4nv) or (x.dtype == tl.float8e5),
                     "ct.mma_scaled: only float8_e4m3fn / float8_e5m2 operands are translated")
    tl.static_assert((y.dtype == tl.float8e4nv) or (y.dtype == tl.float8e5),
                     "ct.mma_scaled: only float8_e4m3fn / float8_e5m2 operands are translated")
    tl.static_assert(x_scale.dtype.primitive_bitwidth == 8,
                     "ct.mma_scaled: the scales must be float8_e8m0fnu (one byte each)")
    tl.static_assert(x.shape[len(x.shape) - 1] == 32 * x_scale.shape[len(x_scale.shape) - 1],
                     "ct.mma_scaled: Triton scales blocks of 32 elements of K only")
    X_FORMAT: tl.constexpr = "e4m3" if x.dtype == tl.float8e4nv else "e5m2"
    Y_FORMAT: tl.constexpr = "e4m3" if y.dtype == tl.float8e4nv else "e5m2"
    xs = x_scale.to(tl.uint8, bitcast=True)
    ys = y_scale.to(tl.uint8, bitcast=True)
    if len(y_scale.shape) == 3:
        ys = tl.permute(ys, (0, 2, 1))
    else:
        ys = tl.trans(ys)
    return tl.dot_scaled(x, xs, X_FORMAT, y, ys, Y_FORMAT, acc)
''')


class MmaScaled(Pattern):
    constructs = ("mma_scaled",)
    summary = "block-scaled x @ y + acc (fp8 operands, e8m0 scales per 32 elements of K)"
    triton = "tl.dot_scaled through `_mma_scaled` (scales bitcast to uint8, rhs scales transposed)"

    def signature(x, x_scale, y, y_scale, /, acc):
        pass

    examples = [
        Example("""
@ct.kernel
def k(a, sa, b, sb, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK))
    xs = ct.load(sa, (0, 0), (TM, TK // 32))
    y = ct.load(b, (0, 0), (TK, TN))
    ys = ct.load(sb, (0, 0), (TK // 32, TN))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    ct.store(c, (0, 0), ct.mma_scaled(x, xs, y, ys, acc))
""", expect=["def _mma_scaled(x, x_scale, y, y_scale, acc):",
             "return tl.dot_scaled(x, xs, X_FORMAT, y, ys, Y_FORMAT, acc)",
             "_mma_scaled(x, xs, y, ys, acc)"]),
        Example("""
@ct.kernel
def k(a, sa, b, sb, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK)).astype(ct.float16)
    xs = ct.load(sa, (0, 0), (TM, TK // 32))
    y = ct.load(b, (0, 0), (TK, TN))
    ys = ct.load(sb, (0, 0), (TK // 32, TN))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    ct.store(c, (0, 0), ct.mma_scaled(x, xs, y, ys, acc))
""", error="T2T106", message="float16 operands"),
        Example("""
@ct.kernel
def k(a, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.ones((TM, TK), ct.float4_e2m1fn)
    ct.store(c, (0, 0), x)
""", error="T2T106", message="ct.float4_e2m1fn has no Triton equivalent"),
    ]

    def lower(self, call, cx):
        x, y = require_tile(call, "x", cx), require_tile(call, "y", cx)
        xs, ys = require_tile(call, "x_scale", cx), require_tile(call, "y_scale", cx)
        acc = require_tile(call, "acc", cx)
        for param, t in (("x", x), ("y", y)):
            d = dtype_of(t)
            if d is not None and d not in FP8:
                raise cx.error(call.node_of(param), "T2T106",
                               f"ct.mma_scaled with {d} operands has no Triton translation",
                               help="tl.dot_scaled is used for float8_e4m3fn / float8_e5m2 "
                                    "operands with float8_e8m0fnu scales (blocks of 32)")
        for param, t in (("x_scale", xs), ("y_scale", ys)):
            d = dtype_of(t)
            if d is not None and d not in ("uint8", "int8"):
                raise cx.error(call.node_of(param), "T2T106",
                               f"ct.mma_scaled with {d} scales has no Triton translation",
                               help="Triton's scaled dot takes float8_e8m0fnu scales for fp8 "
                                    "operands")
        d = dtype_of(acc)
        if d is not None and d != "float32":
            raise cx.error(call.node_of("acc"), "T2T102",
                           f"ct.mma_scaled: the accumulator must be float32, not {d}",
                           help="accumulate in a float32 tile and convert the result afterwards")
        sx, sy = tile_shape(x), tile_shape(y)
        if sx is not None and sy is not None and len(sx) != len(sy):
            raise cx.error(call.node, "T2T106", "ct.mma_scaled of a 2-D and a 3-D operand: "
                           "tl.dot_scaled needs both operands of one rank",
                           help="broadcast the 2-D operand to the batch (ct.broadcast_to)")
        name = cx.need(MMA_SCALED)
        cx.mark_dot()
        shape = tile_shape(acc)
        cx.note_tile(shape)
        return Lowered(f"{name}({x.code}, {xs.code}, {y.code}, {ys.code}, {acc.code})",
                       TileV(shape=shape, dtype="float32"))
