"""Expressions: one method per supported expression node. Every `ct.*` call and operator goes to
the pattern that claims it (or T2T100); calls of module functions go to helper specialization."""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

import libcst as cst

from ..diagnostics import LocatedFailure, TranslationError
from .installed import lacks
from ..parse.names import source_identifiers
from ..model import (CT_TO_TL_DTYPE, PREC, USE_INT64, ArrayListV, ArrayV, ChoiceV, ConstExprV,
                     ConstV, CtRefV,
                     DTypeV, EnumClassV, EnumV, FuncV, Lowered, NoneV, PyRefV, TableV, TiledViewV,
                     TileV,
                     TupleV)
from . import pyconst
from .memory_order import Access, access_of, barrier
from .pyvalues import dtype_compare
from .tables import _single_return
from ..pattern_api import bind, bind_operands

# Python operator syntax -> its symbol; which construct a symbol is comes from the patterns
# (`Pattern.operators`, collected by the registry).
BINOP_SYMBOL = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
    cst.LeftShift: "<<", cst.RightShift: ">>", cst.MatrixMultiply: "@",
}
AUGOP_SYMBOL = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**",
    cst.BitAndAssign: "&", cst.BitOrAssign: "|", cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>", cst.MatrixMultiplyAssign: "@",
}
CMP_SYMBOL = {
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
    cst.Equal: "==", cst.NotEqual: "!=",
}
UNARY_SYMBOL = {cst.Minus: "unary -", cst.BitInvert: "~"}
# operators that no function or class reference supports (comparisons may compare them)
ARITHMETIC_SYMBOLS = set(BINOP_SYMBOL.values()) | set(UNARY_SYMBOL.values())
# Python builtins kernels may call (cuTile gives them tile meanings: max is ct.maximum, ...)
BUILTINS = ("range", "min", "max", "len", "float", "int", "bool", "abs", "print", "divmod",
            "tuple", "sum")


class Expressions:
    """Mixin of `Lowerer`: expressions."""

    # --------------------------------------------------------------------------- expressions
    def expr(self, node) -> Lowered:
        method = getattr(self, "x_" + type(node).__name__, None)
        if method is None:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` expressions are not supported in kernels",
                             help="rewrite the expression with supported forms (a helper "
                                  "function, a conditional expression, or tile operations)")
        try:
            return method(node)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this expression
            raise LocatedFailure(node, e) from e

    def x_Integer(self, node):
        return Lowered(node.value, self.fold(node, lambda: node.evaluated_value).val)

    def x_Float(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_SimpleString(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_Name(self, node: cst.Name) -> Lowered:
        name = node.value
        if name in self.static_names:        # a ct.static_iter item, inlined
            return self.static_names[name]
        if name in self.env:
            val = self.env[name]
            return Lowered(self.renames.get(name, name), val)
        if name in ("True", "False"):
            return Lowered(name, ConstV(name == "True"))
        if name == "None":
            return Lowered("None", NoneV())
        q = self.pm.imports.get(name)
        if q is not None:
            if q == "cuda.tile" or q.startswith("cuda.tile."):
                return self.ct_ref(q, node)
            if q.split(".")[0] in pyconst.PY_MODULES:
                return self.py_ref(q, node)
            raise self.error(node, "T2T107",
                             f"`{name}` (imported from `{q}`) cannot be used inside a kernel",
                             help="kernels may only use cuda.tile constructs and Python operators")
        if name in self.pm.globals:
            return self.module_global(name, node)
        if name in self.pm.enums:
            return Lowered(name, EnumClassV(name))
        if name in self.pm.functions:
            return Lowered(name, FuncV(name))
        if name in BUILTINS:
            return Lowered(name, FuncV("builtins." + name))
        raise self.error(node, "T2T107", f"unknown name `{name}` inside kernel `{self.fn.name}`",
                         help="define it before use, pass it as a parameter, or make it a "
                              "module-level constant")


    def x_Tuple(self, node: cst.Tuple) -> Lowered:
        items = []
        for el in node.elements:
            low = self.expr(el.value)
            if isinstance(el, cst.StarredElement):   # `(7, *a, 8)`: a's items spliced in
                if isinstance(low.val, ConstV) and isinstance(low.val.value, tuple):
                    items.extend(self.const(v) for v in low.val.value)
                elif isinstance(low.val, TupleV) and low.val.known:
                    items.extend(self.const(i.val.value) if isinstance(i.val, ConstV) else i
                                 for i in self.tuple_items(el.value, low))
                elif isinstance(low.val, TupleV):
                    raise self.error(el, "T2T103", "`*` needs a tuple whose length is known "
                                     "here", help="write the tuple's items, or `*()` for none")
                else:
                    raise self.error(el, "T2T101", "`*` in a tuple takes a tuple here",
                                     help="unpack a tuple whose length is known here")
            else:
                items.append(low)
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        return Lowered(code, TupleV([i.val for i in items]), items=items)

    def x_List(self, node: cst.List) -> Lowered:
        return self.x_Tuple(node)  # shapes written as lists behave as tuples

    def x_Subscript(self, node: cst.Subscript) -> Lowered:
        base = self.expr(node.value)
        v = base.val
        if isinstance(v, TupleV):
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return self.tuple_slice(node, base)
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "tuples can only be indexed with one integer "
                                 "or sliced with constant bounds",
                                 help="index a tuple with one integer known at translation time, "
                                      "or slice it with constant bounds")
            idx = self.expr(node.slice[0].slice.value)
            if isinstance(idx.val, ConstExprV) and (base.items is not None or v.items):
                return self.tuple_choice(node, base, idx)   # tables.py
            if not isinstance(idx.val, ConstV) or not isinstance(idx.val.value, int):
                raise self.error(node.slice[0], "T2T103",
                                 "a tuple index must be a compile-time integer",
                                 help="use an integer literal, a ct.Constant parameter or a loop "
                                      "variable of ct.static_iter")
            i = idx.val.value
            n = len(base.items if base.items is not None else v.items)
            if (n or base.items is not None or v.known) and not -n <= i < n:
                raise self.error(node.slice[0], "T2T105",
                                 f"index {i} is out of range for a tuple of {n} item"
                                 f"{'' if n == 1 else 's'}",
                                 help=f"use an index from {-n} to {n - 1}" if n else None)
            if base.items is not None:
                return base.items[i]
            if v.items:
                item = v.items[i]
                if isinstance(item, ConstV) and type(item.value) in (int, bool, float):
                    return self.const(item.value)      # `(4, 8)[0]`, `extra[1]`: the number
                return Lowered(f"{base.wrap(100)}[{i}]", item)
            return Lowered(f"{base.wrap(100)}[{i}]", TileV(shape=()))
        if isinstance(v, TileV):
            return self.tile_index(node, base)
        if isinstance(v, TableV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "a dict takes one key",
                                 help="look up one key at a time: `table[key]`")
            return self.table_index(node, base, self.expr(node.slice[0].slice.value))
        if isinstance(v, ArrayListV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "a list of arrays takes one index",
                                 help="index the list of arrays with one integer: `arrays[i]`")
            idx = self.expr(node.slice[0].slice.value)
            return Lowered(f"{v.info.name}[{idx.code}]", ArrayV(v.info.element(idx.wrap(100))))
        raise self.error(node, "T2T101", "this subscript is not supported in kernels",
                         help="subscript tiles with indices and `None`, tuples with integers and "
                              "dicts with constant keys; use ct.extract or ct.gather for the rest")

    def tuple_slice(self, node: cst.Subscript, base: Lowered) -> Lowered:
        """`t[a:b:c]` with compile-time bounds: the tuple of the chosen items (Triton slices its
        tuples the same way when the items are only known there)."""
        sl = node.slice[0].slice
        bounds = []
        for part in (sl.lower, sl.upper, sl.step):
            if part is None:
                bounds.append(None)
                continue
            b = self.expr(part)
            if not isinstance(b.val, ConstV) or not isinstance(b.val.value, int) \
                    or isinstance(b.val.value, bool):
                raise self.error(part, "T2T103", "a tuple slice's bounds must be compile-time "
                                 "integers",
                                 help="use integer literals or ct.Constant parameters as the "
                                      "slice bounds")
            bounds.append(b.val.value)
        if bounds[2] == 0:
            raise self.error(sl.step, "T2T102", "a slice step cannot be zero",
                             help="use a step other than 0 (or leave it out)")
        v = base.val
        chosen = slice(*bounds)
        if base.items is not None:
            items = base.items[chosen]
            code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
            return Lowered(code, TupleV([i.val for i in items]), items=items)
        if not v.items:
            raise self.error(node, "T2T103", "slicing a tuple needs its length known here",
                             help="slice a tuple whose length is fixed (a literal tuple, a shape, "
                                  "a tuple parameter)")
        text = ":".join("" if b is None else str(b) for b in bounds).rstrip(":") or ":"
        indices = list(range(len(v.items)))[chosen]
        return Lowered(f"{base.wrap(100)}[{text}]", TupleV([v.items[i] for i in indices]))

    def tile_index(self, node: cst.Subscript, base: Lowered) -> Lowered:
        """`x[:, None]`, `x[None, :]`: new axes. Other tile indexing is not cuTile syntax."""
        parts = []
        shape = list(base.val.shape) if base.val.shape is not None else None
        new_shape = [] if shape is not None else None
        kinds = [self.new_axis_kind(el) for el in node.slice]
        if kinds.count("...") > 1:
            raise self.error(node, "T2T101", "a tile index may hold one `...`",
                             help="keep at most one `...` in the index")
        if "..." in kinds:
            # `...` stands for as many `:` as the tile has axes not named by the others
            if shape is None:
                raise self.error(node, "T2T105", "`...` in a tile index needs the tile's rank, "
                                 "which is not known here", help="write the `:` out")
            fill = len(shape) - kinds.count(":")
            if fill < 0:
                raise self.error(node, "T2T105", f"too many `:` for a tile of rank {len(shape)}",
                                 help="use at most one `:` or `...` per axis of the tile")
            at = kinds.index("...")
            kinds[at:at + 1] = [":"] * fill
        src = 0
        for kind in kinds:
            if kind == ":":
                parts.append(":")
                if new_shape is not None:
                    new_shape.append(shape[src] if src < len(shape) else None)
                src += 1
            else:
                parts.append("None")
                if new_shape is not None:
                    new_shape.append(1)
        if new_shape is not None and shape is not None:
            new_shape.extend(shape[src:])
        v = base.val
        return Lowered(f"{base.wrap(100)}[{', '.join(parts)}]",
                       TileV(shape=tuple(new_shape) if new_shape is not None else None,
                             dtype=v.dtype, tf32=v.tf32, nonneg=v.nonneg,
                             numeric=v.numeric))

    def new_axis_kind(self, el: cst.SubscriptElement) -> str:
        """One entry of a tile index: ":" (a whole axis), "None" (a new axis: `None`,
        `np.newaxis`) or "..." (the axes not named)."""
        s = el.slice
        if isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None:
            return ":"
        if isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis):
            return "..."
        if isinstance(s, cst.Index) and (
                (isinstance(s.value, cst.Name) and s.value.value == "None")
                or self.resolve(s.value) in ("numpy.newaxis", "torch.newaxis")):
            return "None"
        raise self.error(el, "T2T101", "tiles can only be indexed with `:`, `None` and `...`",
                         help="use ct.extract or ct.item to take parts of a tile")

    def x_BinaryOperation(self, node: cst.BinaryOperation) -> Lowered:
        symbol = BINOP_SYMBOL[type(node.operator)]
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.operator(symbol, node, left, right)

    def operator(self, symbol: str, node, *operands: Lowered) -> Lowered:
        """A Python operator: the construct the patterns say it is, with lowered operands."""
        if symbol in ARITHMETIC_SYMBOLS:
            for operand in operands:   # `ct.bid + 1`, `helper * 2`: Python raises TypeError
                if isinstance(operand.val, (CtRefV, FuncV, PyRefV, TableV, EnumClassV)):
                    raise self.error(node, "T2T101", f"operator `{symbol.split()[-1]}` on "
                                     f"`{operand.code}`, a function or class, not a value",
                                     help="call it, or use a value")
        construct = self.mc.registry.operators.get(symbol)
        if construct is None or construct not in self.mc.patterns:
            raise self.error(node, "T2T100", f"operator `{symbol.split()[-1]}` is not supported",
                             help="use the operator's cuTile function (ct.pow, ct.bitwise_and, "
                                  "...) or rewrite it with supported operators")
        low = self.apply_construct(construct, node, *operands)
        if isinstance(low.val, ConstV) and _literal_only(node):
            # `2**30` stays as written (its value is still known for folding elsewhere)
            text = self.source_of(node)
            if "\n" not in text:
                prec = 100 if node.lpar else (PREC["unary"] if isinstance(
                    node, cst.UnaryOperation) else PREC[BINOP_SYMBOL[type(node.operator)]])
                return Lowered(text, low.val, prec)
        return low

    def apply_construct(self, construct: str, node, *operands: Lowered) -> Lowered:
        """The cuTile construct `construct` applied to already lowered operands (Python's
        operators, and the builtins max/min, which are ct.maximum / ct.minimum)."""
        pattern = self.mc.patterns[construct]
        return pattern.lower(bind_operands(pattern, node, construct, operands, self), self)

    def x_UnaryOperation(self, node: cst.UnaryOperation) -> Lowered:
        operand = self.expr(node.expression)
        if isinstance(node.operator, cst.Not):
            if isinstance(operand.val, ConstV):
                return self.const(not operand.val.value)
            if isinstance(operand.val, TileV) and operand.val.dtype != "bool_":
                # Triton's `not` bitcasts an int32 to int1 (no compile); cuTile tests `== 0`
                return Lowered(f"{operand.wrap(PREC['cmp'] + 1)} == 0",
                               TileV(shape=operand.val.shape, dtype="bool_"), PREC["cmp"])
            return Lowered(f"not {operand.wrap(PREC['not'])}", operand.val, PREC["not"])
        if isinstance(node.operator, cst.Plus):
            return operand
        return self.operator(UNARY_SYMBOL[type(node.operator)], node, operand)

    def x_Comparison(self, node: cst.Comparison) -> Lowered:
        left = self.expr(node.left)
        results = []
        for comp in node.comparisons:
            op = type(comp.operator)
            if op in (cst.Is, cst.IsNot) and len(node.comparisons) == 1:
                right = self.expr(comp.comparator)
                low = self.enum_compare(node, left, right, "is" if op is cst.Is
                                        else "is not")   # tables.py
                if low is not None:
                    return low
                return self.identity_compare(node, left, right, op is cst.Is)
            if op in (cst.In, cst.NotIn) and len(node.comparisons) == 1:
                return self.membership(node, comp, left, op is cst.In)
            if op not in CMP_SYMBOL:
                raise self.error(comp, "T2T101", "`in`/`not in` comparisons are not supported",
                                 help="test membership in a tuple known at translation time, or "
                                      "compare with `==` and combine with `or`")
            right = self.expr(comp.comparator)
            if len(node.comparisons) == 1:
                low = self.enum_compare(node, left, right, CMP_SYMBOL[op])   # tables.py
                if low is not None:
                    return low
            if isinstance(left.val, DTypeV) and isinstance(right.val, DTypeV) and op in (
                    cst.Equal, cst.NotEqual) and len(node.comparisons) == 1:
                return dtype_compare(left, right, op is cst.Equal)
            if isinstance(left.val, TableV) and isinstance(right.val, TableV) and op in (
                    cst.Equal, cst.NotEqual) and len(node.comparisons) == 1:
                return self.table_equal(node, left, right, op is cst.Equal)   # tables.py
            if isinstance(left.val, TupleV) and isinstance(right.val, TupleV) and op in (
                    cst.Equal, cst.NotEqual) and len(node.comparisons) == 1:
                same = self.tuple_equal(left, right, node)
                if same is not None:
                    return same if op is cst.Equal else self.const(not same.val.value) \
                        if isinstance(same.val, ConstV) else Lowered(
                            f"not ({same.code})", ConstExprV("cmp", kind="bool"),
                            PREC["not"]) if isinstance(same.val, ConstExprV) else Lowered(
                            f"{same.wrap(100)} == 0", same.val, PREC["cmp"])
            results.append(self.operator(CMP_SYMBOL[op], node, left, right))
            left = right
        if len(results) == 1:
            return results[0]
        code = " & ".join(r.wrap(PREC["&"] + 1) for r in results)
        return Lowered(code, results[0].val, PREC["&"])

    def membership(self, node, comp, left: Lowered, positive: bool) -> Lowered:
        """`x in (a, b, ...)`: `x == a`, then `x == b`, ... as cuTile compares them: an item
        equal at translation time ends the search (later items are not compared), items unequal
        at translation time drop out, and the rest are or-ed at run time (`not in`: the
        negation)."""
        right = self.expr(comp.comparator)
        if isinstance(right.val, TableV):            # `"k" in kwargs`: a key known here
            if not isinstance(left.val, ConstV):
                raise self.error(node.left, "T2T103", "`in` a dict takes a key known at "
                                 "translation time",
                                 help="look the key up with a literal or a ct.Constant parameter")
            return self.const(any(k == left.val.value for k, _ in right.val.entries)
                              == positive)
        if not isinstance(right.val, TupleV):
            raise self.error(comp, "T2T101", "`in`/`not in` needs a tuple on its right",
                             help="put a tuple (or a tuple parameter) on the right of `in`")
        items = right.items if right.items is not None and len(right.items) == len(
            right.val.items) else [self.const(v.value) if isinstance(v, ConstV) else None
                                   for v in right.val.items]
        runtime = []
        for item in items:
            if item is None:
                raise self.error(comp, "T2T101", "`in` over a tuple whose items are not "
                                 "known here is not supported",
                                 help="compare with each item (`x == a or x == b`), or make the "
                                      "tuple's items constants")
            eq = self.equality(node, left, item)
            if isinstance(eq.val, ConstV):
                if eq.val.value:
                    return self.const(positive) if not runtime else self._any(
                        runtime, positive, done=True)
                continue
            runtime.append(eq)
        if not runtime:
            return self.const(not positive)
        return self._any(runtime, positive, done=False)

    def _any(self, tests: list, positive: bool, done: bool) -> Lowered:
        """Runtime `t0 | t1 | ...` (done: a later item matched at translation time, so the
        result is True whatever the tests give)."""
        if done:
            return self.const(positive)
        code = " | ".join(t.wrap(PREC["|"] + 1) for t in tests)
        val = TileV(shape=(), dtype="bool_")
        if positive:
            return Lowered(code, val, PREC["|"] if len(tests) > 1 else tests[0].prec)
        return Lowered(f"({code}) == 0", val, PREC["cmp"])

    def equality(self, node, left: Lowered, right: Lowered) -> Lowered:
        """`left == right`, tuples compared item by item."""
        if isinstance(left.val, TupleV) and isinstance(right.val, TupleV):
            same = self.tuple_equal(left, right, node)
            if same is not None:
                return same
        return self.operator("==", node, left, right)

    def tuple_equal(self, left: Lowered, right: Lowered, node=None) -> Optional[Lowered]:
        """`t.shape == (TM, 4)`, `(a, b) == (0, 0)`: tuples are equal item by item, as in
        cuTile: constants compared here, ct.Constant parameters left to Triton (which folds
        them), runtime scalars compared at run time and the results and-ed (nested tuples
        likewise). None when an item is something else (a tile)."""
        def parts(low):
            items = low.items if low.items is not None and len(low.items) == len(
                low.val.items) else [Lowered(str(getattr(v, "value", getattr(v, "name", ""))), v)
                                     if not isinstance(v, TupleV) else None
                                     for v in low.val.items]
            return items
        a, b = parts(left), parts(right)
        if any(i is None for i in a + b):
            return None
        if len(a) != len(b):
            return self.const(False)
        codes, runtime = [], []
        for x, y in zip(a, b):
            vx, vy = x.val, y.val
            if isinstance(vx, TupleV) and isinstance(vy, TupleV):
                sub = self.tuple_equal(x, y, node)
                if sub is None:
                    return None
                if isinstance(sub.val, ConstV):
                    if not sub.val.value:
                        return self.const(False)
                elif isinstance(sub.val, ConstExprV):
                    codes.append(sub.wrap(PREC["and"] + 1))
                else:
                    runtime.append(sub)
            elif isinstance(vx, TupleV) or isinstance(vy, TupleV):
                return self.const(False)
            elif isinstance(vx, ConstV) and isinstance(vy, ConstV):
                if vx.value != vy.value:
                    return self.const(False)
            elif isinstance(vx, ConstExprV) and isinstance(vy, ConstExprV) \
                    and vx.name == vy.name and x.code == y.code:
                continue
            elif isinstance(vx, (ConstV, ConstExprV)) and isinstance(vy, (ConstV, ConstExprV)):
                codes.append(f"{x.wrap(PREC['cmp'] + 1)} == {y.wrap(PREC['cmp'] + 1)}")
            elif node is not None and all(isinstance(v, (ConstV, ConstExprV)) or (
                    isinstance(v, TileV) and v.shape == ()) for v in (vx, vy)):
                eq = self.operator("==", node, x, y)     # runtime scalars
                if isinstance(eq.val, ConstV):
                    if not eq.val.value:
                        return self.const(False)
                else:
                    runtime.append(eq)
            else:
                return None
        if runtime:
            tests = [Lowered(c, ConstExprV("cmp", kind="bool"), PREC["cmp"]) for c in codes]
            tests += runtime
            code = " & ".join(t.wrap(PREC["&"] + 1) for t in tests)
            # (an and of several is parenthesized inside `|` and `==` too, for the reader)
            return Lowered(code, TileV(shape=(), dtype="bool_"),
                           PREC["|"] if len(tests) > 1 else tests[0].prec)
        if not codes:
            return self.const(True)
        return Lowered(" and ".join(codes), ConstExprV("cmp", kind="bool"),
                       PREC["and"] if len(codes) > 1 else PREC["cmp"])

    def identity_compare(self, node, left: Lowered, right: Lowered, is_: bool) -> Lowered:
        """`a is None`, `dtype is not ct.float32`: cuTile decides identity at compile time, on
        compile-time values; a ct.Constant parameter is left to Triton, which folds `is` on
        constexprs. Identity of runtime values (tiles, scalars) has no meaning in a kernel."""
        def key(v):
            if isinstance(v, NoneV) or isinstance(v, ConstV) and v.value is None:
                return ("none",)
            if isinstance(v, ConstV):
                return ("const", type(v.value), v.value)
            if isinstance(v, EnumV):
                return ("enum", v.enum, v.member)
            if isinstance(v, DTypeV) and v.name is not None and v.code is None:
                return ("dtype", v.name)
            return None
        a, b = key(left.val), key(right.val)
        if a is not None and b is not None:
            # Python's `is` on small ints, None, enum members and dtypes is equality of these
            same = a[0] == b[0] and (a == b if a[0] != "const"
                                     else a[1] is b[1] and a[2] == b[2])
            return self.const(same == is_)
        if isinstance(left.val, (ConstExprV, NoneV, ConstV)) and isinstance(
                right.val, (ConstExprV, NoneV, ConstV)):
            word = "is" if is_ else "is not"
            return Lowered(f"{left.wrap(PREC['cmp'] + 1)} {word} {right.wrap(PREC['cmp'] + 1)}",
                           ConstExprV("is"), PREC["cmp"])
        raise self.error(node, "T2T101", "`is`/`is not` compares compile-time values only "
                         "(None, constants, dtypes, enum members) inside kernels",
                         help="compare tiles and scalars with == and !=")

    def x_BooleanOperation(self, node: cst.BooleanOperation) -> Lowered:
        """`a and b`, `a or b`: cuTile makes each operand a bool first (an int32 condition is
        `!= 0`); Triton's `and`/`or` would bitcast an int32 to int1, which does not compile."""
        is_and = isinstance(node.operator, cst.And)
        left = self.expr(node.left)
        if isinstance(left.val, ConstV):      # decided at translation time
            if bool(left.val.value) != is_and:
                return self.const(not is_and)
            right = self.expr(node.right)
            return self.const(bool(right.val.value)) if isinstance(right.val, ConstV) \
                else _as_bool(right)
        left, right = _as_bool(left), _as_bool(self.expr(node.right))
        word = "and" if is_and else "or"
        p = PREC[word]
        val = next((v.val for v in (left, right) if isinstance(v.val, TileV)), left.val)
        return Lowered(f"{left.wrap(p)} {word} {right.wrap(p + 1)}", val, p)

    def x_IfExp(self, node: cst.IfExp) -> Lowered:
        return self.if_exp(node)  # pyvalues.py: folded on constants, per dtype by Triton

    def x_Call(self, node: cst.Call) -> Lowered:
        if isinstance(node.func, cst.Lambda):      # `(lambda t: t * 2)(x)`: nested_defs.py
            local = self.fresh_name("_lambda")
            self.nested_lambda(local, node.func)
            return self.helper_call(self.env[local].name, node)
        q = self.resolve(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        if q and q.startswith("cuda.tile.") and CT_TO_TL_DTYPE.get(q[len("cuda.tile."):],
                                                                  "") is None:
            # a dtype Triton lacks, called on a constant (`ct.float8_e8m0fnu(0.2)`), is a
            # number rounded to it; on anything else pyvalues.py says why not
            return self.dtype_call(DTypeV(name=q[len("cuda.tile."):]), node)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
            base = self.expr(node.func.value)
            if isinstance(base.val, TableV):
                return self.table_get(node, base)        # tables.py: `kwargs.get("k")`
        start = len(self.out)
        low = self.call_value(self.expr(node.func), self.spread_starred(node))
        return self.row_load(node, low, start) if id(node) in self.row_loads else low

    def spread_starred(self, node: cst.Call) -> cst.Call:
        """`f(a, *t)` where `t`'s length is known here is `f(a, t[0], t[1])`, as Python passes
        it (`*(1, 2)` written out gives its items)."""
        if not any(a.star == "*" for a in node.args):
            return node
        args = []
        for a in node.args:
            v = a.value
            if a.star != "*":
                args.append(a)
                continue
            if isinstance(v, (cst.Tuple, cst.List)) and not any(
                    isinstance(e, cst.StarredElement) for e in v.elements):
                args += [cst.Arg(e.value) for e in v.elements]
                continue
            low = self.expr(v)
            if not isinstance(low.val, TupleV) or not low.val.known:
                raise self.error(a, "T2T103", "`*` needs a tuple whose length is known here",
                                 help="write the arguments out, or unpack a tuple of known length")
            if not isinstance(v, (cst.Name, cst.Attribute)):
                raise self.error(a, "T2T102", "`*` of this expression is not supported",
                                 help="bind the tuple to a name first")
            n = len(low.items) if low.items is not None else len(low.val.items)
            for k in range(n):
                item = cst.Subscript(v, [cst.SubscriptElement(cst.Index(cst.Integer(str(k))))])
                self.pm.origins[item] = v
                args.append(cst.Arg(item))
        new = node.with_changes(args=args)
        self.pm.origins[new] = node
        return new

    def call_value(self, func: Lowered, node: cst.Call) -> Lowered:
        """`node` (a call) with its callee already lowered to `func`."""
        v = func.val
        if isinstance(v, CtRefV):
            q = v.qualname
            if q.startswith("method."):
                receiver = v.receiver if v.receiver is not None else self.expr(node.func.value)
                return self.construct(q[len("method."):], node, receiver)
            if not q.startswith("cuda.tile."):
                raise self.error(node, "T2T100", f"`{q}` is not a cuda.tile construct",
                                 help="call a cuda.tile construct (docs/constructs.md lists them) "
                                      "or a helper function of the module")
            return self.construct(q[len("cuda.tile."):], node)
        if isinstance(v, PyRefV):
            return self.py_call(v.qualname, node)
        if isinstance(v, DTypeV) and v.name is not None:
            return self.dtype_call(v, node)  # pyvalues.py: `np.float32(1.5)`, `ct.int32()`
        if isinstance(v, FuncV):
            if v.name.startswith("builtins."):
                return self.builtin_call(v.name[len("builtins."):], node)
            return self.helper_call(v.name, node)
        if isinstance(v, ChoiceV):
            return self.choice_call(node, v)            # tables.py
        if isinstance(v, EnumClassV):
            return self.enum_call(node, v.name)
        raise self.error(node.func, "T2T101", "only cuda.tile constructs and helper functions "
                                              "can be called inside kernels",
                         help="call a cuda.tile construct or a function defined in the module (it "
                              "is translated as a helper); compute other values on the host and "
                              "pass them in")

    def tuple_call(self, node: cst.Call) -> Lowered:
        """`tuple(<generator>)` over ct.static_iter (static_iter.py), `tuple(t)` of a tuple."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            raise self.error(node, "T2T102", "tuple() in kernels takes one argument",
                             help="call tuple() with one iterable")
        arg = node.args[0].value
        if isinstance(arg, cst.GeneratorExp):
            return self.tuple_comprehension(arg)
        low = self.expr(arg)
        items = self.tuple_items(arg, low)
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        return Lowered(code, TupleV([i.val for i in items]), items=items)

    def construct(self, name: str, node: cst.Call, receiver: Optional[Lowered] = None):
        pattern = self.mc.patterns.get(name)
        if (pattern is None or name in pattern.newer) and (version := lacks(name)):
            raise self.error(node, "T2T100", f"ct.{name} is not supported: cuda-tile {version} "
                             "(installed) has no such name, so cuTile cannot compile it either",
                             help="use it only in a branch of a ct.Constant that a newer "
                                  "cuda-tile takes (the translation fails the launches taking "
                                  "that branch), or spell it with constructs this version has")
        if pattern is None:
            raise self.error(node, "T2T100", f"ct.{name} is not supported by tile2triton",
                             help="see docs/constructs.md for the constructs tile2triton "
                                  "translates; rewrite this part or open an issue")
        call = bind(pattern, name, node, self, receiver)
        access = access_of(name, call, receiver)
        if access is not None:   # memory_order.py: a barrier where another thread may race
            array, elementwise, write, scalar = access
            acc = Access(array, elementwise, write, pos=len(self.out) if self.can_insert
                         else None, depth=self.depth, scalar=scalar)
            if self.order.note(acc):
                self.before(barrier(acc.array))
        return pattern.lower(call, self)

    def builtin_call(self, name: str, node: cst.Call) -> Lowered:
        if name == "tuple":
            return self.tuple_call(node)
        if name == "sum" and len(node.args) in (1, 2) and all(
                a.keyword is None and not a.star for a in node.args):
            return self.builtin_sum(node)
        args = [self.expr(a.value) for a in node.args]
        if name in ("min", "max"):
            if len(args) < 2 or any(a.keyword is not None for a in node.args):
                raise self.error(node, "T2T102", f"{name}() in kernels takes two or more scalars",
                                 help="pass two or more scalars; for a tile use "
                                      "ct.minimum/ct.maximum or ct.min/ct.max")
            if all(isinstance(a.val, ConstV) for a in args):
                return self.fold(node, min if name == "min" else max,
                                 *(a.val.value for a in args))
            if all(isinstance(a.val, (ConstV, ConstExprV)) for a in args):
                return Lowered(f"{name}({', '.join(a.code for a in args)})", ConstExprV(name))
            # runtime scalars or tiles: cuTile's builtin max/min are ct.maximum / ct.minimum
            acc = args[0]
            for a in args[1:]:
                acc = self.apply_construct("minimum" if name == "min" else "maximum", node, acc, a)
            return acc
        if name == "len":
            if len(args) == 1 and isinstance(args[0].val, TupleV):
                return self.const(len(args[0].val.items))
            if len(args) == 1 and isinstance(args[0].val, ArrayListV):
                return Lowered(args[0].val.info.count, TileV(shape=(), dtype="int32",
                                                             nonneg=True))
            raise self.error(node, "T2T100", "len() is supported on tuples only in this version",
                             help="use len() on a tuple; for a tile or array use its .shape")
        if name in ("float", "int", "bool"):
            if len(args) == 1 and isinstance(args[0].val, ConstV):
                return self.fold(node, {"float": float, "int": int, "bool": bool}[name],
                                 args[0].val.value)
            if name == "float" and len(args) == 1:
                return Lowered(f"{args[0].wrap(100)}.to(tl.float32)", TileV(shape=(), dtype="float32"))
            if name == "int" and len(args) == 1:
                return Lowered(f"{args[0].wrap(100)}.to(tl.int32)", TileV(shape=(), dtype="int32"))
        if name == "abs" and len(args) == 1:
            return self.construct("abs", node)
        if name == "divmod":  # cuTile treats the builtin as ct.divmod
            return self.construct("divmod", node)
        if name == "print":  # cuTile treats the builtin as ct.print
            return self.construct("print", node)
        raise self.error(node, "T2T101", f"builtin `{name}()` is not supported here",
                         help="use a cuda.tile construct instead, or compute the value on the "
                              "host and pass it in")

    def builtin_sum(self, node: cst.Call) -> Lowered:
        """`sum(t)` of a tuple (or of a comprehension over a sequence known here, `sum([i * i
        for i in tup])`): the items added left to right from `start` (0), folded when they are
        constants."""
        arg = node.args[0].value
        if isinstance(arg, (cst.ListComp, cst.GeneratorExp)):
            gen = cst.GeneratorExp(elt=arg.elt, for_in=arg.for_in)
            self.pm.origins[gen] = arg
            seq = self.tuple_comprehension(gen)
        else:
            seq = self.expr(arg)
        if not isinstance(seq.val, TupleV):
            raise self.error(arg, "T2T101", "sum() in kernels adds the items of a tuple",
                             help="use ct.sum for the elements of a tile")
        items = seq.items if seq.items is not None and len(seq.items) == len(seq.val.items) \
            else [self.const(v.value) if isinstance(v, ConstV) else None for v in seq.val.items]
        if any(i is None for i in items):
            raise self.error(arg, "T2T101", "sum() of a tuple whose items are not known here "
                             "is not supported",
                             help="sum a tuple whose items are known (a literal tuple or a tuple "
                                  "parameter), or add the items in a loop")
        acc = self.expr(node.args[1].value) if len(node.args) == 2 else self.const(0)
        for item in items:
            acc = self.operator("+", node, acc, item)
        return acc

    def bind_helper_args(self, name: str, node: cst.Call) -> list:
        """The call's arguments in the helper's parameter order, as Python binds them
        (positional, then keywords, then the defaults, lowered here)."""
        fdef = self.pm.functions.get(name)
        if fdef is not None and (fdef.params.star_kwarg is not None
                                 or any(a.star == "**" for a in node.args)):
            return self.bind_keywords(name, node, fdef)
        if any(a.star for a in node.args):
            raise self.error(node, "T2T102", "`*`/`**` arguments to helpers are not supported",
                             help="pass the arguments explicitly")
        if fdef is not None and isinstance(fdef.params.star_arg, cst.Param):
            return self.bind_varargs(name, fdef, node)
        if fdef is None or (all(a.keyword is None for a in node.args) and not any(
                p.default is not None for p in fdef.params.params)):
            return [self.expr(a.value) for a in node.args]
        params = list(fdef.params.params)
        if name in self.pm.hoisted:      # captured names are not the caller's to pass
            params = params[:len(params) - len(self.pm.hoisted[name][1])]
        pos = [a for a in node.args if a.keyword is None]
        kws = {a.keyword.value: a for a in node.args if a.keyword is not None}
        if len(pos) > len(params):
            raise _bind_error(self, node, name, f"takes {len(params)} arguments, "
                              f"{len(pos)} given")
        out = []
        for i, p in enumerate(params):
            pname = p.name.value
            if i < len(pos):
                if pname in kws:
                    raise _bind_error(self, kws[pname], name,
                                      f"got two values for `{pname}`")
                out.append(self.expr(pos[i].value))
            elif pname in kws:
                out.append(self.expr(kws.pop(pname).value))
            elif p.default is not None:
                out.append(self.expr(p.default))
            else:
                raise _bind_error(self, node, name, f"missing argument `{pname}`")
        if kws:
            k = next(iter(kws))
            raise _bind_error(self, kws[k], name, f"has no parameter `{k}`")
        return out

    def bind_varargs(self, name: str, fdef, node: cst.Call) -> list:
        """`def h(arr, *items)` called `h(x, 1, 2)`: the parameters before `*items` take the
        first arguments, `items` the tuple of the others (`(1, 2)`)."""
        params = list(fdef.params.params)
        if self.pm.hoisted.get(name, (None, []))[1]:
            raise self.error(node, "T2T102", f"`{name}` takes `*args` and reads names of the "
                             "function it is defined in: not supported",
                             help="pass those names as arguments, or define it at module level")
        if any(a.keyword is not None for a in node.args) or any(
                p.default is not None for p in params):
            star = fdef.params.star_arg.name.value
            raise self.error(node, "T2T102", f"helper `{name}` takes `*{star}`: keyword "
                             "arguments and defaults are not supported with it",
                             help="pass the arguments by position")
        if len(node.args) < len(params):
            raise _bind_error(self, node, name, f"takes at least {len(params)} arguments, "
                              f"{len(node.args)} given")
        fixed = [self.expr(a.value) for a in node.args[:len(params)]]
        rest = [self.expr(a.value) for a in node.args[len(params):]]
        code = "(" + ", ".join(r.code for r in rest) + ("," if len(rest) == 1 else "") + ")"
        return fixed + [Lowered(code, TupleV([r.val for r in rest]), items=rest)]

    def bind_keywords(self, name: str, node: cst.Call, fdef) -> list:
        """As bind_helper_args, for a call passing `**d` (a dict known here: its entries are
        keywords) or a helper taking `**kwargs` (the keywords no parameter takes, as a dict
        known at translation time, `TableV`). Arguments are lowered in the order written."""
        params = list(fdef.params.params)
        if name in self.pm.hoisted:
            params = params[:len(params) - len(self.pm.hoisted[name][1])]
        pos, kws = [], {}
        for a in node.args:
            if a.star == "**":
                low = self.expr(a.value)
                if not isinstance(low.val, TableV) or not all(
                        isinstance(k, str) for k, _ in low.val.entries):
                    raise self.error(a.value, "T2T102", "`**` takes a dict with string keys "
                                     "known at translation time here",
                                     help="pass the keywords one by one, or use a literal dict "
                                          "with string keys")
                for k, v in low.val.entries:
                    if k in kws:
                        raise _bind_error(self, a, name, f"got two values for `{k}`")
                    kws[k] = (a, v)
            elif a.star:
                raise self.error(a, "T2T102", "`*` arguments to helpers are not supported",
                                 help="pass the arguments explicitly")
            elif a.keyword is not None:
                if a.keyword.value in kws:
                    raise _bind_error(self, a, name, f"got two values for `{a.keyword.value}`")
                kws[a.keyword.value] = (a, self.expr(a.value))
            else:
                pos.append(self.expr(a.value))
        if len(pos) > len(params):
            raise _bind_error(self, node, name, f"takes {len(params)} arguments, "
                              f"{len(pos)} given")
        out = []
        for i, p in enumerate(params):
            pname = p.name.value
            if i < len(pos):
                if pname in kws:
                    raise _bind_error(self, kws[pname][0], name,
                                      f"got two values for `{pname}`")
                out.append(pos[i])
            elif pname in kws:
                out.append(kws.pop(pname)[1])
            elif p.default is not None:
                out.append(self.expr(p.default))
            else:
                raise _bind_error(self, node, name, f"missing argument `{pname}`")
        if fdef.params.star_kwarg is not None:
            out.append(Lowered("{...}", TableV([(k, v) for k, (_, v) in kws.items()])))
        elif kws:
            k = next(iter(kws))
            raise _bind_error(self, kws[k][0], name, f"has no parameter `{k}`")
        return out

    def helper_call(self, name: str, node: cst.Call) -> Lowered:
        """Call of a module-level @ct.function or plain helper: translated as @triton.jit."""
        inlined = self.inline_handle_helper(name, node)   # tables.py: `return x.method`
        if inlined is not None:
            return inlined
        args = self.bind_helper_args(name, node)
        if self.compile_time and self.plain_python(name) and all(
                _compile_time(a.val) for a in args):
            # cuTile runs Python called in ct.static_eval / static_assert while compiling;
            # so does Triton, for a @triton.constexpr_function (emit.py adds the decorator)
            self.result.constexpr_functions.add(name)
            code = f"{name}({', '.join(a.code for a in args)})"
            return Lowered(code, ConstExprV(code, kind="python"))
        args += self.capture_args(name, node)
        unit, ret = self.mc.specialize(name, node, args)
        codes = []

        def add(a):
            if isinstance(a.val, ArrayV):
                codes.extend(a.val.info.abi())
            elif isinstance(a.val, TiledViewV):       # its array, then its non-literal sizes
                codes.extend(a.val.array.abi())
                codes.extend(str(d) for d in list(a.val.tile_shape) + list(a.val.steps or [])
                             if not str(d).isdigit())
            elif isinstance(a.val, TableV):           # `**kwargs`: one argument per entry
                for _, v in a.val.entries:
                    add(v)
            elif not isinstance(a.val, FuncV):        # a helper passed on exists only here
                codes.append(a.code)
        for a in args:
            add(a)
        if unit.uses_array_params:
            codes.append(USE_INT64)
        call = f"{unit.name}({', '.join(codes)})"
        folded = self.constant_return(name, args, self.mc.helper_returns.get(unit.name), call)
        if folded is not None and _single_return(self.pm.functions[name]) is not None:
            return folded           # the helper's value is all the caller needs of it
        self.result.merge(unit)
        if folded is not None:
            return folded
        return Lowered(call, self.caller_view(name, args, ret))

    def constant_return(self, name: str, args, ret: Optional[Lowered], call: str):
        """A helper returning a compile-time value gives the caller that value, as cuTile
        folds it (a Triton function always returns a tensor): a number (the call, when the
        helper does more than return, is kept as a statement of its own), or, for a helper
        that only returns an expression of its compile-time parameters, that expression of
        the caller's arguments (`forward(leaf, foo=4)` -> `3 * 100 + 4 * 10`). Else None."""
        if ret is None or not isinstance(ret.val, (ConstV, ConstExprV)):
            return None
        pure = _single_return(self.pm.functions[name]) is not None
        if isinstance(ret.val, ConstV):
            if not isinstance(ret.val.value, (bool, int, float)) or not (
                    pure or self.before(call)):
                return None
            return self.const(ret.val.value)
        if not pure or ret.val.kind not in ("int", "bool"):
            return None
        mapping = {}
        star = self.pm.functions[name].params.star_kwarg
        names = [p.name.value for p in self.pm.functions[name].params.params] + (
            [star.name.value] if star is not None else [])
        for pname, a in zip(names, args):
            if isinstance(a.val, TableV):
                for k, v in a.val.entries:
                    mapping[self.pm.names[f"{pname}_{k}"]] = v
            else:
                mapping[pname] = a
        used = source_identifiers(ret.code) - {"tl", "triton"}
        if not all(u in mapping and isinstance(mapping[u].val, (ConstV, ConstExprV))
                   for u in used):
            return None
        code = re.sub(r"(?<![\w.])([A-Za-z_]\w*)\b",
                      lambda m: mapping[m.group(1)].wrap(100) if m.group(1) in used
                      else m.group(1), ret.code)
        return Lowered(f"({code})", ConstExprV(code, kind=ret.val.kind))

    def plain_python(self, name: str) -> bool:
        """Whether module function `name` is plain Python: undecorated, defined in this module
        at module level, and naming nothing of cuda.tile."""
        fdef = self.pm.functions.get(name)
        return fdef is not None and not fdef.decorators and name not in self.pm.hoisted \
            and name not in self.pm.foreign and not any(
                isinstance(n, (cst.Name, cst.Attribute)) and self.pm.ct_name(n) is not None
                for n in _walk(fdef))

    def caller_view(self, name: str, args, ret):
        """The helper's return value as the caller sees it: a tile shape that names the
        helper's parameters (`view_dim0`, `TM`) is respelled with the caller's arguments;
        a shape naming other helper locals is unknown here. An array the helper returns (one
        of its array parameters, alone or in a tuple) is the caller's argument. A compile-time
        value the helper computes from its constexpr parameters (`return n + 1`) reaches the
        caller as what a Triton call returns: a runtime scalar, not a constexpr."""
        if isinstance(ret, ConstExprV):
            dtype = {"int": "int32", "float": "float32", "bool": "bool_"}.get(ret.kind)
            return TileV(shape=(), dtype=dtype, numeric=ret.kind in ("int", "float"))
        params = self.pm.functions[name].params.params
        arrays = {p.name.value: a.val for p, a in zip(params, args) if isinstance(a.val, ArrayV)}
        mapping, local = {}, set()
        for p, a in zip(params, args):
            pname = p.name.value
            local.add(pname)
            if isinstance(a.val, TiledViewV):
                dims = list(a.val.tile_shape) + list(a.val.steps or [])
                for k, d in enumerate(dims):
                    local.add(f"{pname}_dim{k}")
                    mapping[f"{pname}_dim{k}"] = str(d)
            elif isinstance(a.val, (ConstV, ConstExprV)):
                mapping[pname] = a.code
            elif isinstance(a.val, TileV) and a.val.shape:   # `x.shape[k]` of a tile argument
                for k, d in enumerate(a.val.shape):
                    mapping[f"{pname}.shape[{k}]"] = d

        def outside(v):
            if isinstance(v, TupleV):
                return TupleV([outside(i) for i in v.items], known=v.known)
            if isinstance(v, ArrayV):
                return arrays.get(v.info.name, TileV())
            if not isinstance(v, TileV) or not v.shape:
                return v
            shape = []
            for d in v.shape:
                d2 = mapping.get(d, d) if isinstance(d, str) else d
                if isinstance(d2, str) and d2 == d and any(
                        tok in local for tok in re.findall(r"[A-Za-z_]\w*", d2)):
                    return dataclasses.replace(v, shape=None)
                shape.append(d2)
            return dataclasses.replace(v, shape=tuple(shape))
        return outside(ret)


def _bind_error(self, node, name, what):
    return self.error(node, "T2T102", f"helper `{name}`: {what}",
                      help="call it as Python would accept the call")


def _as_bool(low: Lowered) -> Lowered:
    """A runtime operand of `and`/`or` as an int1 (`x != 0` unless it is one already)."""
    v = low.val
    if isinstance(v, TileV) and v.dtype != "bool_":
        return Lowered(f"{low.wrap(PREC['cmp'] + 1)} != 0", TileV(shape=v.shape, dtype="bool_"),
                       PREC["cmp"])
    return low


def _literal_only(node) -> bool:
    """An arithmetic expression of number literals only (`2**30`, `-(1 << 4)`, `1.0 / 3.0`)."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, (cst.Minus, cst.Plus, cst.BitInvert)) \
            and _literal_only(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return type(node.operator) in BINOP_SYMBOL and _literal_only(node.left) \
            and _literal_only(node.right)
    return False


def _compile_time(v) -> bool:
    """A value a @triton.constexpr_function can take: a number, a string, an integer, float or
    boolean ct.Constant, or a tuple of them."""
    if isinstance(v, ConstV):
        return type(v.value) in (bool, int, float, str) or isinstance(v.value, tuple)
    if isinstance(v, ConstExprV):
        return v.kind in ("int", "bool", "float")
    return isinstance(v, TupleV) and v.known and all(_compile_time(i) for i in v.items)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
