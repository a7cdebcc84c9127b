"""Which tile loads may read through a TMA tensor descriptor (docs/performance.md, "TMA loads
for matrix products").

A 2-D `ct.load` in a loop whose tile feeds a matrix product (`ct.mma`, `ct.matmul`, `@`, directly or
through `astype`) is emitted in two forms chosen per launch: `desc.load([row, col])` through a
descriptor the launcher builds (`_tma_descriptor`), or the masked pointer load when the
launcher cannot build one (alignment, strides, dtype, GPU). TMA fills out-of-bounds elements
with zeros, which is what cuTile's ZERO padding asks for and what UNDETERMINED allows.
"""
from __future__ import annotations

import libcst as cst

def dot_operand_loads(pm, body) -> set:
    """ids of the `ct.load` calls inside loops of `body` whose tiles are operands of a matrix
    product: the call itself as an operand, or a name bound to it (through `.astype(...)` /
    `ct.astype(...)`). Loads outside loops keep their pointer form: what was measured faster
    is a pipelined loop of products (one load has no pipeline to feed)."""
    loads_of: dict = {}   # name -> ids of the ct.load calls bound to it
    operands: list = []
    in_loops: set = set()  # ids of the ct.load calls inside a loop
    depth = [0]

    class Scan(cst.CSTVisitor):
        def visit_For(self, node):
            depth[0] += 1

        def leave_For(self, node):
            depth[0] -= 1

        def visit_While(self, node):
            depth[0] += 1

        def leave_While(self, node):
            depth[0] -= 1

        def visit_Assign(self, node):
            # `a = ct.load(...)`, and upstream's `a = ct.load(...).astype(dtype)`
            value = _strip_astype(pm, node.value)
            if isinstance(value, cst.Call) and _is_load(pm, value):
                for t in node.targets:
                    if isinstance(t.target, cst.Name):
                        loads_of.setdefault(t.target.value, set()).add(id(value))

        def visit_Call(self, node):
            if depth[0] and _is_load(pm, node):
                in_loops.add(id(node))
            if pm.ct_name(node.func) in ("mma", "matmul"):
                operands.extend(a.value for a in node.args[:2] if a.keyword is None)

        def visit_BinaryOperation(self, node):
            if isinstance(node.operator, cst.MatrixMultiply):
                operands.extend((node.left, node.right))

    body.visit(Scan())
    out = set()
    for expr in operands:
        expr = _strip_astype(pm, expr)
        if isinstance(expr, cst.Call) and _is_load(pm, expr):
            out.add(id(expr))
        elif isinstance(expr, cst.Name):
            out |= loads_of.get(expr.value, set())
    return out & in_loops


def _is_load(pm, call: cst.Call) -> bool:
    return pm.ct_name(call.func) == "load"


def _strip_astype(pm, expr):
    while isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype":
            expr = expr.func.value
        elif pm.ct_name(expr.func) == "astype" and expr.args:
            expr = expr.args[0].value
        else:
            break
    return expr
