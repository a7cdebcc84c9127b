"""Typing: what is statically known about values (constants, names of cuda.tile, attributes of
arrays, views and tiles, non-negativity, which names are runtime values)."""
from __future__ import annotations

import operator
import re

import libcst as cst

from ..model import (ARRAY_ATTRIBUTES, CT_TO_TL_DTYPE, ChoiceV,
                     PREC, ArrayListV, ArrayV, ConstExprEnumV, ConstExprV, ConstV,
                     CtRefV, DTypeV, EnumClassV, EnumV, TableV, FuncV, Lowered, NoneV, ParamInfo, PyRefV, RawMemoryV,
                     TiledViewV, TileV, TupleV, Val)
from ..model import MAX_SEQUENCE
from ..parse import ENUM_MEMBERS
from .pyconst import TypedInt



def choice_name(candidate: str) -> str:
    """The name a launcher passes for a function value: "sum" for "cuda.tile.sum", a helper's
    own name (what `_choice_name` gives at run time: the function's `__name__`), "operator.add"
    for the operator module's function."""
    if candidate.startswith("enum:"):
        return candidate[len("enum:"):]     # a member of the module's enums: "Color.RED"
    # ("operator.add" stays whole: a helper of the module may be called `add`)
    return candidate[len("cuda.tile."):] if candidate.startswith("cuda.tile.") else candidate


def _candidate(c: str) -> Lowered:
    """A value a choice parameter may hold: a cuTile enum member, a construct, a helper, or a
    member of the module's enums ("enum:Color.RED"; its value is read when asked)."""
    if c.startswith("enum:"):
        cls, _, member = c[len("enum:"):].partition(".")
        return Lowered(f"{cls}.{member}", EnumV(cls, member, None, user=True))
    enum, _, member = c[len("cuda.tile."):].partition(".")
    if c.startswith("cuda.tile.") and member in ENUM_MEMBERS.get(enum, ()):
        return Lowered(f"{enum}.{member}", EnumV(enum, member))
    if c.startswith("operator."):
        return Lowered(c, PyRefV(c))
    return Lowered(c, CtRefV(c) if c.startswith("cuda.tile.") else FuncV(c))


# what is known of a value's sign (sign_fact): nothing, >= 0, >= 1
UNKNOWN, NONNEG, POSITIVE = 0, 1, 2


def sign_fact(v: Val) -> int:
    """UNKNOWN, NONNEG (provably >= 0) or POSITIVE (provably >= 1: a tile dimension, a
    constant >= 1, sums and products of such values). >= 1 rather than > 0 so that `x - 1`
    of a POSITIVE value is NONNEG, even for floats."""
    if isinstance(v, ConstV):
        if not isinstance(v.value, (int, float)):
            return UNKNOWN
        if v.value >= 1 and not isinstance(v.value, bool):
            return POSITIVE
        return NONNEG if v.value >= 0 else UNKNOWN
    if isinstance(v, TileV):
        return POSITIVE if v.positive else NONNEG if v.nonneg else UNKNOWN
    return POSITIVE if isinstance(v, ConstExprV) and v.positive else UNKNOWN


def initial_env(params: list[ParamInfo], mutable: frozenset = frozenset(),
                positive: frozenset = frozenset()) -> dict:
    """The value kinds of a function's parameters (a ct.Constant parameter whose launch value is
    known, and that the body never rebinds, is that constant; one of `positive` is > 0)."""
    env: dict[str, Val] = {}
    for p in params:
        if p.kind == "constexpr" and p.choices:
            env[p.name] = ChoiceV([(f"{p.name} is None", Lowered("None", NoneV()))
                                   if c == "None" else
                                   (f"{p.name} == {choice_name(c)!r}", _candidate(c))
                                   for c in p.choices])
        elif p.kind == "constexpr" and p.open_shape:
            env[p.name] = ConstExprV(p.name, kind="open_shape")
        elif p.kind == "constexpr" and p.dtype_value:
            env[p.name] = DTypeV(code=p.name)   # a Triton dtype, chosen by the launch
        elif p.kind == "constexpr" and p.launch_value is not None and p.name not in mutable:
            env[p.name] = ConstV(p.launch_value[0])
        elif p.kind == "array":
            env[p.name] = ArrayV(p.array)
        elif p.kind == "array_list":
            env[p.name] = ArrayListV(p.array_list)
        elif p.kind == "constexpr":
            env[p.name] = ConstExprV(p.name, positive=p.name in positive)
        elif p.kind == "tile":
            env[p.name] = TileV()
        else:
            # a runtime scalar: Triton passes Python floats as fp32 and ints as int32/int64
            env[p.name] = TileV(shape=(), dtype="scalar_param")
    return env


class Values:
    """Mixin of `Lowerer`: constants, references and attributes, and static facts."""

    def const(self, value) -> Lowered:
        if isinstance(value, Lowered):
            return value
        if value is None:
            return Lowered("None", NoneV())
        if isinstance(value, EnumV):
            return Lowered(f"{value.enum}.{value.member}", value)
        if isinstance(value, float) and (value != value or value in (float("inf"),
                                                                      float("-inf"))):
            return Lowered(f'float("{value}")', ConstV(value))
        low = Lowered(repr(value), ConstV(value))
        if isinstance(value, (int, float)) and value < 0:
            low.prec = PREC["unary"]
        return low

    def fold(self, node, fn, *values) -> Lowered:
        """Evaluate an operation on compile-time constants with Python's semantics, as cuTile
        does. What Python would raise (division by zero, overflow, `~` on a float,
        `float("abc")`) is the user's error: a located T2T120, like cuTile's compile error."""
        if fn in (operator.pow, pow) and len(values) == 2 and _huge_power(*values) \
                or fn is operator.lshift and len(values) == 2 and _huge_shift(*values):
            raise self.error(node, "T2T120", "this compile-time integer is far too large",
                             help="cuTile integers are at most 64 bits wide")
        if fn is operator.mul and len(values) == 2 and _huge_repeat(*values) \
                or fn is operator.add and len(values) == 2 and _huge_concat(*values) \
                or fn is operator.mod and len(values) == 2 and _huge_format(*values):
            raise self.error(node, "T2T120", "this compile-time value is far too long "
                             f"(over {MAX_SEQUENCE:,} items or characters)",
                             help="kernels hold short compile-time strings and tuples")
        try:
            result = fn(*values)
        except (ArithmeticError, TypeError, ValueError) as e:
            why = {ZeroDivisionError: "division by zero",
                   OverflowError: "the result is too large"}.get(type(e), str(e))
            raise self.error(node, "T2T120",
                             f"this compile-time expression cannot be evaluated: {why}",
                             help="cuTile evaluates operations on constants while compiling, "
                                  "with Python's rules; fix the operands") from None
        if not isinstance(result, (bool, int, float, str)):  # e.g. (-8) ** 0.5 is complex
            raise self.error(node, "T2T120", f"this compile-time expression gives a "
                             f"{type(result).__name__}, which kernels cannot hold",
                             help="kernels hold booleans, integers and floats")
        if isinstance(result, (str, bytes, tuple)) and len(result) > MAX_SEQUENCE:
            raise self.error(node, "T2T120", "this compile-time value is far too long "
                             f"(over {MAX_SEQUENCE:,} items or characters)",
                             help="kernels hold short compile-time strings and tuples")
        if isinstance(result, int) and not isinstance(result, bool) \
                and result.bit_length() > 1024:
            raise self.error(node, "T2T120", "this compile-time integer is far too large",
                             help="cuTile integers are at most 64 bits wide")
        return self.const(result)


    def module_global(self, name: str, node) -> Lowered:
        """Module-level constants are compile-time values inside cuTile kernels: inline them.
        One that a function rebinds (`global SCALE; SCALE = 5.0` before the launch) is refused:
        cuTile reads its value when the kernel is compiled, which the translation cannot know
        (inlining the module-level value gave silently wrong results)."""
        rebinding = self.mc.rebound_globals.get(name)
        if rebinding is not None:
            where = self.pm.positions.get(rebinding)
            at = f" (line {where.start.line})" if where is not None else ""
            raise self.error(node, "T2T103", f"module-level `{name}` is rebound by `global "
                             f"{name}` in a function{at}: its value when the kernel is compiled "
                             "is not known at translation time",
                             help=f"pass `{name}` to the kernel as a ct.Constant parameter, or "
                             "keep it a module constant that is never reassigned")
        value = self.pm.globals[name]
        low = self.expr(value)
        if self.keeps_constant_name(name, low):
            # the user's name, defined at the function's top (emit.with_module_constants)
            self.result.module_constants[name] = low.code
            return Lowered(name, low.val)
        if isinstance(low.val, (ConstV, EnumV, DTypeV, CtRefV, TupleV, NoneV, TableV,
                                EnumClassV)):
            return low
        if isinstance(low.val, FuncV) and low.val.name in self.pm.functions:
            return low      # `op = helper`, a table entry naming a helper
        if isinstance(low.val, FuncV) and low.val.name.startswith("builtins."):
            return low      # `f = divmod`: an alias of a builtin kernels may call
        raise self.error(node, "T2T103",
                         f"module-level `{name}` is not a compile-time constant",
                         help="kernels can read module constants (numbers, tuples, cuTile "
                              "dtypes and enums); pass anything else as a parameter")

    def keeps_constant_name(self, name: str, low: Lowered) -> bool:
        """Whether a kernel reading module constant `name` (value `low`) spells it by its name:
        a number (bool, int, float) bound once at the top of this module by a plain `NAME =`
        statement, that the function itself never binds. Others are inlined: tuples, dtypes
        and enums are translation-time values, and a constant of another module is not a
        name the translated module defines."""
        if not (isinstance(low.val, ConstV) and type(low.val.value) in (bool, int, float)):
            return False
        if self._bound_here is None:
            self._bound_here = reassigned_names(self.fn.node, times=1)
        if name in self._bound_here:
            return False
        if name not in self._top_bindings:
            self._top_bindings[name] = top_level_bindings(self.pm, name)
        return self._top_bindings[name] == 1

    def ct_ref(self, qualname: str, node) -> Lowered:
        short = qualname[len("cuda.tile."):] if qualname.startswith("cuda.tile.") else ""
        if short in CT_TO_TL_DTYPE:
            tl = CT_TO_TL_DTYPE[short]
            if tl is None:
                raise self.error(node, "T2T106", f"ct.{short} has no Triton equivalent",
                                 help="Triton supports float16/bfloat16/float32/float64, "
                                      "float8_e4m3fn, float8_e5m2 and the integer types")
            return Lowered(tl, DTypeV(name=short))
        parts = short.split(".")
        if len(parts) == 2 and parts[0] in ENUM_MEMBERS:
            if parts[1] not in ENUM_MEMBERS[parts[0]]:
                raise self.error(node, "T2T100", f"ct.{parts[0]} has no member `{parts[1]}`",
                                 help=f"its members are {', '.join(ENUM_MEMBERS[parts[0]])}")
            return Lowered(f"{parts[0]}.{parts[1]}", EnumV(parts[0], parts[1]))
        if len(parts) > 2 and parts[0] in ENUM_MEMBERS:
            raise self.error(node, "T2T100", f"`ct.{short}` is not supported",
                             help="see docs/constructs.md for the supported cuda.tile names, or "
                                  "compute the value on the host and pass it in")
        return Lowered(qualname, CtRefV(qualname))

    def x_Attribute(self, node: cst.Attribute) -> Lowered:
        attr = node.attr.value
        if isinstance(node.value, cst.Attribute) and isinstance(node.value.value, cst.Name) \
                and node.value.value.value not in self.env \
                and self.pm.qualname(node.value) == "cuda.tile":
            return self.ct_ref(f"cuda.tile.{attr}", node)    # `cuda.tile.load` after `import cuda.tile`
        base = self.expr(node.value)
        v = base.val
        if isinstance(v, CtRefV):
            return self.ct_ref(f"{v.qualname}.{attr}", node)
        if isinstance(v, (EnumClassV, ConstExprEnumV)) or isinstance(v, EnumV) and v.user:
            return self.enum_attribute(node, base)          # tables.py
        if isinstance(v, ChoiceV) and all(isinstance(o.val, EnumV) and o.val.user
                                          for _, o in v.options):
            # a member of the module's enums chosen at launch: its attribute per member, a
            # choice Triton folds
            return self.choice_value([(cond, self.enum_attribute(node, o))
                                      for cond, o in v.options])
        if isinstance(v, PyRefV):
            return self.py_ref(f"{v.qualname}.{attr}", node)
        if isinstance(v, ArrayV):
            return self.array_attribute(node, base, attr)
        if isinstance(v, RawMemoryV):
            return self.raw_memory_attribute(node, base, attr)
        if isinstance(v, TiledViewV):
            return self.tiled_view_attribute(node, base, attr)
        if isinstance(v, TileV):
            low = self.tile_attribute(node, base, attr)
            if low is not None:
                return low
        if isinstance(v, ConstV) and isinstance(v.value, TypedInt) and attr == "dtype":
            # a strictly typed integer constant (`ct.int16(4)`, a numpy scalar) has its dtype
            name = f"{'' if v.value.signed else 'u'}int{v.value.bits}"
            return Lowered(CT_TO_TL_DTYPE[name], DTypeV(name=name))
        if isinstance(v, EnumV):
            raise self.error(node, "T2T100", f"`.{attr}` of {v.enum} is not supported",
                             help="compare enum members with `==` instead of reading their "
                                  "attributes")
        if isinstance(v, DTypeV) and attr in ("name",):
            raise self.error(node, "T2T100", "dtype attributes are not supported in kernels",
                             help="compare dtypes themselves (`x.dtype == ct.float16`), or pass "
                                  "the value from the host")
        raise self.error(node, "T2T101", f"attribute `.{attr}` is not supported here",
                         help="use attributes cuTile defines on this value (.shape, .dtype, "
                              ".ndim, ...), or compute it on the host")

    def array_attribute(self, node: cst.Attribute, base: Lowered, attr: str) -> Lowered:
        """`x.shape`, `x.strides`, `x.dtype`, `x.ndim` and the methods of an array."""
        info = base.val.info
        if attr in ("shape", "strides"):
            if info.rank is None:
                raise self.error(node, "T2T104", f"rank of `{info.name}` is unknown here",
                                 help="index the array with ct.load/ct.store or unpack its "
                                      "shape (`M, N = x.shape`), so that its rank is known")
            get = info.shape if attr == "shape" else info.stride
            names = [get(i) for i in range(info.rank)]
            # an extent known at translation time (a slice with constant bounds) is a
            # constant, usable as a tile shape
            static = info.static_shapes if attr == "shape" else info.static_strides
            items = [ConstV(int(n)) if attr == "shape" and n.isdigit()
                     else ConstExprV(n) if i in static
                     else TileV(shape=(), dtype="int32", nonneg=attr == "shape")
                     for i, n in enumerate(names)]
            code = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
            return Lowered(code, TupleV(items),
                           items=[Lowered(n, i) for n, i in zip(names, items)])
        if attr == "dtype":
            return Lowered(f"{info.pointer}.dtype.element_ty", DTypeV(array=info))
        if attr == "ndim":
            return Lowered(str(info.rank), ConstV(info.rank))
        method = self.mc.registry.method("Array", attr)
        if method is not None:
            return Lowered(f"{info.name}.{attr}", CtRefV(f"method.{method}", base))
        methods = sorted(m.split(".")[1] for m in self.mc.registry.methods
                         if m.startswith("Array."))
        raise self.error(node, "T2T100", f"array attribute `.{attr}` is not supported",
                         help="supported: " + ", ".join(
                             [f".{a}" for a in ARRAY_ATTRIBUTES] + [f".{m}()" for m in methods]))

    def raw_memory_attribute(self, node: cst.Attribute, base: Lowered, attr: str) -> Lowered:
        """`.dtype` and the methods of an array's raw memory."""
        v = base.val
        if attr == "dtype":
            return Lowered(f"{v.array.pointer}.dtype.element_ty", DTypeV(array=v.array))
        method = self.mc.registry.method("RawArrayMemory", attr)
        if method is not None:
            return Lowered(f"{base.code}.{attr}", CtRefV(f"method.{method}", base))
        methods = sorted(m.split(".")[1] for m in self.mc.registry.methods
                         if m.startswith("RawArrayMemory."))
        raise self.error(node, "T2T100", f"raw memory attribute `.{attr}` is not supported",
                         help="supported: .dtype, " + ", ".join(f".{m}()" for m in methods))

    def tiled_view_attribute(self, node: cst.Attribute, base: Lowered, attr: str) -> Lowered:
        """The methods of a tiled view, its `tile_shape`, `traversal_steps` and `dtype`."""
        v = base.val
        method = self.mc.registry.method("TiledView", attr)
        if method is not None:
            return Lowered(f"{base.code}.{attr}", CtRefV(f"method.{method}", base))
        if attr in ("tile_shape", "traversal_steps"):
            # traversal steps default to the tile shape; a 0-d tile steps by 1 on each axis
            dims = list(v.tile_shape) if attr == "tile_shape" else list(
                v.steps or v.tile_shape or ["1"] * v.array.rank)
            items = [ConstV(int(d)) if str(d).isdigit() else ConstExprV(str(d))
                     for d in dims]
            code = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
            return Lowered(code, TupleV(items), items=[
                Lowered(str(d), i) for d, i in zip(dims, items)])
        if attr == "dtype":
            return Lowered(f"{v.array.pointer}.dtype.element_ty", DTypeV(array=v.array))
        raise self.error(node, "T2T100", f"tiled view attribute `.{attr}` is not supported",
                         help="use the tiled view's load/store methods and its shape, or work "
                              "on the array itself")

    def tile_attribute(self, node: cst.Attribute, base: Lowered, attr: str) -> Lowered | None:
        """`t.dtype`, `t.shape`, `t.ndim` and the methods of a tile (None for another attribute)."""
        v = base.val
        if attr == "dtype":
            if v.dtype in CT_TO_TL_DTYPE:
                return Lowered(CT_TO_TL_DTYPE[v.dtype], DTypeV(name=v.dtype))
            return Lowered(f"{base.wrap(100)}.dtype", DTypeV(code=f"{base.wrap(100)}.dtype"))
        if attr == "shape":
            if v.shape is None:
                return Lowered(f"{base.wrap(100)}.shape", TupleV([], known=False))
            items = [ConstV(int(s)) if isinstance(s, int) or str(s).isdigit()
                     else ConstExprV(str(s)) for s in v.shape]
            code = "(" + ", ".join(str(s) for s in v.shape) + ("," if len(v.shape) == 1 else "") + ")"
            return Lowered(code, TupleV(items),
                           items=[Lowered(str(s), i) for s, i in zip(v.shape, items)])
        if attr == "ndim":
            if v.rank is None:
                raise self.error(node, "T2T105", "rank of this tile is not known statically",
                                 help="give the tile an explicit shape where it is made (e.g. "
                                      "ct.load with a shape tuple)")
            return Lowered(str(v.rank), ConstV(v.rank))
        method = self.mc.registry.method("Tile", attr)
        if method is not None:
            return Lowered(f"{base.wrap(100)}.{attr}", CtRefV(f"method.{method}", base))
        return None

    def runtime_if_mutable(self, name: str, val: Val) -> Val:
        """A name assigned more than once (loop counters, accumulators) is a runtime value,
        even when its first value is a literal: never fold it. (Outside loops its value at
        each binding is kept apart, `shadow`, for the joins after `if` statements.)"""
        if name in self.mutable and name not in self.loop_bound:
            self.shadow[name] = val
        if name in self.mutable and isinstance(val, ConstV) and isinstance(
                val.value, (bool, int, float)):
            dtype = {bool: "bool_", int: "int32", float: "float32"}[type(val.value)]
            return TileV(shape=(), dtype=dtype)
        return val

    # ------------------------------------------------------------------------------ analysis
    def is_nonneg(self, low: Lowered) -> bool:
        return sign_fact(low.val) >= NONNEG

    def is_positive(self, low: Lowered) -> bool:
        return sign_fact(low.val) == POSITIVE




def nested_bound_names(body) -> set:
    """Names bound inside a compound statement of a function body (a branch, a loop, a `with`,
    a nested function), as opposed to its own top-level statements."""
    inner: set = set()
    for stmt in getattr(body, "body", ()):
        if not isinstance(stmt, cst.SimpleStatementLine):
            inner |= reassigned_names(stmt, times=1)
    return inner


def top_level_bindings(pm, name: str) -> int:
    """How many times the module's top-level statements bind `name`: 1 for one plain
    `NAME = value`; an import or a tuple, augmented or annotated target counts 2 (not a plain
    constant); 0 for a name the module does not bind itself (a linked module's constant)."""
    count = 0
    for stmt in pm.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == name:
                count += 1
            elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)) \
                    and name in reassigned_names(stmt, times=1):
                count += 1
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name
                    for t in small.targets):
                count += 1
            elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)) \
                    and name in reassigned_names(small, times=1):
                count += 2      # (a tuple target, an augmented or annotated binding)
            elif isinstance(small, (cst.Import, cst.ImportFrom)) and name in {
                    (a.asname.name.value if a.asname else a.name.value)
                    for a in ([] if isinstance(small.names, cst.ImportStar) else small.names)
                    if isinstance(a.asname.name if a.asname else a.name, cst.Name)}:
                count += 2
    return count


def reassigned_names(body, times: int = 2) -> set:
    """Names bound more than once (at least `times` times) in a function body, or bound inside
    a loop."""
    counts: dict = {}
    in_loop: set = set()

    class Scan(cst.CSTVisitor):
        def __init__(self):
            self.loop = 0

        def _bind(self, target):
            if isinstance(target, cst.Name):
                counts[target.value] = counts.get(target.value, 0) + 1
                if self.loop:
                    in_loop.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for el in target.elements:
                    self._bind(el.value)

        def visit_Assign(self, node):
            for t in node.targets:
                self._bind(t.target)

        def visit_AnnAssign(self, node):
            self._bind(node.target)

        def visit_AugAssign(self, node):
            self._bind(node.target)
            self._bind(node.target)

        def visit_For(self, node):
            self._bind(node.target)
            self.loop += 1

        def leave_For(self, node):
            self.loop -= 1

        def visit_While(self, node):
            self.loop += 1

        def leave_While(self, node):
            self.loop -= 1

    body.visit(Scan())
    return {n for n, c in counts.items() if c >= times} | in_loop


def _huge_power(base, exp) -> bool:
    """`base ** exp` on integers whose result would take long to compute or print."""
    if isinstance(base, bool) or isinstance(exp, bool) or not isinstance(base, int) \
            or not isinstance(exp, int) or abs(base) < 2:
        return False
    return exp * base.bit_length() > 4096


def _huge_shift(x, n) -> bool:
    return isinstance(x, int) and isinstance(n, int) and x != 0 and n > 4096


def _huge_repeat(a, b) -> bool:
    """`"s" * n` or `(x,) * n` (either order) longer than MAX_SEQUENCE."""
    for s, n in ((a, b), (b, a)):
        if isinstance(s, (str, bytes, tuple)) and isinstance(n, int) \
                and len(s) * max(n, 0) > MAX_SEQUENCE:
            return True
    return False


def _huge_concat(a, b) -> bool:
    return isinstance(a, (str, bytes, tuple)) and isinstance(b, (str, bytes, tuple)) \
        and len(a) + len(b) > MAX_SEQUENCE


_CONVERSION = re.compile(rb"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _huge_format(fmt, args) -> bool:
    """`"%0999999d" % x`: a width or precision (written, or taken from the arguments by `*`)
    that would make the result longer than MAX_SEQUENCE."""
    if not isinstance(fmt, (str, bytes)):
        return False
    raw = fmt.encode("utf-8", "surrogatepass") if isinstance(fmt, str) else fmt
    if len(raw) > MAX_SEQUENCE:
        return True
    given = args if isinstance(args, tuple) else (args,)
    for m in _CONVERSION.finditer(raw):
        for part in m.groups():
            if part is None:
                continue
            if part == b"*":
                if any(isinstance(v, int) and abs(v) > MAX_SEQUENCE for v in given):
                    return True
            elif len(part) > 6 or int(part) > MAX_SEQUENCE:
                return True
    return False
