"""Conversions: ct.astype(x, dtype) and x.astype(dtype), including ct.tfloat32.

A tfloat32 tile is held in fp32 registers, unrounded, and rounded where it is used as tfloat32
(10 mantissa bits, round to nearest even, as cuTile's conversion does): a matrix product rounds
its operands (patterns/mma.py; the tensor cores themselves would truncate), and where the tile
leaves tfloat32 again (astype to fp32 or any other dtype) its values are rounded first. Rounding
at the product lets a B operand loaded from an array be rounded by the launcher's copy of it,
off the kernel's registers.

`rounding_mode=` RZ / RM / RP / RA on a float conversion that rounds (float64 -> float32,
float16, bfloat16; float32 -> float16, bfloat16; to tfloat32) is computed in plain Triton, whose
conversions round to nearest even only: every value of the narrower dtype is exact in the wider
one, so the nearest-even result is compared with the source value and, where it is on the wrong
side, stepped one ulp through its bit pattern (read as an integer, the pattern orders
magnitudes: +1 is one ulp away from zero, -1 one ulp toward it, for either sign). tfloat32
roundings drop the 13 low mantissa bits of the float32 pattern after a carry where the magnitude
rounds up; a float64 source goes to float32 first with the same mode (RZ for RA: truncating to
float32 keeps every value on its side of a tfloat32 midpoint). A directed mode on a widening
conversion is that exact conversion.
"""
from tile2triton.model import ConstV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import DIRECTED_ROUNDING, dtype_arg, reject_directed_rounding
from ._common import dtype_of
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
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(y, (0,), a.astype(ct.float32, rounding_mode=ct.RoundingMode.RZ))
""", expect=["def _cvt_rz_float32(x):", "_cvt_rz_float32(a)"]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.tfloat32, rounding_mode=ct.RoundingMode.RA)
    ct.store(y, (0,), a.astype(ct.float32))
""", expect=["def _round_tf32_ra(x):", "a = _round_tf32_ra(tl.load("]),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.int32)
    ct.store(y, (0,), a.astype(ct.float32, rounding_mode=ct.RoundingMode.RZ))
""", error="T2T102", message="only valid for float to float"),
        Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,)).astype(ct.int32)
    ct.store(y, (0,), a.astype(ct.float8_e4m3fn))
""", expect=["def _convert_through_float32(x, DTYPE: tl.constexpr):",
             "_convert_through_float32(a, tl.float8e4nv)"]),
    ]

    def lower(self, call, cx):
        x = call.arg("x")
        dtype = dtype_arg(call, "dtype", cx)
        mode = directed_mode(call, cx, x, dtype)  # RN is Triton's rounding for conversions
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
        if mode is not None and dtype.name == "tfloat32":
            # the values leave this astype on the tfloat32 grid already, where the nearest-even
            # rounding applied when they leave tfloat32 keeps them
            cx.need(CVT_DIRECTED, mode="rz" if mode == "ra" else mode, dst="float32")
            return Lowered(f"{cx.need(TF32_DIRECTED, mode=mode)}({src})", val)
        if mode is not None:
            return Lowered(f"{cx.need(CVT_DIRECTED, mode=mode, dst=dtype.name)}({src})", val)
        if _through_float(dtype_of(x), dtype.name):
            return Lowered(f"{cx.need(THROUGH_FLOAT)}({x.code}, {dtype.triton})", val)
        return Lowered(x.cast(dtype.triton) if src == x.wrap(100) else f"{src}.to({dtype.triton})",
                       val)


FP8 = ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu")


def _through_float(src, dst) -> bool:
    """Whether a conversion may be between an integer (or bool) and an fp8 dtype, which
    Triton's `.to` refuses: fp8 converts only to and from floats there. A source dtype known
    only to Triton (a tile loaded from an array) is decided by the helper as it compiles."""
    if dst in FP8:
        return src is None or src in DTYPES_NOT_FLOAT
    return src in FP8 and dst in DTYPES_NOT_FLOAT


THROUGH_FLOAT = DeviceHelper("_convert_through_float32", """
@triton.jit
def _convert_through_float32(x, DTYPE: tl.constexpr):
    # fp8 converts only to and from floats in Triton; through float32 the conversion rounds
    # once, as cuTile's does: every integer in fp8's range is exact in float32, and so is
    # every fp8 value
    if x.dtype.is_int() or DTYPE.is_int():
        return x.to(tl.float32).to(DTYPE)
    else:
        return x.to(DTYPE)
""")


ROUND_TF32 = DeviceHelper("_round_tf32", """
@triton.jit
def _round_tf32(x):
    # cuTile's tfloat32 keeps 10 mantissa bits, rounded to nearest even; NaN and inf stay
    bits = x.to(tl.float32).to(tl.uint32, bitcast=True)
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    return tl.where(tl.abs(x) < float("inf"), rounded.to(tl.float32, bitcast=True), x)
""")


# the RoundingMode members computed by stepping a nearest-even conversion
STEPPED = {"RZ": "rz", "RM": "rm", "RP": "rp", "RA": "ra"}

DTYPES_NOT_FLOAT = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "weak_int")


def directed_mode(call, cx, x, dtype):
    """"rz"/"rm"/"rp"/"ra" for a directed `rounding_mode=` this pattern computes; None for the
    default (nearest even; FULL and APPROX allow nothing less exact than it) and for a widening
    float conversion, which is exact."""
    if not call.has("rounding_mode"):
        return None
    v = call.val("rounding_mode")
    if getattr(v, "enum", None) != "RoundingMode":
        return None
    src = dtype_of(x)
    if src in DTYPES_NOT_FLOAT or (dtype.name is not None and dtype.name in DTYPES_NOT_FLOAT):
        raise cx.error(call.node_of("rounding_mode"), "T2T102",
                       f"ct.{call.name}: rounding_mode is only valid for float to float "
                       "conversions", help="drop the argument (cuTile rejects it too)")
    if v.member not in DIRECTED_ROUNDING:
        return None
    if v.member in STEPPED and dtype.name in ("float32", "float16", "bfloat16", "tfloat32"):
        return STEPPED[v.member]
    if v.member in STEPPED and dtype.name == "float64":
        return None                           # every float converts to float64 exactly
    reject_directed_rounding(call, cx)
    return None


# dtype -> (the integer dtype of its bit pattern, the float dtypes that convert to it rounding)
NARROWING = {"float32": ("tl.int32", ("float64",)),
             "float16": ("tl.int16", ("float64", "float32")),
             "bfloat16": ("tl.int16", ("float64", "float32"))}

MODE_WORDS = {"rz": "toward zero", "rm": "toward -inf", "rp": "toward +inf",
              "ra": "to nearest, ties away from zero"}

# where the nearest-even result `y` (exactly `back` in the source dtype, bits `b`) is on the
# wrong side of `x`, the neighbour one ulp away: b + 1 is one ulp away from zero, b - 1 toward it
STEP = {
    "rz": "tl.where(tl.abs(back) > tl.abs(x), (b - 1).to({d}, bitcast=True), y)",
    "rm": "tl.where(back > x, tl.where(y > 0, b - 1, b + 1).to({d}, bitcast=True), y)",
    "rp": "tl.where(back < x, tl.where(y < 0, b - 1, b + 1).to({d}, bitcast=True), y)",
}


def _cvt_source(mode: str, dst: str) -> str:
    ity, sources = NARROWING[dst]
    d = f"tl.{dst}"
    out = ["@triton.jit", f"def _cvt_{mode}_{dst}(x):",
           f'    """x converted to {dst}, rounded {MODE_WORDS[mode]}: the nearest-even '
           'conversion,',
           '    stepped one ulp through its bit pattern where it is on the wrong side of x."""']
    for k, s in enumerate(sources):
        out += [f"    {'if' if k == 0 else 'elif'} x.dtype == tl.{s}:",
                f"        y = x.to({d})",
                f"        back = y.to(tl.{s})",
                f"        b = y.to({ity}, bitcast=True)"]
        if mode == "ra":
            # from the result toward zero z: one ulp away from zero where |x| reaches the
            # midpoint |z| + ulp / 2 (exact in the wider dtype; the ulp of the largest finite
            # value is the one below it). Not from the nearest-even result, which a conversion
            # through float32 may have rounded twice.
            out += ["        z = " + STEP["rz"].format(d=d),
                    f"        zb = z.to({ity}, bitcast=True)",
                    f"        za = tl.abs(z.to(tl.{s}))",
                    f"        up = (zb + 1).to({d}, bitcast=True)",
                    f"        ulp = tl.where(tl.abs(up) == float(\"inf\"), "
                    f"za - tl.abs((zb - 1).to({d}, bitcast=True).to(tl.{s})), "
                    f"tl.abs(up.to(tl.{s})) - za)",
                    "        y = tl.where(tl.abs(x) >= za + ulp * 0.5, up, z)"]
        else:
            out.append("        y = " + STEP[mode].format(d=d))
    other = {"float16": "bfloat16", "bfloat16": "float16"}.get(dst)
    if other:
        out += [f"    elif x.dtype == tl.{other}:",
                f'        tl.static_assert(False, "astype: a directed rounding from {other} to '
                f'{dst} is not translated")',
                f"        y = x.to({d})"]
    out += ["    else:", f"        y = x.to({d})", "    return y"]
    return "\n" + "\n".join(out) + "\n"


CVT_DIRECTED = DeviceHelper("_cvt_{mode}_{dst}", _cvt_source)

TF32_STEP = {
    "rz": "r = bits & 0xFFFFE000",
    "ra": "r = (bits + 0x1000) & 0xFFFFE000",
    "rm": "r = tl.where(f < 0, bits + 0x1FFF, bits) & 0xFFFFE000",
    "rp": "r = tl.where(f > 0, bits + 0x1FFF, bits) & 0xFFFFE000",
}


def _tf32_source(mode: str) -> str:
    first = "rz" if mode == "ra" else mode
    return f'''
@triton.jit
def _round_tf32_{mode}(x):
    """x rounded {MODE_WORDS[mode]} to tfloat32 (10 mantissa bits), held in float32; the 13 low
    bits of the float32 pattern are dropped, after a carry where the magnitude rounds up."""
    if x.dtype == tl.float64:
        f = _cvt_{first}_float32(x)
    else:
        f = x.to(tl.float32)
    bits = f.to(tl.uint32, bitcast=True)
    {TF32_STEP[mode]}
    return tl.where(tl.abs(f) < float("inf"), r.to(tl.float32, bitcast=True), f)
'''


TF32_DIRECTED = DeviceHelper("_round_tf32_{mode}", _tf32_source)
