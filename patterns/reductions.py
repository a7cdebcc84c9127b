"""Reductions: ct.sum, ct.max, ct.min, ct.prod, ct.argmax, ct.argmin.

cuTile takes `axis` as None, an int or a tuple and spells `keepdims`; Triton reduces one axis at
a time and spells `keep_dims`. Tuple axes become nested reductions from the highest axis down,
so the remaining axis numbers stay valid. cuTile keeps the input dtype: tl.sum promotes fp16,
bf16 and small integers, so those go through `_sum`, which casts back.
"""
from tile2triton.model import WIDE_DTYPES, ConstV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import axis_list, require_tile
from ._common import dtype_of, shape_code, tile_shape



# ct.sum keeps the input dtype where tl.sum would widen it
SUM = DeviceHelper("_sum", r'''@triton.jit
def _{{ name }}(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.{{ name }} keeps the input dtype; tl.{{ name }} accumulates small types in a wider one.
    Booleans are summed as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.{{ name }}(x, axis=AXIS, keep_dims=KEEP_DIMS).to(x.dtype)
''')
PROD = DeviceHelper("_prod", r'''@triton.jit
def _multiply(a, b):
    return a * b


@triton.jit
def _prod(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.prod: product along AXIS (Triton has no tl.prod); booleans as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.reduce(x, AXIS, _multiply, keep_dims=KEEP_DIMS)
''')


def _arg_all_source(fn, red, n):
    """`_argmax_all_<n>(x, S0, ..)`: the flat (row-major) index of the first max / min of an
    n-D tile. The flat index is computed in the tile's own n-D layout and the reductions only
    combine values, so no reshape is involved (on the GPU, an argmax of a 2-D tile reshaped to
    1-D returned indices a few hundred elements off the first maximum)."""
    dims = ", ".join(f"S{k}: tl.constexpr" for k in range(n))
    terms = []
    for k in range(n):
        sl = ", ".join(":" if j == k else "None" for j in range(n))
        stride = " * ".join(f"S{j}" for j in range(k + 1, n))
        terms.append(f"tl.arange(0, S{k})[{sl}]" + (f" * ({stride})" if stride else ""))
    total = " * ".join(f"S{k}" for k in range(n))
    lines = ["@triton.jit", f"def _{fn}_all_{n}(x, {dims}):",
             f'    """ct.{fn} over all axes: the smallest row-major index of the {red}imum."""',
             f"    flat = {' + '.join(terms)}",
             "    best = x"]
    lines += [f"    best = tl.{red}(best, axis=0)"] * n
    lines.append(f"    idx = tl.where(x == best, flat, {total})")
    lines += ["    idx = tl.min(idx, axis=0)"] * n
    lines.append(f"    return tl.where(idx < {total}, idx, 0)      # no match: all NaN")
    return "\n".join(lines) + "\n"


ARG_ALL = DeviceHelper("_{fn}_all_{n}", lambda fn, red, n: _arg_all_source(fn, red, n))


def reduced_shape(shape, axes, keep):
    if shape is None:
        return None
    if axes is None:
        axes = range(len(shape))
    return tuple(("1" if keep else None) if i in axes else s for i, s in enumerate(shape)
                 if keep or i not in axes)


class Reduce(Pattern):
    constructs = ("sum", "max", "min", "prod")
    summary = "reductions over None / an axis / a tuple of axes, with keepdims"
    triton = "tl.sum / tl.max / tl.min (nested for tuple axes), `_sum` / `_prod` helpers"

    def signature(x, /, axis=None, *, keepdims=False, rounding_mode=None, flush_to_zero=False,
                  propagate_nan=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN)).astype(ct.float32)
    s = ct.sum(a, axis=1, keepdims=True)
    m = ct.max(a, 0, keepdims=True)
    ct.store(y, (0, 0), s + m)
""", expect=["s = tl.sum(a, axis=1, keep_dims=True)", "m = tl.max(a, axis=0, keep_dims=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0, 0), (2, TM, TN))
    ct.store(y, (0,), ct.sum(a, axis=(1, 2)))
""", expect=["def _sum(x, AXIS: tl.constexpr", "_sum(_sum(a, 2, False), 1, False)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.prod(a, axis=0, keepdims=True))
""", expect=["_prod(a, 0, True)"]),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        rank = len(shape) if shape is not None else None
        axes = axis_list(call, "axis", cx, rank)
        keep_v = call.val("keepdims")
        if not isinstance(keep_v, ConstV):
            raise cx.error(call.node_of("keepdims"), "T2T103",
                           f"ct.{call.name}: keepdims must be a literal bool")
        keep = bool(keep_v.value)
        nan = call.val("propagate_nan")
        if isinstance(nan, ConstV) and nan.value:
            raise cx.error(call.node_of("propagate_nan"), "T2T100",
                           f"ct.{call.name}(propagate_nan=True) is not translated yet",
                           help="Triton's reductions ignore NaN ordering; check isnan explicitly")
        d = dtype_of(x)
        code = x.code
        order = [None] if axes is None else sorted(axes, reverse=True)
        for a in order:
            code = self.one(call.name, code, a, keep, d, cx)
        if d == "bool_":        # cuTile reduces booleans as int32
            d = "int32"
            if call.name in ("max", "min"):
                code = f"{code}.to(tl.int32)"
        return Lowered(code, TileV(shape=reduced_shape(shape, axes, keep), dtype=d))

    @staticmethod
    def one(name, code, axis, keep, dtype, cx):
        if name == "sum" and dtype not in WIDE_DTYPES or name == "prod":
            helper = cx.need(SUM, name="sum") if name == "sum" else cx.need(PROD)
            return f"{helper}({code}, {axis}, {keep})"
        args = [code] + ([f"axis={axis}"] if axis is not None else []) + (
            ["keep_dims=True"] if keep else [])
        return f"tl.{name}({', '.join(args)})"


class ArgReduce(Pattern):
    constructs = ("argmax", "argmin")
    summary = "index of the max / min (smallest index on ties), int32"
    triton = ("tl.argmax / tl.argmin(..., tie_break_left=True) along an axis; over all axes of "
              "an n-D tile `_argmax_all_<n>` (row-major index of the first extremum, no reshape)")

    def signature(x, /, axis=None, *, keepdims=False, propagate_nan=False):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.argmax(a, axis=1))
""", expect=["tl.argmax(a, axis=1, tie_break_left=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.argmin(a, axis=(0, 1)))
""", error="T2T102", message="one axis"),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0, 0), ct.argmax(a, keepdims=True))
""", expect=["def _argmax_all_2(x, S0: tl.constexpr, S1: tl.constexpr):",
             "tl.full((1, 1), _argmax_all_2(a, TM, TN), tl.int32)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], KEEP: ct.Constant[bool]):
    a = ct.load(x, (0,), (TM,))
    ct.store(y, (0,), ct.argmin(a, keepdims=KEEP))
""", error="T2T103", message="keepdims must be a literal bool"),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        rank = len(shape) if shape is not None else None
        axes = axis_list(call, "axis", cx, rank)
        keep_v = call.val("keepdims")
        if not isinstance(keep_v, ConstV):
            raise cx.error(call.node_of("keepdims"), "T2T103",
                           f"ct.{call.name}: keepdims must be a literal bool")
        keep = bool(keep_v.value)
        fn = f"tl.{call.name}"
        if rank == 0:  # a scalar is its own max and min: index 0
            return Lowered("tl.full((), 0, tl.int32)", TileV(shape=(), dtype="int32",
                                                              nonneg=True))
        if axes is None:
            if shape is None:
                raise cx.error(call.node, "T2T105", f"ct.{call.name} over all axes needs the "
                               "tile's shape, which is not known here")
            if rank == 1:
                code = f"{fn}({x.code}, axis=0, tie_break_left=True)"
            else:
                helper = cx.need(ARG_ALL, fn=call.name, red=call.name[3:], n=rank)
                code = f"{helper}({x.code}, {', '.join(str(s) for s in shape)})"
            if keep:
                code = f"tl.full({shape_code(['1'] * rank)}, {code}, tl.int32)"   # 0-d -> 1,..
            return Lowered(code, TileV(shape=("1",) * rank if keep else (), dtype="int32",
                                       nonneg=True))
        if len(axes) != 1:
            raise cx.error(call.node_of("axis"), "T2T102",
                           f"ct.{call.name} takes one axis (or None), as in cuTile")
        kd = ", keep_dims=True" if keep else ""
        return Lowered(f"{fn}({x.code}, axis={axes[0]}{kd}, tie_break_left=True)",
                       TileV(shape=reduced_shape(shape, axes, keep), dtype="int32", nonneg=True))
