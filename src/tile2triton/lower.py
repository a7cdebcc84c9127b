"""lower: turn one cuTile kernel (or helper) into the text of a Triton @jit function.

One method per supported syntax node, a closed set: statements and expressions no method handles
raise a located T2T101, and every `ct.*` call goes to the pattern that claims it (or T2T100).
Comments and docstrings of the user's code are carried over statement by statement.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from .control_flow import ExitRewriter
from .diagnostics import TranslationError
from .model import (PREC, ArrayInfo, ArrayListV, ArrayV, TiledViewV, ConstExprV, ConstV, CtRefV, DTypeV, EnumV,
                    FuncV, FunctionInfo, Lowered, NoneV, ParamInfo, TileV, TupleV, Val,
                    CT_TO_TL_DTYPE)
from .parse import ParsedModule
from .pattern_api import BoundCall, bind, signature_of

USE_INT64 = "USE_INT64"
INDENT = "    "

BINOP_CONSTRUCT = {
    cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "truediv",
    cst.FloorDivide: "floordiv", cst.Modulo: "mod", cst.Power: "pow",
    cst.BitAnd: "bitwise_and", cst.BitOr: "bitwise_or", cst.BitXor: "bitwise_xor",
    cst.LeftShift: "bitwise_lshift", cst.RightShift: "bitwise_rshift",
    cst.MatrixMultiply: "matmul",
}
AUGOP_CONSTRUCT = {
    cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul",
    cst.DivideAssign: "truediv", cst.FloorDivideAssign: "floordiv", cst.ModuloAssign: "mod",
    cst.PowerAssign: "pow", cst.BitAndAssign: "bitwise_and", cst.BitOrAssign: "bitwise_or",
    cst.BitXorAssign: "bitwise_xor", cst.LeftShiftAssign: "bitwise_lshift",
    cst.RightShiftAssign: "bitwise_rshift", cst.MatrixMultiplyAssign: "matmul",
}
CMP_CONSTRUCT = {
    cst.LessThan: "less", cst.LessThanEqual: "less_equal", cst.GreaterThan: "greater",
    cst.GreaterThanEqual: "greater_equal", cst.Equal: "equal", cst.NotEqual: "not_equal",
}
UNARY_CONSTRUCT = {cst.Minus: "negative", cst.BitInvert: "bitwise_not"}

# Tile methods that are the functional construct with the tile as first argument.
TILE_METHODS = {"astype", "reshape", "permute", "transpose", "item", "extract", "insert"}


@dataclass
class UnitResult:
    """What lowering one function produced, for emit."""
    name: str
    text: str
    params: list
    runtime_helpers: set = field(default_factory=set)
    helper_sources: dict = field(default_factory=dict)  # name -> @triton.jit source from a pattern
    tile_elems: list = field(default_factory=list)  # launcher heuristics: tile sizes as exprs
    uses_dot: bool = False
    debug: bool = False  # uses device asserts: emit @triton.jit(debug=True)


class ModuleContext:
    """State shared by all functions of one module: patterns and helper specializations."""

    def __init__(self, pm: ParsedModule, patterns: dict):
        self.pm = pm
        self.patterns = patterns
        self.helper_specs: dict = {}  # helper name -> (signature kinds, UnitResult)
        self.helper_order: list = []


class Lowerer:
    """Lowers one function body. Patterns receive it as `cx`."""

    def __init__(self, mc: ModuleContext, fn: FunctionInfo, params: list[ParamInfo]):
        self.mc = mc
        self.pm = mc.pm
        self.fn = fn
        self.params = params
        self.env: dict[str, Val] = {}
        self.out: list[str] = []
        self.depth = 0
        self.result = UnitResult(fn.name, "", params)
        self.mutable = _reassigned_names(fn.node.body)
        for p in params:
            if p.kind == "array":
                self.env[p.name] = ArrayV(p.array)
            elif p.kind == "array_list":
                self.env[p.name] = ArrayListV(p.array_list)
            elif p.kind == "constexpr":
                self.env[p.name] = ConstExprV(p.name)
            elif p.kind == "tile":
                self.env[p.name] = TileV()
            else:
                # a runtime scalar: Triton passes Python floats as fp32 and ints as int32/int64
                self.env[p.name] = TileV(shape=(), dtype="scalar_param")

    # ----------------------------------------------------------------- services for patterns
    def error(self, node, code, message, help=None) -> TranslationError:
        return self.pm.error(node, code, message, help)

    def need(self, helper: str) -> str:
        """Ask emit for a runtime helper (from templates/runtime.py.j2); returns its name."""
        self.result.runtime_helpers.add(helper)
        return helper

    def need_source(self, name: str, source: str) -> str:
        """Ask emit for a device helper whose source a pattern carries itself (one new
        construct = one new file under patterns/). Returns `name`."""
        self.result.helper_sources[name] = source.strip("\n")
        return name

    def note_tile(self, shape) -> None:
        if shape and all(s is not None for s in shape):
            self.result.tile_elems.append(" * ".join(str(s) for s in shape))

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

    # ----------------------------------------------------------------------------- emission
    def line(self, text: str, comment: Optional[str] = None) -> None:
        pad = INDENT * self.depth
        self.out.append(pad + text + (f"  {comment}" if comment else ""))

    def leading(self, node) -> None:
        for el in getattr(node, "leading_lines", ()):
            if el.comment is not None:
                self.out.append(INDENT * self.depth + el.comment.value)
            else:
                self.out.append("")

    @staticmethod
    def trailing_comment(tw) -> Optional[str]:
        c = getattr(tw, "comment", None)
        return c.value if c is not None else None

    # ---------------------------------------------------------------------------- function
    def lower_body(self) -> list[str]:
        body = self.fn.node.body
        if not isinstance(body, cst.IndentedBlock):
            raise self.error(body, "T2T101", "one-line function bodies are not supported",
                             help="put the body on its own indented lines")
        body = ExitRewriter(self.error).function_body(body)
        self.mutable = _reassigned_names(body)
        self.block(body)
        return self.out

    def block(self, block: cst.BaseSuite) -> None:
        if not isinstance(block, cst.IndentedBlock):
            raise self.error(block, "T2T101", "one-line blocks are not supported in kernels",
                             help="put the block body on its own indented line")
        self.depth += 1
        start = len(self.out)
        for stmt in block.body:
            self.stmt(stmt)
        for el in block.footer:
            if el.comment is not None:
                self.out.append(INDENT * self.depth + el.comment.value)
        if len(self.out) == start:
            self.line("pass")
        self.depth -= 1

    def stmt(self, node) -> None:
        self.leading(node)
        if isinstance(node, cst.SimpleStatementLine):
            comment = self.trailing_comment(node.trailing_whitespace)
            texts = []
            for s in node.body:
                t = self.small(s)
                texts.extend(t if isinstance(t, list) else [t] if t is not None else [])
            if not texts:
                if comment:
                    self.line(comment.lstrip())
                return
            for t in texts[:-1]:
                self.line(t)
            self.line(texts[-1], comment)
        elif isinstance(node, cst.If):
            self.if_stmt(node, "if")
        elif isinstance(node, cst.For):
            self.for_stmt(node)
        elif isinstance(node, cst.While):
            self.while_stmt(node)
        else:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels",
                             help="kernels may use assignments, if/for/while, return and calls")

    def header_comment(self, node) -> Optional[str]:
        body = node.body
        tw = getattr(body, "header", None)
        return self.trailing_comment(tw)

    def if_stmt(self, node: cst.If, keyword: str) -> None:
        test = self.expr(node.test)
        self.line(f"{keyword} {test.code}:", self.header_comment(node))
        self.block(node.body)
        orelse = node.orelse
        if isinstance(orelse, cst.If):
            self.leading(orelse)
            self.if_stmt(orelse, "elif")
        elif isinstance(orelse, cst.Else):
            self.leading(orelse)
            self.line("else:", self.header_comment(orelse))
            self.block(orelse.body)

    def for_stmt(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`for ... else` is not supported in kernels")
        if node.asynchronous is not None:
            raise self.error(node, "T2T101", "`async for` is not supported in kernels")
        it = node.iter
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value in ("range",) and "range" not in self.env):
            raise self.error(it, "T2T101", "kernel loops must iterate over `range(...)`",
                             help="write `for i in range(start, stop, step):`")
        args = [self.expr(a.value) for a in it.args]
        if any(a.keyword is not None for a in it.args):
            raise self.error(it, "T2T102", "range() takes positional arguments only")
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "T2T101", "the loop variable must be a single name")
        var = node.target.value
        nonneg = all(self.is_nonneg(a) for a in args[:2]) and (
            len(args) < 3 or (isinstance(args[2].val, ConstV) and args[2].val.value > 0))
        self.env[var] = TileV(shape=(), dtype="int32", nonneg=nonneg)
        self.line(f"for {var} in range({', '.join(a.code for a in args)}):",
                  self.header_comment(node))
        self.block(node.body)

    def while_stmt(self, node: cst.While) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`while ... else` is not supported")
        test = self.expr(node.test)
        self.line(f"while {test.code}:", self.header_comment(node))
        self.block(node.body)

    # --------------------------------------------------------------------- small statements
    def small(self, node) -> Optional[str]:
        if isinstance(node, cst.Expr):
            v = node.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
                return self.pm.module.code_for_node(v)  # docstring / string statement
            low = self.expr(v)
            return low.code
        if isinstance(node, cst.Assign):
            low = self.expr(node.value)
            single = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
            if isinstance(low.val, ArrayV) and low.val.info.shape_codes is not None and single:
                return self.bind_array_view(node.targets[0].target.value, low.val.info)
            if isinstance(low.val, TiledViewV) and single:
                self.env[node.targets[0].target.value] = low.val
                return None  # a tiled view exists only at translation time
            targets = [self.target(t.target, low) for t in node.targets]
            return " = ".join(targets) + " = " + low.code
        if isinstance(node, cst.AnnAssign):
            if node.value is None:
                return None
            low = self.expr(node.value)
            return self.target(node.target, low) + " = " + low.code
        if isinstance(node, cst.AugAssign):
            return self.aug_assign(node)
        if isinstance(node, cst.Return):
            if node.value is None:
                return "return"
            low = self.expr(node.value)
            return "return " + low.code
        if isinstance(node, cst.Pass):
            return "pass"
        if isinstance(node, cst.Assert):  # cuTile treats `assert` as ct.assert_
            args = [cst.Arg(node.test)] + ([cst.Arg(node.msg)] if node.msg is not None else [])
            return self.construct("assert_", cst.Call(func=cst.Name("assert_"), args=args)).code
        kind = type(node).__name__
        raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels")

    def target(self, t, low: Lowered) -> str:
        if isinstance(t, cst.Name):
            self.env[t.value] = self.runtime_if_mutable(t.value, low.val)
            if isinstance(low.val, ArrayV):
                raise self.error(t, "T2T101", "arrays cannot be re-bound to new names in kernels",
                                 help="use the array parameter directly")
            return t.value
        if isinstance(t, (cst.Tuple, cst.List)):
            names = []
            items = low.val.items if isinstance(low.val, TupleV) else None
            if items is not None and len(items) != len(t.elements):
                raise self.error(t, "T2T105",
                                 f"cannot unpack {len(items)} values into {len(t.elements)} names")
            for i, el in enumerate(t.elements):
                if not isinstance(el.value, cst.Name):
                    raise self.error(el.value, "T2T101", "only names can be unpacked into")
                self.env[el.value.value] = items[i] if items is not None else TileV()
                names.append(el.value.value)
            return ", ".join(names)
        raise self.error(t, "T2T101", "only assignments to names are supported in kernels",
                         help="tiles are immutable values; assign a new tile to a name")

    def bind_array_view(self, name: str, element: ArrayInfo) -> list:
        """`A = As[g]` or `sub = x.slice(...)`: compute the new array's pointer, shapes and
        strides once, into ordinary names."""
        info = ArrayInfo(name, rank=element.rank)
        self.env[name] = ArrayV(info)
        lines = [f"{info.pointer} = {element.pointer}"]
        lines += [f"{info.shape(d)} = {element.shape(d)}" for d in range(info.rank)]
        lines += [f"{info.stride(d)} = {element.stride(d)}" for d in range(info.rank)]
        return lines

    def aug_assign(self, node: cst.AugAssign) -> str:
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "T2T101", "only names can be augmented-assigned")
        name = node.target.value
        construct = AUGOP_CONSTRUCT[type(node.operator)]
        left = self.expr(node.target)
        right = self.expr(node.value)
        low = self.operator(construct, node, left, right)
        self.env[name] = self.runtime_if_mutable(name, low.val)
        # keep `x += y` when the operator lowers to itself
        simple = {"add": "+", "sub": "-", "mul": "*", "bitwise_and": "&", "bitwise_or": "|",
                  "bitwise_xor": "^", "truediv": "/"}
        if construct in simple and low.code == f"{left.wrap(12)} {simple[construct]} " \
                f"{right.wrap(PREC[simple[construct]] + 1)}":
            return f"{name} {simple[construct]}= {right.code}"
        return f"{name} = {low.code}"

    # --------------------------------------------------------------------------- expressions
    def expr(self, node) -> Lowered:
        method = getattr(self, "x_" + type(node).__name__, None)
        if method is None:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` expressions are not supported in kernels")
        return method(node)

    def x_Integer(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_Float(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_SimpleString(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_Name(self, node: cst.Name) -> Lowered:
        name = node.value
        if name in self.env:
            val = self.env[name]
            return Lowered(name, val)
        if name in ("True", "False"):
            return Lowered(name, ConstV(name == "True"))
        if name == "None":
            return Lowered("None", NoneV())
        q = self.pm.imports.get(name)
        if q is not None:
            if q == "cuda.tile" or q.startswith("cuda.tile."):
                return self.ct_ref(q, node)
            raise self.error(node, "T2T107",
                             f"`{name}` (imported from `{q}`) cannot be used inside a kernel",
                             help="kernels may only use cuda.tile constructs and Python operators")
        if name in self.pm.globals:
            return self.module_global(name, node)
        if name in self.pm.functions:
            return Lowered(name, FuncV(name))
        if name in ("range", "min", "max", "len", "float", "int", "bool", "abs", "print"):
            return Lowered(name, FuncV("builtins." + name))
        raise self.error(node, "T2T107", f"unknown name `{name}` inside kernel `{self.fn.name}`",
                         help="define it before use, pass it as a parameter, or make it a "
                              "module-level constant")

    def module_global(self, name: str, node) -> Lowered:
        """Module-level constants are compile-time values inside cuTile kernels: inline them."""
        value = self.pm.globals[name]
        low = self.expr(value)
        if isinstance(low.val, (ConstV, EnumV, DTypeV, CtRefV, TupleV)):
            return low
        raise self.error(node, "T2T103",
                         f"module-level `{name}` is not a compile-time constant",
                         help="kernels can read module constants (numbers, tuples, cuTile "
                              "dtypes and enums); pass anything else as a parameter")

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
        if len(parts) == 2 and parts[0] in ("PaddingMode", "RoundingMode", "MemoryOrder",
                                            "MemoryScope"):
            return Lowered(f"{parts[0]}.{parts[1]}", EnumV(parts[0], parts[1]))
        return Lowered(qualname, CtRefV(qualname))

    def x_Attribute(self, node: cst.Attribute) -> Lowered:
        attr = node.attr.value
        base = self.expr(node.value)
        v = base.val
        if isinstance(v, CtRefV):
            return self.ct_ref(f"{v.qualname}.{attr}", node)
        if isinstance(v, ArrayV):
            info = v.info
            if attr in ("shape", "strides"):
                if info.rank is None:
                    raise self.error(node, "T2T104", f"rank of `{info.name}` is unknown here")
                get = info.shape if attr == "shape" else info.stride
                items = [TileV(shape=(), dtype="int32", nonneg=attr == "shape")
                         for _ in range(info.rank)]
                names = [get(i) for i in range(info.rank)]
                code = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
                low = Lowered(code, TupleV(items))
                low.names = names  # for subscripting
                return low
            if attr == "dtype":
                return Lowered(f"{info.pointer}.dtype.element_ty", DTypeV(array=info))
            if attr == "ndim":
                return Lowered(str(info.rank), ConstV(info.rank))
            if attr in ("tiled_view", "slice"):
                return Lowered(f"{info.name}.{attr}", CtRefV(f"method.Array.{attr}"))
            raise self.error(node, "T2T100", f"array attribute `.{attr}` is not supported",
                             help="supported: .shape, .strides, .dtype, .ndim, .slice(), "
                                  ".tiled_view()")
        if isinstance(v, TiledViewV):
            if attr in ("load", "store", "num_tiles"):
                return Lowered(f"{base.code}.{attr}", CtRefV(f"method.TiledView.{attr}"))
            if attr == "tile_shape":
                items = [ConstV(int(d)) if str(d).isdigit() else ConstExprV(str(d))
                         for d in v.tile_shape]
                code = "(" + ", ".join(v.tile_shape) + ("," if len(v.tile_shape) == 1 else "") + ")"
                low = Lowered(code, TupleV(items))
                low.names = list(v.tile_shape)
                return low
            if attr == "dtype":
                return Lowered(f"{v.array.pointer}.dtype.element_ty", DTypeV(array=v.array))
            raise self.error(node, "T2T100", f"tiled view attribute `.{attr}` is not supported")
        if isinstance(v, TileV):
            if attr == "dtype":
                if v.dtype in CT_TO_TL_DTYPE:
                    return Lowered(CT_TO_TL_DTYPE[v.dtype], DTypeV(name=v.dtype))
                return Lowered(f"{base.wrap(100)}.dtype", DTypeV(code=f"{base.wrap(100)}.dtype"))
            if attr == "shape":
                if v.shape is None:
                    return Lowered(f"{base.wrap(100)}.shape", TupleV([]))
                items = [ConstV(s) if isinstance(s, int) else ConstExprV(str(s)) for s in v.shape]
                code = "(" + ", ".join(str(s) for s in v.shape) + ("," if len(v.shape) == 1 else "") + ")"
                return Lowered(code, TupleV(items))
            if attr == "ndim":
                if v.rank is None:
                    raise self.error(node, "T2T105", "rank of this tile is not known statically")
                return Lowered(str(v.rank), ConstV(v.rank))
            if attr in TILE_METHODS:
                return Lowered(f"{base.wrap(100)}.{attr}", CtRefV(f"method.{attr}"))
        if isinstance(v, EnumV):
            raise self.error(node, "T2T100", f"`.{attr}` of {v.enum} is not supported")
        if isinstance(v, DTypeV) and attr in ("name",):
            raise self.error(node, "T2T100", "dtype attributes are not supported in kernels")
        raise self.error(node, "T2T101", f"attribute `.{attr}` is not supported here")

    def x_Tuple(self, node: cst.Tuple) -> Lowered:
        items = [self.expr(el.value) for el in node.elements]
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        low = Lowered(code, TupleV([i.val for i in items]))
        low.items = items
        return low

    def x_List(self, node: cst.List) -> Lowered:
        return self.x_Tuple(node)  # shapes written as lists behave as tuples

    def x_Subscript(self, node: cst.Subscript) -> Lowered:
        base = self.expr(node.value)
        v = base.val
        if isinstance(v, TupleV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "tuples can only be indexed with one integer")
            idx = self.expr(node.slice[0].slice.value)
            if not isinstance(idx.val, ConstV) or not isinstance(idx.val.value, int):
                raise self.error(node.slice[0], "T2T103",
                                 "a tuple index must be a compile-time integer")
            i = idx.val.value
            names = getattr(base, "names", None)
            items = getattr(base, "items", None)
            if names is not None:
                return Lowered(names[i], v.items[i])
            if items is not None:
                return items[i]
            if v.items and -len(v.items) <= i < len(v.items):
                return Lowered(f"{base.wrap(100)}[{i}]", v.items[i])
            return Lowered(f"{base.wrap(100)}[{i}]", TileV(shape=()))
        if isinstance(v, TileV):
            return self.tile_index(node, base)
        if isinstance(v, ArrayListV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "a list of arrays takes one index")
            idx = self.expr(node.slice[0].slice.value)
            return Lowered(f"{v.info.name}[{idx.code}]", ArrayV(v.info.element(idx.wrap(100))))
        raise self.error(node, "T2T101", "this subscript is not supported in kernels")

    def tile_index(self, node: cst.Subscript, base: Lowered) -> Lowered:
        """`x[:, None]`, `x[None, :]`: new axes. Other tile indexing is not cuTile syntax."""
        parts = []
        shape = list(base.val.shape) if base.val.shape is not None else None
        new_shape = [] if shape is not None else None
        src = 0
        for el in node.slice:
            s = el.slice
            if isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None:
                parts.append(":")
                if new_shape is not None:
                    new_shape.append(shape[src] if src < len(shape) else None)
                src += 1
            elif isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None":
                parts.append("None")
                if new_shape is not None:
                    new_shape.append(1)
            else:
                raise self.error(el, "T2T101", "tiles can only be indexed with `:` and `None`",
                                 help="use ct.extract or ct.item to take parts of a tile")
        if new_shape is not None and shape is not None:
            new_shape.extend(shape[src:])
        v = base.val
        return Lowered(f"{base.wrap(100)}[{', '.join(parts)}]",
                       TileV(shape=tuple(new_shape) if new_shape is not None else None,
                             dtype=v.dtype, tf32=v.tf32, nonneg=v.nonneg))

    def x_BinaryOperation(self, node: cst.BinaryOperation) -> Lowered:
        construct = BINOP_CONSTRUCT[type(node.operator)]
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.operator(construct, node, left, right)

    def operator(self, construct: str, node, *operands: Lowered) -> Lowered:
        pattern = self.mc.patterns.get(construct)
        if pattern is None:
            raise self.error(node, "T2T100", f"operator `{construct}` is not supported")
        sig = signature_of(pattern)
        call = BoundCall(node, construct, {}, {p.name: p.default for p in sig.parameters.values()},
                         self, dict(zip(list(sig.parameters), operands)))
        return pattern.lower(call, self)

    def x_UnaryOperation(self, node: cst.UnaryOperation) -> Lowered:
        operand = self.expr(node.expression)
        if isinstance(node.operator, cst.Not):
            return Lowered(f"not {operand.wrap(PREC['not'])}", operand.val, PREC["not"])
        if isinstance(node.operator, cst.Plus):
            return operand
        return self.operator(UNARY_CONSTRUCT[type(node.operator)], node, operand)

    def x_Comparison(self, node: cst.Comparison) -> Lowered:
        left = self.expr(node.left)
        results = []
        for comp in node.comparisons:
            op = type(comp.operator)
            if op not in CMP_CONSTRUCT:
                raise self.error(comp, "T2T101", "`is`/`in` comparisons are not supported")
            right = self.expr(comp.comparator)
            results.append(self.operator(CMP_CONSTRUCT[op], node, left, right))
            left = right
        if len(results) == 1:
            return results[0]
        code = " & ".join(r.wrap(PREC["&"] + 1) for r in results)
        return Lowered(code, results[0].val, PREC["&"])

    def x_BooleanOperation(self, node: cst.BooleanOperation) -> Lowered:
        left = self.expr(node.left)
        right = self.expr(node.right)
        word = "and" if isinstance(node.operator, cst.And) else "or"
        p = PREC[word]
        return Lowered(f"{left.wrap(p)} {word} {right.wrap(p + 1)}", left.val, p)

    def x_IfExp(self, node: cst.IfExp) -> Lowered:
        test = self.expr(node.test)
        body = self.expr(node.body)
        orelse = self.expr(node.orelse)
        p = PREC["ifexp"]
        return Lowered(f"{body.wrap(p + 1)} if {test.wrap(p + 1)} else {orelse.wrap(p)}",
                       body.val, p)

    def x_Call(self, node: cst.Call) -> Lowered:
        func = self.expr(node.func)
        v = func.val
        if isinstance(v, CtRefV):
            q = v.qualname
            if q.startswith("method."):
                receiver = self.expr(node.func.value)
                return self.construct(q[len("method."):], node, receiver)
            if not q.startswith("cuda.tile."):
                raise self.error(node, "T2T100", f"`{q}` is not a cuda.tile construct")
            return self.construct(q[len("cuda.tile."):], node)
        if isinstance(v, FuncV):
            if v.name.startswith("builtins."):
                return self.builtin_call(v.name[len("builtins."):], node)
            return self.helper_call(v.name, node)
        raise self.error(node.func, "T2T101", "only cuda.tile constructs and helper functions "
                                              "can be called inside kernels")

    def construct(self, name: str, node: cst.Call, receiver: Optional[Lowered] = None):
        pattern = self.mc.patterns.get(name)
        if pattern is None:
            raise self.error(node, "T2T100", f"ct.{name} is not supported by tile2triton",
                             help="see docs/constructs.md for the constructs tile2triton "
                                  "translates; rewrite this part or open an issue")
        call = bind(pattern, name, node, self, receiver)
        return pattern.lower(call, self)

    def builtin_call(self, name: str, node: cst.Call) -> Lowered:
        args = [self.expr(a.value) for a in node.args]
        if name in ("min", "max"):
            if len(args) < 2 or any(a.keyword is not None for a in node.args):
                raise self.error(node, "T2T102", f"{name}() in kernels takes two or more scalars")
            if all(isinstance(a.val, ConstV) for a in args):
                value = (min if name == "min" else max)(a.val.value for a in args)
                return self.const(value)
            if all(isinstance(a.val, (ConstV, ConstExprV)) for a in args):
                return Lowered(f"{name}({', '.join(a.code for a in args)})", ConstExprV(name))
            fn = "tl.minimum" if name == "min" else "tl.maximum"
            acc = args[0]
            for a in args[1:]:
                acc = Lowered(f"{fn}({acc.code}, {a.code})",
                              TileV(shape=(), nonneg=self.is_nonneg(acc) and self.is_nonneg(a)))
            return acc
        if name == "len":
            if len(args) == 1 and isinstance(args[0].val, TupleV):
                return self.const(len(args[0].val.items))
            if len(args) == 1 and isinstance(args[0].val, ArrayListV):
                return Lowered(args[0].val.info.count, TileV(shape=(), dtype="int32",
                                                             nonneg=True))
            raise self.error(node, "T2T100", "len() is supported on tuples only in this version")
        if name in ("float", "int", "bool"):
            if len(args) == 1 and isinstance(args[0].val, ConstV):
                return self.const({"float": float, "int": int, "bool": bool}[name](
                    args[0].val.value))
            if name == "float" and len(args) == 1:
                return Lowered(f"{args[0].wrap(100)}.to(tl.float32)", TileV(shape=(), dtype="float32"))
            if name == "int" and len(args) == 1:
                return Lowered(f"{args[0].wrap(100)}.to(tl.int32)", TileV(shape=(), dtype="int32"))
        if name == "abs" and len(args) == 1:
            return self.construct("abs", node)
        if name == "print":  # cuTile treats the builtin as ct.print
            return self.construct("print", node)
        raise self.error(node, "T2T101", f"builtin `{name}()` is not supported here")

    def helper_call(self, name: str, node: cst.Call) -> Lowered:
        """Call of a module-level @ct.function or plain helper: translated as @triton.jit."""
        from .translate import lower_helper  # late import: helper lowering recurses
        if any(a.keyword is not None or a.star for a in node.args):
            raise self.error(node, "T2T102", "helper calls in kernels take positional arguments")
        args = [self.expr(a.value) for a in node.args]
        unit, ret = lower_helper(self.mc, name, node, args, self)
        codes = []
        for a in args:
            if isinstance(a.val, ArrayV):
                codes.extend(a.val.info.abi())
            else:
                codes.append(a.code)
        if unit.uses_array_params:
            codes.append(USE_INT64)
        self.result.runtime_helpers |= unit.runtime_helpers
        self.result.helper_sources.update(unit.helper_sources)
        self.result.tile_elems += unit.tile_elems
        self.result.uses_dot |= unit.uses_dot
        self.result.debug |= unit.debug
        return Lowered(f"{name}({', '.join(codes)})", ret)

    def runtime_if_mutable(self, name: str, val: Val) -> Val:
        """A name assigned more than once (loop counters, accumulators) is a runtime value,
        even when its first value is a literal: never fold it."""
        if name in self.mutable and isinstance(val, ConstV) and isinstance(
                val.value, (bool, int, float)):
            dtype = {bool: "bool_", int: "int32", float: "float32"}[type(val.value)]
            return TileV(shape=(), dtype=dtype)
        return val

    # ------------------------------------------------------------------------------ analysis
    def is_nonneg(self, low: Lowered) -> bool:
        v = low.val
        if isinstance(v, ConstV):
            return isinstance(v.value, (int, float)) and v.value >= 0
        if isinstance(v, TileV):
            return v.nonneg
        return False



def _reassigned_names(body) -> set:
    """Names bound more than once in a function body, or bound inside a loop."""
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
    return {n for n, c in counts.items() if c > 1} | in_loop
