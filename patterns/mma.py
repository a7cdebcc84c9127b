"""Matrix products: ct.mma(x, y, acc), ct.matmul(x, y) and `x @ y`.

cuTile computes float32 operands in true fp32; tl.dot defaults to tf32 for fp32, so every dot
names its precision: "ieee" unless an operand went through astype(ct.tfloat32), then "tf32",
its tfloat32 operands rounded to nearest even first as cuTile rounds them (the tensor cores
would truncate): operands loaded straight from arrays by the launcher's copies, others in
registers.
ct.mma keeps the accumulator's dtype (tl.dot with acc does too). A 3-D operand with a 2-D one is
broadcast over the batch axis, as cuTile does.

Triton uses Hopper's warp-group MMA (wgmma) only for 2-D dots: a 3-D tl.dot on (1, TM, TK) tiles
measured 70x slower on the H200 (docs/performance.md). So an mma whose batch axis is 1 is
emitted as a 2-D dot between reshapes, which cost nothing.

tl.dot needs M, N >= 16 and K >= 16 (32 for 8-bit operands); cuTile's mma takes any size. A
2-D product whose sizes are not all known to be large enough goes through `_dot_any_size`,
which is tl.dot itself when they are (a static branch, decided when Triton compiles) and
otherwise spreads each small dimension over the minimum by repeating its elements (zeroing the
repeats along the depth) and takes one of the result's equal copies back; an operand whose own
dimensions are large enough reaches tl.dot untouched (decode attention's 4 query rows against
64-key tiles: the keys and values keep the pipelined path of any dot operand).
Operands tl.dot does not take (uint8, int8 with uint8, and a float64 matmul fed by a narrower
float, which does not compile on the H200) are multiplied elementwise and summed
(`_dot_by_sum`), in the accumulator's dtype. A 1-D operand of ct.matmul follows numpy: a row
(1, K) on the left, a column (K, 1) on the right, its axis dropped from the result (two vectors
give a 0-d tile).
"""
from tile2triton.model import Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import const_bool, require_tile
from ._common import dtype_of, promote, shape_code, tile_shape
from .astype import ROUND_TF32

NON_FP32 = {"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int8", "uint8", "float64"}


def precision(x, y):
    tx, ty = getattr(x.val, "tf32", False), getattr(y.val, "tf32", False)
    if tx is True or ty is True:
        return '"tf32"'
    if dtype_of(x) in NON_FP32 and dtype_of(y) in NON_FP32:
        return None  # not an fp32 product: tl.dot's precision setting does not apply
    if tx or ty:
        # a dtype chosen per specialization: tf32 only where the condition holds (Triton
        # folds the condition when it compiles each dtype)
        cond = " or ".join(sorted({c for c in (tx, ty) if c}))
        return f'"tf32" if {cond} else "ieee"'
    return '"ieee"'


def rounded_tf32(low, cx):
    """`low` as the tensor cores should see a tfloat32 operand: rounded to nearest even, as
    cuTile rounds it. Triton's tf32 products drop the low 13 mantissa bits instead (GPU run
    50: 42 % of a 1024x2048x1024 product's elements beyond 2e-4 of cuTile's; rounded first,
    bit for bit cuTile's). An operand tf32 only for some dtypes rounds only for those."""
    tf32 = getattr(low.val, "tf32", False)
    if not tf32:
        return low
    call = f"{cx.need(ROUND_TF32)}({low.code})"
    code = call if tf32 is True else f"({call} if {tf32} else {low.code})"
    return Lowered(code, low.val)


FP8 = ("float8_e4m3fn", "float8_e5m2")


def fp8_accumulation(x, y) -> str:
    """`, max_num_imprecise_acc=K` (the product's depth) where the operands may be fp8. On
    sm_90 Triton multiplies fp8 on wgmma, whose accumulator keeps fewer bits than fp32;
    cuTile's default (`use_fast_acc=False`), like cuBLAS's fp8 GEMM, adds each ct.mma's
    product to the fp32 accumulator once: GPU run 51, BatchMatMul's 128x256x128 tiles, the
    depth (128) gives cuTile's result bit for bit, 0 / 32 / 64 / Triton's default differ from
    it in 99 / 93 / 87 / 83 % of the elements. Other dtypes ignore the argument; operands
    known not to be fp8 omit it; a depth unknown here promotes after every step (0)."""
    if not all(dtype_of(v) is None or dtype_of(v) in FP8 for v in (x, y)):
        return ""
    sx = tile_shape(x)
    depth = sx[-1] if sx else None
    return f", max_num_imprecise_acc={depth if depth is not None else 0}"


DOT_BY_SUM = DeviceHelper("_dot_by_sum", """
@triton.jit
def _dot_by_sum(x, y, ACC: tl.constexpr):
    # x @ y (2-D or 3-D) as a sum of products in ACC, for operands tl.dot does not take
    if len(x.shape) == 2:
        return tl.sum(x.to(ACC)[:, :, None] * y.to(ACC)[None, :, :], axis=1)
    else:
        return tl.sum(x.to(ACC)[:, :, :, None] * y.to(ACC)[:, None, :, :], axis=2)
""")

DOT_ANY_SIZE = DeviceHelper("_dot_any_size", """
@triton.jit
def _dot_any_size(x, y, acc, PREC: tl.constexpr):
    # tl.dot needs one dtype (not uint8), M, N >= 16 and K >= 16 (32 for 8 bits); cuTile's mma
    # does not: a small 2-D product is spread over the minimum, others summed elementwise
    M: tl.constexpr = x.shape[-2]
    K: tl.constexpr = x.shape[-1]
    N: tl.constexpr = y.shape[-1]
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    if M >= 16 and N >= 16 and K >= MIN_K and x.dtype == y.dtype and x.dtype != tl.uint8:
        return tl.dot(x, y, acc, input_precision=PREC, out_dtype=acc.dtype, max_num_imprecise_acc=K)
    elif x.dtype != y.dtype or x.dtype == tl.uint8 or len(x.shape) == 3:
        return acc + _dot_by_sum(x, y, acc.dtype)
    else:  # elements repeated (the depth's repeats zeroed), one of the equal results kept
        RM: tl.constexpr = 16 // M if M < 16 else 1
        RN: tl.constexpr = 16 // N if N < 16 else 1
        RK: tl.constexpr = MIN_K // K if K < MIN_K else 1
        xs = x  # (an operand large enough reaches tl.dot as it is, pipelined as usual)
        if RM > 1 or RK > 1:
            xs = tl.reshape(tl.broadcast_to(x[:, None, :, None], (M, RM, K, RK)), (M * RM, K * RK))
            if RK > 1:
                xs = tl.where((tl.arange(0, K * RK) % RK == 0)[None, :], xs, tl.zeros_like(xs))
        ys = y
        if RN > 1 or RK > 1:
            ys = tl.reshape(tl.broadcast_to(y[:, None, :, None], (K, RK, N, RN)), (K * RK, N * RN))
        prod = tl.dot(xs, ys, input_precision=PREC, out_dtype=acc.dtype, max_num_imprecise_acc=K * RK)
        if RM > 1 or RN > 1:
            prod = tl.max(tl.max(tl.reshape(prod, (M, RM, N, RN)), axis=3), axis=1)
        return acc + prod.to(acc.dtype)
""", requires=(DOT_BY_SUM,))

MATMUL = DeviceHelper("_matmul", r'''@triton.jit
def _matmul(a, b, INPUT_PRECISION: tl.constexpr):
    """ct.matmul / `@`: the product in the operands' promoted dtype (tl.dot wants one dtype),
    accumulated in fp32 (int32 for integers, fp64 for fp64)."""
    DT: tl.constexpr = (tl.zeros((1,), a.dtype) + tl.zeros((1,), b.dtype)).dtype
    x = a.to(DT)
    y = b.to(DT)
    if DT == tl.float64 and a.dtype != b.dtype:
        # a float64 tl.dot fed by a converted 16/32-bit operand does not compile (H200)
        out = _dot_by_sum(a, b, tl.float64)
    else:
        ACC: tl.constexpr = DT if DT == tl.float64 else tl.int32 if DT.is_int() else tl.float32
        if len(x.shape) == 2:
            acc = tl.zeros((x.shape[0], y.shape[1]), ACC)
        else:
            acc = tl.zeros((x.shape[0], x.shape[1], y.shape[2]), ACC)
        out = _dot_any_size(x, y, acc, INPUT_PRECISION).to(DT)
    return out
''', requires=(DOT_ANY_SIZE, DOT_BY_SUM))


def known_large(dims, minimum):
    """True when every dimension is an int literal of at least `minimum`."""
    return all(str(d).isdigit() and int(d) >= minimum for d in dims)


def batch_broadcast(x, y, cx, node):
    """Bring a 2-D operand to the 3-D operand's batch size."""
    sx, sy = tile_shape(x), tile_shape(y)
    for s in (sx, sy):
        if s is not None and len(s) not in (2, 3):
            raise cx.error(node, "T2T105", f"matrix product of a {len(s)}-D operand: operands "
                           "must be 2-D or 3-D tiles", help="reshape the operands to 2-D tiles")
    if sx is None or sy is None or len(sx) == len(sy):
        return x.code, y.code, sx, sy
    if len(sx) == 3 and len(sy) == 2:
        new = (sx[0],) + tuple(sy)
        return x.code, f"tl.broadcast_to({y.wrap(100)}[None, :, :], {shape_code(new)})", sx, new
    if len(sx) == 2 and len(sy) == 3:
        new = (sy[0],) + tuple(sx)
        return f"tl.broadcast_to({x.wrap(100)}[None, :, :], {shape_code(new)})", y.code, new, sy
    raise cx.error(node, "T2T105", f"matrix product of tiles of rank {len(sx)} and {len(sy)} "
                   "is not supported", help="use 2-D or 3-D tiles")


def unit_batch_dot(x, y, acc, sx, sy, sacc, extra):
    """tl.dot on 2-D views when every 3-D operand has a batch axis of 1, else None."""
    shapes = [sh for sh in (sx, sy, sacc) if sh is not None]
    if sx is None or sy is None or sacc is None or not any(len(sh) == 3 for sh in shapes):
        return None
    if any(len(sh) not in (2, 3) or (len(sh) == 3 and sh[0] != "1") for sh in shapes):
        return None

    def flat(code, sh):
        return code if len(sh) == 2 else f"tl.reshape({code}, {shape_code(list(sh[1:]))})"
    dot = f"tl.dot({flat(x.code, sx)}, {flat(y.code, sy)}, {flat(acc.code, sacc)}{extra})"
    return dot if len(sacc) == 2 else f"tl.reshape({dot}, {shape_code(list(sacc))})"


def out_shape(sx, sy):
    if sx is None or sy is None:
        return None
    return tuple(sx[:-1]) + (sy[-1],)


class Mma(Pattern):
    constructs = ("mma",)
    summary = "x @ y + acc, keeping acc's dtype (fp32 exact; tf32 only after astype(tfloat32))"
    triton = 'tl.dot(x, y, acc, input_precision="ieee" | "tf32")'

    def signature(x, y, /, acc, *, use_fast_acc=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    x = ct.load(a, (0, 0), (TM, TK))
    y = ct.load(b, (0, 0), (TK, TN))
    acc = ct.mma(x, y, acc)
    ct.store(c, (0, 0), acc)
""", expect=['acc = _dot_any_size(x, y, acc, "ieee")']),
        Example("""
@ct.kernel
def k(a, b, c):
    acc = ct.zeros((64, 32), dtype=ct.float32)
    x = ct.load(a, (0, 0), (64, 16))
    y = ct.load(b, (0, 0), (16, 32))
    ct.store(c, (0, 0), ct.mma(x, y, acc))
""", expect=['tl.dot(x, y, acc, input_precision="ieee", max_num_imprecise_acc=16)']),
        Example("""
@ct.kernel
def k(a, b, c):
    acc = ct.zeros((2, 8), dtype=ct.float32)
    x = ct.load(a, (0, 0), (2, 4))
    y = ct.load(b, (0, 0), (4, 8))
    ct.store(c, (0, 0), ct.mma(x, y, acc))
""", expect=["def _dot_any_size(x, y, acc, PREC: tl.constexpr):",
             '_dot_any_size(x, y, acc, "ieee")']),
        Example("""
@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    x = ct.load(a, (0, 0), (TM, TK)).astype(ct.tfloat32)
    y = ct.load(b, (0, 0), (TK, TN)).astype(ct.tfloat32)
    ct.store(c, (0, 0), ct.mma(x, y, acc))
""", expect=['_dot_any_size(x, y, acc, "tf32")']),
        Example("""
@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((2, TM, TN), dtype=ct.float32)
    x = ct.load(a, (0, 0, 0), (2, TM, TK)).astype(ct.float16)
    y = ct.load(b, (0, 0), (TK, TN)).astype(ct.float16)
    ct.store(c, (0, 0, 0), ct.mma(x, y, acc))
""", expect=["_dot_any_size(x, tl.broadcast_to(y[None, :, :], (2, TK, TN)), acc, None)"]),
        # a batch axis of 1 (batched matmul tiles): a 2-D dot, which Triton makes a wgmma
        Example("""
@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    x = ct.load(a, (0, 0, 0), (1, TM, TK)).astype(ct.float16)
    y = ct.load(b, (0, 0, 0), (1, TK, TN)).astype(ct.float16)
    ct.store(c, (0, 0, 0), ct.mma(x, y, acc))
""", expect=["tl.reshape(tl.dot(tl.reshape(x, (TM, TK)), tl.reshape(y, (TK, TN)), "
             "tl.reshape(acc, (TM, TN))), (1, TM, TN))"]),
        # use_fast_acc=True: Triton's own fp8 accumulation (no max_num_imprecise_acc)
        Example("""
@ct.kernel
def k(a, b, c):
    acc = ct.zeros((64, 32), dtype=ct.float32)
    x = ct.load(a, (0, 0), (64, 32))
    y = ct.load(b, (0, 0), (32, 32))
    ct.store(c, (0, 0), ct.mma(x, y, acc, use_fast_acc=True))
""", expect=['tl.dot(x, y, acc, input_precision="ieee")']),
    ]

    def lower(self, call, cx):
        x, y = require_tile(call, "x", cx), require_tile(call, "y", cx)
        acc = require_tile(call, "acc", cx)
        prec = precision(x, y)
        # use_fast_acc=True: cuTile lets an fp8 product accumulate at the tensor cores' own
        # precision on sm_90, which is Triton's default
        fast = const_bool(call, cx, "use_fast_acc") is True
        extra = (f", input_precision={prec}" if prec else "") + (
            "" if fast else fp8_accumulation(x, y))
        sx_rows = tile_shape(x)
        cx.mark_dot(fma=prec == '"ieee"', tf32='"tf32"' in (prec or ""),
                    rows=sx_rows[-2] if sx_rows and len(sx_rows) >= 2 else None)
        # tiles loaded straight from arrays: the arrays they come from (`loaded_from`)
        b_src, a_src = getattr(y.val, "loaded_from", None), getattr(x.val, "loaded_from", None)
        if prec and "tf32" in prec:
            # tf32 operands rounded as cuTile rounds them: where both are loaded straight from
            # arrays (two), by the launcher, in copies of them, since operands rounded in
            # registers leave wgmma's shared-memory path (GPU runs 30 and 51: 0.53x, 0.74x);
            # else here. (The launcher rounds every float32 operand it is handed: only where
            # both are tf32 for every float32 dtype, not by some other constant's choice.)
            by_dtype = [t is True or "dtype" in str(t)
                        for t in (getattr(x.val, "tf32", False), getattr(y.val, "tf32", False))]
            if b_src and a_src and b_src != a_src and all(by_dtype) \
                    and {a_src, b_src} <= cx.read_only_arrays():
                cx.note_tf32_operands(b_src, a_src)
            else:
                x, y = rounded_tf32(x, cx), rounded_tf32(y, cx)
        flat = unit_batch_dot(x, y, acc, tile_shape(x), tile_shape(y), tile_shape(acc), extra)
        xc, yc, sx, sy = batch_broadcast(x, y, cx, call.node)
        shape = tile_shape(acc) or out_shape(sx, sy)
        cx.note_tile(shape)
        val = TileV(shape=shape, dtype=dtype_of(acc))
        if flat:
            return Lowered(flat, val)
        small_k = 32 if dtype_of(x) in ("int8", "uint8", "float8_e4m3fn", "float8_e5m2") else 16
        if sx is not None and sy is not None and len(sx) == len(sy) and not (
                known_large(sx[-2:-1], 16) and known_large(sy[-1:], 16)
                and known_large(sx[-1:], small_k)):
            helper = cx.need(DOT_ANY_SIZE)
            return Lowered(f"{helper}({xc}, {yc}, {acc.code}, {prec or 'None'})", val)
        return Lowered(f"tl.dot({xc}, {yc}, {acc.code}{extra})", val)


class MatMul(Pattern):
    constructs = ("matmul",)
    operators = {"@": "matmul"}
    summary = "`x @ y` / ct.matmul: product in the promoted operand dtype"
    triton = "`_matmul(x, y, precision)`: tl.dot accumulated wide, cast back"

    def signature(x, y, /):
        pass

    examples = [Example("""
@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK))
    y = ct.load(b, (0, 0), (TK, TN))
    ct.store(c, (0, 0), x @ y + ct.matmul(x, y))
""", expect=['_matmul(x, y, "ieee") + _matmul(x, y, "ieee")']),
        Example("""
@ct.kernel
def k(a, b, c, TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0,), (TK,))
    y = ct.load(b, (0, 0), (TK, TN))
    ct.store(c, (0,), x @ y)
""", expect=['tl.reshape(_matmul(tl.reshape(x, (1, TK)), y, "ieee"), (TN,))'])]

    def lower(self, call, cx):
        x, y = require_tile(call, "x", cx), require_tile(call, "y", cx)
        exact = precision(x, y)
        prec = exact or '"ieee"'
        sx0, sy0 = tile_shape(x), tile_shape(y)
        vx, vy = sx0 is not None and len(sx0) == 1, sy0 is not None and len(sy0) == 1
        if (vx or vy) and (sx0 is None or sy0 is None):
            raise cx.error(call.node, "T2T104", "matrix product of a 1-D tile with a tile whose "
                           "rank is unknown here", help="give the other operand a known shape")
        if vx:   # as numpy: a 1-D left operand is a row (1, K), its axis dropped from the result
            x = _as_matrix(x, ("1", str(sx0[0])))
        if vy:   # a 1-D right operand is a column (K, 1)
            y = _as_matrix(y, (str(sy0[0]), "1"))
        if "tf32" in prec:
            x, y = rounded_tf32(x, cx), rounded_tf32(y, cx)
        xc, yc, sx, sy = batch_broadcast(x, y, cx, call.node)
        cx.mark_dot(fma=exact == '"ieee"', tf32='"tf32"' in (prec or ""),
                    rows=sx[-2] if sx and len(sx) >= 2 else None)
        shape = out_shape(sx, sy)
        code = f"{cx.need(MATMUL)}({xc}, {yc}, {prec})"
        if vx or vy:
            shape = tuple(shape[:-2]) + (() if vx else (shape[-2],)) + (() if vy else (shape[-1],))
            if shape == ():      # a dot product: the one element of the (1, 1) product
                code = f"tl.max(tl.reshape({code}, (1,)), axis=0)"
            else:
                code = f"tl.reshape({code}, {shape_code([str(d) for d in shape])})"
        cx.note_tile(shape)
        return Lowered(code, TileV(shape=shape, dtype=promote(dtype_of(x), dtype_of(y))))


def _as_matrix(low, shape):
    v = low.val
    return Lowered(f"tl.reshape({low.code}, {shape_code(list(shape))})",
                   TileV(shape=shape, dtype=v.dtype, tf32=v.tf32, nonneg=v.nonneg))
