"""What every stage does with libcst trees: walk them, collect their names, respell names.

One place for these, so that the rewrites, the lowering and the emitter walk trees the same way
(pre-order, in source order, without recursion: a deeply nested expression does not exhaust
Python's stack)."""
from __future__ import annotations

import ast
import textwrap
from typing import Iterator

import libcst as cst

_DEFS = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def walk(node: cst.CSTNode, skip_defs: bool = False) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, in source order. `skip_defs`: not into the bodies of
    functions, classes and lambdas (their own node is still given, `node` itself included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if skip_defs and isinstance(n, _DEFS):
            continue
        stack.extend(reversed(n.children))


def names_in(node: cst.CSTNode) -> set:
    """Every identifier spelled as a Name under `node` (attribute names after a dot too)."""
    return {n.value for n in walk(node) if isinstance(n, cst.Name)}


def all_params(params: cst.Parameters) -> list:
    """Every parameter of a signature: positional-only, ordinary, keyword-only, *args, **kw."""
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for p in (params.star_arg, params.star_kwarg):
        if isinstance(p, cst.Param):
            out.append(p)
    return out


class Rename(cst.CSTTransformer):
    """Respells the names of `mapping` (not attribute names after a dot, keyword names of
    calls, or a nested function's own parameters) and records each new node's origin in
    `origins` (new node -> the user's node, for diagnostics)."""

    def __init__(self, mapping: dict, origins: dict):
        self.mapping = mapping
        self.origins = origins
        self.skip: set = set()
        self.shadow: list = []

    def visit_Attribute(self, node):
        self.skip.add(id(node.attr))

    def visit_Arg(self, node):
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_FunctionDef(self, node):
        self.shadow.append({p.name.value for p in all_params(node.params)})

    def leave_FunctionDef(self, original, updated):
        self.shadow.pop()
        return self._origin(original, updated)

    def visit_Lambda(self, node):
        self.shadow.append({p.name.value for p in all_params(node.params)})

    def leave_Lambda(self, original, updated):
        self.shadow.pop()
        return self._origin(original, updated)

    def leave_Name(self, original, updated):
        new = self.mapping.get(original.value)
        if new is None or id(original) in self.skip or \
                any(original.value in s for s in self.shadow):
            return self._origin(original, updated)
        return self._origin(original, updated.with_changes(value=new))

    def on_leave(self, original, updated):
        out = super().on_leave(original, updated)
        if isinstance(out, cst.CSTNode) and out is not original:
            self.origins.setdefault(out, original)
        return out

    def _origin(self, original, updated):
        if updated is not original:
            self.origins.setdefault(updated, original)
        return updated


def function_locals(source: str) -> tuple[set, set]:
    """(locals, assigned) of the function whose source is `source`: its parameters and the
    names it assigns (not inside nested functions or comprehensions, but nested functions'
    own names), and of those the ones it assigns (parameters it rebinds included)."""
    tree = ast.parse(textwrap.dedent(source))
    fdef = tree.body[0]
    a = fdef.args
    out = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    out |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(child.name)
                continue
            if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                  ast.GeneratorExp)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                out.add(child.id)
            visit(child)

    params = set(out)
    for stmt in fdef.body:
        visit(ast.Module(body=[stmt], type_ignores=[]))
    stored = {n.id for n in ast.walk(fdef)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in params}
    return out, out - params | stored


def single_return(fdef: cst.FunctionDef):
    """The expression of a body that is only `return <expr>` (a docstring aside), else None."""
    body = fdef.body
    stmts = list(body.body)
    smalls = []
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            smalls.extend(s.body)
        elif isinstance(s, cst.BaseSmallStatement):
            smalls.append(s)
        else:
            return None
    smalls = [s for s in smalls if not (isinstance(s, cst.Expr) and isinstance(
        s.value, (cst.SimpleString, cst.ConcatenatedString)))]
    if len(smalls) == 1 and isinstance(smalls[0], cst.Return) and smalls[0].value is not None:
        return smalls[0].value
    return None
