"""Reductions: ct.sum, ct.max, ct.min, ct.prod, ct.argmax, ct.argmin.

cuTile takes `axis` as None, an int or a tuple and spells `keepdims`; Triton reduces one axis at
a time and spells `keep_dims`. Tuple axes become nested reductions from the highest axis down,
so the remaining axis numbers stay valid. Axes that ct.Constant[int] parameters give stay
constexpr expressions that Triton folds per specialization (`(a1 % 3)`). cuTile keeps the input dtype: tl.sum promotes fp16,
bf16 and small integers, so those go through `_sum`, which casts back.
"""
from tile2triton.model import INT_DTYPES, WIDE_DTYPES, ConstV, EnumV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import axis_list, const_bool, launch_axes, require_tile
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


# propagate_nan=True: a NaN among the reduced elements makes the result NaN (Triton's tl.max and
# tl.min skip NaN, as cuTile does by default)
NAN_COMBINE = {red: DeviceHelper(f"_{red}imum_nan", f'''@triton.jit
def _{red}imum_nan(a, b):
    return tl.{red}imum(a, b, propagate_nan=tl.PropagateNan.ALL)
''') for red in ("max", "min")}
EXTREMUM_NAN = DeviceHelper("_{name}_nan", r'''@triton.jit
def _{{ name }}_nan(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr, PROPAGATE_NAN: tl.constexpr):
    """ct.{{ name }}(propagate_nan=...): with PROPAGATE_NAN, NaN where the reduced elements hold
    a NaN (tl.{{ name }} skips NaN, as cuTile does by default)."""
    if PROPAGATE_NAN and x.dtype.is_floating():
        return tl.reduce(x, AXIS, _{{ name }}imum_nan, keep_dims=KEEP_DIMS)
    else:
        return tl.{{ name }}(x, axis=AXIS, keep_dims=KEEP_DIMS)
''')


def _arg_combine_source(fn, nan):
    """The combine function of a NaN-aware argmax / argmin: the smallest index among equal
    values, and a NaN ranks below every number (`propagate_nan=False`: skipped; a row of NaN
    gives 0) or above them (`propagate_nan=True`: the first NaN wins). Triton's own combine
    compares with `>` / `<` only, which leaves NaN's place to the reduction's order."""
    cmp = ">" if fn == "argmax" else "<"
    nan_wins = "n1 & ~n2" if nan == "propagating" else "n2 & ~n1"
    return "\n".join([
        "@triton.jit",
        f"def _{fn}_combine_{nan}_nan(v1, i1, v2, i2):",
        "    n1 = v1 != v1",
        "    n2 = v2 != v2",
        f"    first = (v1 {cmp} v2) | ({nan_wins}) | (((v1 == v2) | (n1 & n2)) & (i1 < i2))",
        "    return tl.where(first, v1, v2), tl.where(first, i1, i2)",
    ]) + "\n"


ARG_COMBINE = DeviceHelper("_{fn}_combine_{nan}_nan", lambda fn, nan: _arg_combine_source(fn, nan))


def _arg_axis_source(fn, nan, n, axis):
    """`_argmax_<n>d_<axis>_<nan>(x, KEEP_DIMS[, PROPAGATE_NAN])`: ct.argmax / ct.argmin of a
    float tile along one axis, NaN placed as cuTile places it (see the combine functions).
    `nan`: "skipping", "propagating", or "either" (a ct.Constant[bool] decides at compile time)."""
    sl = ", ".join(":" if j == axis else "None" for j in range(n))
    how = dict(skipping="NaN skipped", propagating="the first NaN wins",
               either="NaN skipped, or with PROPAGATE_NAN the first NaN wins")[nan]
    flag = ", PROPAGATE_NAN: tl.constexpr" if nan == "either" else ""
    lines = [
        "@triton.jit",
        f"def _{fn}_{n}d_{axis}_{nan}(x, KEEP_DIMS: tl.constexpr{flag}):",
        f'    """ct.{fn} along axis {axis}: {how}."""',
        f"    idx = tl.broadcast_to(tl.arange(0, x.shape[{axis}])[{sl}], x.shape)"]
    red = f"tl.reduce((x, idx), {axis}, _{fn}_combine_{{}}_nan, keep_dims=KEEP_DIMS)"
    if nan == "either":
        lines += ["    if PROPAGATE_NAN:",
                  f"        _, i = {red.format('propagating')}",
                  "    else:",
                  f"        _, i = {red.format('skipping')}"]
    else:
        lines.append(f"    _, i = {red.format(nan)}")
    lines.append("    return i")
    return "\n".join(lines) + "\n"


ARG_AXIS = DeviceHelper("_{fn}_{n}d_{axis}_{nan}",
                        lambda fn, nan, n, axis: _arg_axis_source(fn, nan, n, axis),
                        requires=())


def _arg_all_source(fn, red, n, nan=""):
    """`_argmax_all_<n>(x, S0, ..)`: the flat (row-major) index of the first max / min of an
    n-D tile. The flat index is computed in the tile's own n-D layout and the reductions only
    combine values, so no reshape is involved (on the GPU, an argmax of a 2-D tile reshaped to
    1-D returned indices a few hundred elements off the first maximum). tl.max / tl.min skip
    NaN, as cuTile's default does; with `nan="_nan"` (propagate_nan=True) the first NaN wins."""
    dims = ", ".join(f"S{k}: tl.constexpr" for k in range(n))
    if nan == "_either_nan":
        dims += ", PROPAGATE_NAN: tl.constexpr"
    terms = []
    for k in range(n):
        sl = ", ".join(":" if j == k else "None" for j in range(n))
        stride = " * ".join(f"S{j}" for j in range(k + 1, n))
        terms.append(f"tl.arange(0, S{k})[{sl}]" + (f" * ({stride})" if stride else ""))
    total = " * ".join(f"S{k}" for k in range(n))
    lines = ["@triton.jit", f"def _{fn}_all_{n}{nan}(x, {dims}):",
             f'    """ct.{fn} over all axes: the smallest row-major index of the {red}imum'
             + dict(_nan=' (the first NaN, if any)."""',
                    _either_nan=' (with PROPAGATE_NAN: the first NaN, if any)."""').get(
                        nan, '."""'),
             f"    flat = {' + '.join(terms)}",
             "    best = x"]
    propagating = [f"    best = tl.reduce(best, 0, _{red}imum_nan)"] * n + [
        "    hit = tl.where(best != best, x != x, x == best)"]
    skipping = [f"    best = tl.{red}(best, axis=0)"] * n + ["    hit = x == best"]
    if nan == "_either_nan":
        lines += ["    if PROPAGATE_NAN:"] + ["    " + ln for ln in propagating] + \
            ["    else:"] + ["    " + ln for ln in skipping]
    else:
        lines += propagating if nan else skipping
    lines.append(f"    idx = tl.where(hit, flat, {total})")
    lines += ["    idx = tl.min(idx, axis=0)"] * n
    lines.append(f"    return tl.where(idx < {total}, idx, 0)      # no match: all NaN")
    return "\n".join(lines) + "\n"


ARG_ALL = DeviceHelper("_{fn}_all_{n}{nan}",
                        lambda fn, red, n, nan: _arg_all_source(fn, red, n, nan))


def propagate_nan(call, cx):
    """True, False, or the name of the ct.Constant[bool] parameter that decides."""
    return const_bool(call, cx, "propagate_nan")


def reduced_shape(shape, axes, keep):
    if shape is None:
        return None
    if axes is None:
        axes = range(len(shape))
    return tuple(("1" if keep else None) if i in axes else s for i, s in enumerate(shape)
                 if keep or i not in axes)


def _launch_axes_source(n):
    axes = ", ".join(f"A{k}: tl.constexpr" for k in range(n))
    lines = ["@triton.jit", f"def _launch_axes_{n}(x, RANK: tl.constexpr, {axes}):",
             '    """Reduction axes given by ct.Constant parameters, checked per specialization '
             'as cuTile checks them while compiling."""']
    for k in range(n):
        lines.append(f'    tl.static_assert(-RANK <= A{k} and A{k} < RANK, '
                     f'"reduction axis out of range for the tile\'s rank")')
    for k in range(n):
        for j in range(k):
            lines.append(f'    tl.static_assert((A{j} - A{k}) % RANK != 0, '
                         f'"repeated reduction axis")')
    lines.append("    return x")
    return "\n".join(lines) + "\n"


LAUNCH_AXES = DeviceHelper("_launch_axes_{n}", lambda n: _launch_axes_source(n))


def descending(norm, j):
    """Triton code of the j-th largest of the distinct axes `norm` (constexpr expressions):
    the axis that exactly j of the others exceed."""
    if len(norm) == 1:
        return norm[0]
    code = norm[-1]
    for m in range(len(norm) - 2, -1, -1):
        greater = " + ".join(f"({o} > {norm[m]})" for i, o in enumerate(norm) if i != m)
        code = f"({norm[m]} if {greater} == {j} else {code})"
    return code


def launch_reduced_shape(shape, norm, keep):
    """The shape of a reduction over the axes `norm` (constexpr expressions): each extent a
    constexpr expression choosing, per specialization, the extent it keeps (1 with keepdims)."""
    def reduced(i):
        return " or ".join(f"{a} == {i}" for a in norm)

    if keep:
        return tuple(s if str(s) == "1" else f"(1 if {reduced(i)} else {s})"
                     for i, s in enumerate(shape))
    out = []
    for j in range(len(shape) - len(norm)):
        # result extent j is source extent i where i is not reduced and i - j axes below it are
        cands = list(range(j, min(j + len(norm), len(shape) - 1) + 1))
        code = str(shape[cands[-1]])
        for i in reversed(cands[:-1]):
            below = " + ".join(f"({a} < {i})" for a in norm)
            kept = f"not ({reduced(i)})" + (f" and {below} == {i - j}" if i else "")
            code = f"({shape[i]} if {kept} else {code})"
        out.append(code)
    return tuple(out)


# the rounding modes cuTile's sum and prod take (those of its add and mul); Triton rounds
# to nearest even, which the others approximate
CUTILE_RD = ("RN", "RZ", "RM", "RP")


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
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int], NAN: ct.Constant[bool]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.min(a, axis=1, propagate_nan=NAN))
""", expect=["tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)", "_min_nan(a, 1, False, NAN)"]),
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
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int], FLAT: ct.Constant[bool]):
    if FLAT:
        a = ct.load(x, (0, 0), (1, TM * TN)).reshape((TM * TN,))
    else:
        a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.max(a, axis=-1, keepdims=True).astype(ct.float32))
""", expect=["tl.max(a, axis=-1, keep_dims=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int], A: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0, 0), ct.max(a, axis=A, keepdims=True))
""", expect=["tl.static_assert(-RANK <= A0 and A0 < RANK",
             "tl.max(_launch_axes_1(a, 2, A), axis=(A % 2), keep_dims=True)"]),
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        rank = len(shape) if shape is not None else None
        at_launch = launch_axes(call, "axis", cx, rank)
        axes = None if at_launch else axis_list(call, "axis", cx, rank, negative_ok=True)
        keep_v = call.val("keepdims")
        if not isinstance(keep_v, ConstV):
            raise cx.error(call.node_of("keepdims"), "T2T103",
                           f"ct.{call.name}: keepdims must be a literal bool",
                           help="write keepdims=True or keepdims=False")
        keep = bool(keep_v.value)
        d = dtype_of(x)
        nan = propagate_nan(call, cx)
        rm = call.val("rounding_mode")
        if isinstance(rm, EnumV) and rm.enum == "RoundingMode" and rm.member not in CUTILE_RD:
            raise cx.error(call.node_of("rounding_mode"), "T2T102",
                           f"ct.{call.name}: rounding_mode=RoundingMode.{rm.member} is not "
                           "supported (cuTile rejects it for reductions)",
                           help="use RoundingMode.RN, RZ, RM or RP, or drop the argument")
        if at_launch:
            return self.lower_launch_axes(call, cx, x, shape, at_launch, keep, d, nan)
        if axes and axes[0] < 0:       # a tile of unknown rank: from the first axis on
            code, d = self.along(call.name, x.code, axes, keep, d, nan, cx)
            return Lowered(code, TileV(shape=None, dtype=d))
        order = [None] if axes is None else sorted(axes, reverse=True)
        code, d = self.along(call.name, x.code, order, keep, d, nan, cx)
        return Lowered(code, TileV(shape=reduced_shape(shape, axes, keep), dtype=d))

    def lower_launch_axes(self, call, cx, x, shape, at_launch, keep, d, nan):
        """Axes that ct.Constant[int] parameters give (`axis=(a1, a2)`): one translation for
        every value, Triton folding the axis expressions per specialization (a translation
        per value would be one per axis combination, unbounded by the module). A helper
        checks the axes as cuTile does while compiling (in range, none repeated); without
        keepdims the axes are reduced from the highest down, so the others stay valid."""
        written, norm = at_launch
        check = cx.need(LAUNCH_AXES, n=len(norm))
        code = f"{check}({x.code}, {len(shape)}, {', '.join(written)})"
        order = norm if keep else [descending(norm, j) for j in range(len(norm))]
        code, d = self.along(call.name, code, order, keep, d, nan, cx)
        return Lowered(code, TileV(shape=launch_reduced_shape(shape, norm, keep), dtype=d))

    def along(self, name, code, order, keep, d, nan, cx):
        """(code, dtype) of `code` reduced along each axis of `order` in turn (None: all):
        max and min of floats under a NaN rule through the NaN-aware helper; booleans reduce
        as int32, as in cuTile."""
        nan_aware = nan is not False and name in ("max", "min") and d not in INT_DTYPES \
            and d != "bool_"
        for a in order:
            if nan_aware:
                cx.need(NAN_COMBINE[name])
                code = f"{cx.need(EXTREMUM_NAN, name=name)}({code}, {a}, {keep}, {nan})"
            else:
                code = self.one(name, code, a, keep, d, cx)
        if d == "bool_":
            d = "int32"
            if name in ("max", "min"):
                code = f"{code}.to(tl.int32)"
        return code, d

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
    a = ct.load(x, (0, 0), (TM, TN)).astype(ct.int32)
    ct.store(y, (0,), ct.argmax(a, axis=1))
""", expect=["tl.argmax(a, axis=1, tie_break_left=True)"]),
        Example("""
@ct.kernel
def k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(x, (0, 0), (TM, TN))
    ct.store(y, (0,), ct.argmin(a, axis=1, propagate_nan=True))
""", expect=["def _argmin_combine_propagating_nan(v1, i1, v2, i2):",
             "_argmin_2d_1_propagating(a, False)"]),
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
""", expect=["def k_KEEP_0(", "def k_KEEP_1("]),   # a ct.Constant[bool]: a variant per value
    ]

    def lower(self, call, cx):
        x = require_tile(call, "x", cx)
        shape = tile_shape(x)
        rank = len(shape) if shape is not None else None
        axes = axis_list(call, "axis", cx, rank)
        keep_v = call.val("keepdims")
        if not isinstance(keep_v, ConstV):
            raise cx.error(call.node_of("keepdims"), "T2T103",
                           f"ct.{call.name}: keepdims must be a literal bool",
                           help="write keepdims=True or keepdims=False")
        keep = bool(keep_v.value)
        fn = f"tl.{call.name}"
        nan = propagate_nan(call, cx)
        d = dtype_of(x)
        floating = d not in INT_DTYPES and d != "bool_"   # unknown counts: NaN may occur

        def along(axis, keep_dims):
            if not floating:
                kd = ", keep_dims=True" if keep_dims else ""
                return f"{fn}({x.code}, axis={axis}{kd}, tie_break_left=True)"
            mode = {False: "skipping", True: "propagating"}.get(nan, "either")
            for m in ("skipping", "propagating"):
                if mode in (m, "either"):
                    cx.need(ARG_COMBINE, fn=call.name, nan=m)
            helper = cx.need(ARG_AXIS, fn=call.name, nan=mode, n=rank, axis=axis)
            flag = f", {nan}" if mode == "either" else ""
            return f"{helper}({x.code}, {keep_dims}{flag})"

        if rank == 0:  # a scalar is its own max and min: index 0
            return Lowered("tl.full((), 0, tl.int32)", TileV(shape=(), dtype="int32",
                                                              nonneg=True))
        if rank is None and (floating or axes is None):
            raise cx.error(call.node, "T2T105", f"ct.{call.name} needs the tile's rank (to "
                           "place NaN as cuTile does), which is not known here",
                           help="give the tile a known rank (load it with an explicit shape)")
        if axes is None:
            if rank == 1:
                code = along(0, False)
            else:
                red = call.name[3:]
                mode = "" if nan is False or not floating else \
                    "_nan" if nan is True else "_either_nan"
                if mode:
                    cx.need(NAN_COMBINE[red])
                helper = cx.need(ARG_ALL, fn=call.name, red=red, n=rank, nan=mode)
                extra = f", {nan}" if mode == "_either_nan" else ""
                code = f"{helper}({x.code}, {', '.join(str(s) for s in shape)}{extra})"
            if keep:
                code = f"tl.full({shape_code(['1'] * rank)}, {code}, tl.int32)"   # 0-d -> 1,..
            return Lowered(code, TileV(shape=("1",) * rank if keep else (), dtype="int32",
                                       nonneg=True))
        if len(axes) != 1:
            raise cx.error(call.node_of("axis"), "T2T102",
                           f"ct.{call.name} takes one axis (or None), as in cuTile",
                           help="reduce over one axis at a time, or over all with axis=None")
        return Lowered(along(axes[0], keep),
                       TileV(shape=reduced_shape(shape, axes, keep), dtype="int32", nonneg=True))
