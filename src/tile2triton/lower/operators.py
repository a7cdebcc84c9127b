"""Operators: arithmetic, unary, comparison, membership, identity and boolean operators, and
conditional expressions. Which construct an operator is comes from the patterns
(`Pattern.operators`, collected by the registry)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..model import (
    PREC,
    ConstExprV,
    ConstV,
    CtRefV,
    DTypeV,
    EnumClassV,
    EnumV,
    FuncV,
    Lowered,
    NoneV,
    PyRefV,
    TableV,
    TileV,
    TupleV,
)
from ..pattern_api import bind_operands
from .pyvalues import dtype_compare

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


class Operators:
    """Mixin of `Lowerer`: operator syntax."""

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
        if isinstance(node.operator, cst.Minus) and operand.code in self.result.module_constants \
                and isinstance(operand.val, ConstV) and type(operand.val.value) in (int, float):
            # `-FP8_MAX` keeps the constant's name (its value folds as Python would)
            return Lowered(f"-{operand.code}", ConstV(-operand.val.value), PREC["unary"])
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
