"""Statements: one method per supported statement node, emitting Triton lines.

Comments and docstrings of the user's code are carried over statement by statement. Statement
forms no method handles raise a located T2T101.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .. import rewrite
from ..diagnostics import LocatedFailure, TranslationError
from ..model import (
    ArrayV,
    ChoiceV,
    ConstExprEnumV,
    CtRefV,
    EnumClassV,
    EnumV,
    FuncV,
    Lowered,
    PyRefV,
    RawMemoryV,
    TableV,
    TiledViewV,
    TupleV,
)
from ..parse.cst_tools import walk
from .values import nested_bound_names, reassigned_names

INDENT = "    "


class Statements:
    """Mixin of `Lowerer`: the statement dispatch, the lines it emits and the comments it
    carries; `if` is in branches.py, loops in loops.py, assignments in assignments.py."""

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
        # the function-body rewrites (rewrite/__init__.py: suites, closures, context managers,
        # exits)
        body = rewrite.run(rewrite.BODY_PASSES, rewrite.Unit(
            self.pm, body=self.fn.node.body, error=self.error)).body
        self.mutable = reassigned_names(body)
        self.loop_bound = reassigned_names(body, times=1 << 30)     # only those bound in loops
        self.straight = self.mutable - self.loop_bound - nested_bound_names(body)
        self.body = body  # what is lowered (lower/tma.py scans it for the operands of dots)
        self.find_row_groups(body)      # resident_rows.py
        self.block(body)
        return self.order.insert_late(self.out, INDENT)   # barriers found by loops

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

    def inner_comments(self, *nodes) -> None:
        """Comments written inside a multi-line expression: the expression becomes one line,
        so they go on their own lines just before it."""
        for node in nodes:
            if node is None:
                continue
            for sub in walk(node):
                if isinstance(sub, cst.Comment):
                    self.line(sub.value)

    def stmt(self, node) -> None:
        try:
            self._stmt(node)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this statement
            raise LocatedFailure(node, e) from e

    def _stmt(self, node) -> None:
        self.leading(node)
        if isinstance(node, cst.SimpleStatementLine):
            comment = self.trailing_comment(node.trailing_whitespace)
            self.inner_comments(*node.body)
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
        elif isinstance(node, cst.FunctionDef):
            self.nested_def(node)          # nested_defs.py: hoisted to a module-level helper
        else:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels",
                             help="kernels may use assignments, if/for/while, return and calls")

    def no_statements_before(self, node) -> Lowered:
        """Lower an expression that no statement can precede (a `while` or `elif` test)."""
        saved, self.can_insert = self.can_insert, False
        try:
            return self.expr(node)
        finally:
            self.can_insert = saved

    def header_comment(self, node) -> Optional[str]:
        body = node.body
        tw = getattr(body, "header", None)
        return self.trailing_comment(tw)

    # --------------------------------------------------------------------- small statements
    def small(self, node) -> Optional[str]:
        if isinstance(node, cst.Expr):
            v = node.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
                return self.pm.module.code_for_node(v)  # docstring / string statement
            low = self.expr(v)
            if isinstance(low.val, (TiledViewV, RawMemoryV, ArrayV, EnumV, CtRefV, PyRefV,
                                    ChoiceV, TableV, EnumClassV, ConstExprEnumV, FuncV)):
                return None  # `lambda: 0`, `ct.bid`, a view: a value of translation time
            return low.code
        if isinstance(node, cst.Assign):
            return self.assign(node)       # assignments.py
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
            return "return " + returned_code(low)
        if isinstance(node, cst.Pass):
            return "pass"
        if isinstance(node, cst.Assert):  # cuTile treats `assert` as ct.assert_
            args = [cst.Arg(node.test)] + ([cst.Arg(node.msg)] if node.msg is not None else [])
            return self.construct("assert_", cst.Call(func=cst.Name("assert_"), args=args)).code
        kind = type(node).__name__
        raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels",
                         help="rewrite it with supported statements: assignments, if, for over "
                              "range, while, with, helpers")


def returned_code(low: Lowered) -> str:
    """A return value as Triton code: an array returned (alone or in a tuple) is its pointer.
    Its caller reads the array it stands for from the call's value (`caller_view`), so the
    pointer only keeps the returned tuple's shape."""
    if isinstance(low.val, ArrayV):
        return low.val.info.pointer
    if isinstance(low.val, TupleV) and low.items is not None \
            and any(isinstance(i.val, (ArrayV, TupleV)) for i in low.items):
        codes = [returned_code(i) for i in low.items]
        return "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")"
    return low.code
