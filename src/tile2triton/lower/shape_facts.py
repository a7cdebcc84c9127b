"""Which ct.Constant parameters a function uses as tile dimensions: cuTile rejects a tile
dimension that is not a positive power of two when it compiles the function (op_impl.py's
require_constant_shape), so wherever the function runs such a parameter is > 0. The
non-negativity analysis (`is_nonneg`) then lets `cdiv(n, TN)`, `pid // n_tiles` and the like
stay Triton's own operators."""
from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

# the cuTile calls that check their shape argument: its position and keyword
SHAPE_ARGS = {"cuda.tile.load": 2, "cuda.tile.zeros": 0, "cuda.tile.ones": 0,
              "cuda.tile.full": 0, "cuda.tile.num_tiles": 2, "cuda.tile.broadcast_to": 1}


def _shape_arg(call: cst.Call, pos: int) -> Optional[cst.BaseExpression]:
    for k, a in enumerate(call.args):
        if a.star:
            return None     # positions after a starred argument are unknown
        if a.keyword is not None and a.keyword.value == "shape" or a.keyword is None and k == pos:
            return a.value
    return None


class _Uses(cst.CSTVisitor):
    def __init__(self, qualname, names):
        self.qualname, self.names, self.found = qualname, names, set()

    # an arm of `x if c else y`, of `and`/`or`, a lambda's or a comprehension's body need not
    # be compiled (a constant test picks one arm): a shape there proves nothing
    def _not_typed(self, node):
        return False

    visit_IfExp = visit_BooleanOperation = visit_Lambda = _not_typed
    visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = _not_typed

    def visit_Call(self, node):
        pos = SHAPE_ARGS.get(self.qualname(node.func) or "")
        shape = None if pos is None else _shape_arg(node, pos)
        dims = shape.elements if isinstance(shape, cst.Tuple) else [shape]
        for d in dims:
            d = getattr(d, "value", d)  # a tuple's Element
            if isinstance(d, cst.Name) and d.value in self.names:
                self.found.add(d.value)


def positive_shape_params(body: cst.BaseSuite, qualname: Callable, names: set) -> set:
    """Those of `names` (ct.Constant parameters the body never re-binds) that a shape argument
    of a cuTile call names as a dimension in a statement cuTile always type-checks when it
    compiles the function: a top-level simple statement, or one in the body of a `for` over a
    range (typed once, whatever its trip count), each before any jump. (A branch of a
    constant `if`, a `while False:` body, a ct.static_iter body over no items and what
    follows a `return`, `break` or `continue` may never be typed.)"""
    uses = _Uses(qualname, names)
    _scan(getattr(body, "body", ()), uses, qualname)
    return uses.found


def _scan(stmts, uses: _Uses, qualname: Callable) -> None:
    for stmt in stmts:
        loop = isinstance(stmt, cst.For) and not (
            isinstance(stmt.iter, cst.Call)
            and (qualname(stmt.iter.func) or "").endswith("static_iter"))
        if isinstance(stmt, cst.SimpleStatementLine):
            stmt.visit(uses)
        elif loop and stmt.orelse is None and stmt.asynchronous is None:
            _scan(stmt.body.body, uses, qualname)
        jumps = _Jumps()
        stmt.visit(jumps)
        if jumps.ret or jumps.loop and not isinstance(stmt, (cst.For, cst.While)):
            return


class _Jumps(cst.CSTVisitor):
    """A `return` anywhere in a statement; a `break`/`continue` outside its nested loops."""

    def __init__(self):
        self.ret = self.loop = False
        self.depth = 0

    def visit_Return(self, node):
        self.ret = True

    def visit_Break(self, node):
        self.loop = self.loop or self.depth == 0

    def visit_Continue(self, node):
        self.loop = self.loop or self.depth == 0

    def visit_For(self, node):
        self.depth += 1

    def leave_For(self, node):
        self.depth -= 1

    def visit_While(self, node):
        self.depth += 1

    def leave_While(self, node):
        self.depth -= 1

    def visit_FunctionDef(self, node):
        return False    # a nested function's return is its own

    def visit_Lambda(self, node):
        return False
