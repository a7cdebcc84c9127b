"""Functions defined inside kernels and helpers (`def f(a, b): ...` in a kernel body).

A nested `def` is hoisted to a module-level `@triton.jit` helper. The names it reads from the
enclosing function (a closure's captures) become extra trailing parameters, and every call passes
their values as they are at the call (Python closures read captured names when they run, not
when they are defined). Calls then go through ordinary helper specialization (module.py); a
nested function passed as a value (a ct.scan/ct.reduce combiner) must capture nothing.
"""
from __future__ import annotations

import libcst as cst

from ..model import FuncV, Lowered


class _Reads(cst.CSTVisitor):
    """Names a function reads, and the names it binds itself."""

    def __init__(self, into_defs: bool = True):
        self.reads: list = []
        self.bound: set = set()
        self.into_defs = into_defs   # False: a nested def's own names are not this function's

    def visit_Name(self, node: cst.Name):
        self.reads.append(node.value)

    def visit_Attribute(self, node: cst.Attribute):
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg):
        node.value.visit(self)
        return False

    def visit_Param(self, node: cst.Param):
        self.bound.add(node.name.value)
        if node.default is not None:
            node.default.visit(self)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget):
        _targets(node.target, self.bound)

    def visit_AnnAssign(self, node: cst.AnnAssign):
        _targets(node.target, self.bound)

    def visit_AugAssign(self, node: cst.AugAssign):
        _targets(node.target, self.bound)

    def visit_For(self, node: cst.For):
        _targets(node.target, self.bound)

    def visit_CompFor(self, node: cst.CompFor):
        _targets(node.target, self.bound)

    def visit_FunctionDef(self, node: cst.FunctionDef):
        self.bound.add(node.name.value)
        return self.into_defs

    def visit_Lambda(self, node: cst.Lambda):
        return self.into_defs


def _targets(t, out: set) -> None:
    if isinstance(t, cst.Name):
        out.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _targets(el.value, out)
    elif isinstance(t, cst.StarredElement):
        _targets(t.value, out)


class _Rename(cst.CSTTransformer):
    def __init__(self, mapping: dict, origins: dict):
        self.mapping, self.origins = mapping, origins

    def leave_Name(self, original, updated):
        if original.value in self.mapping:
            new = updated.with_changes(value=self.mapping[original.value])
            self.origins[new] = original
            return new
        return updated


class NestedDefs:
    """Mixin of `Lowerer`: `def` statements inside a function body."""

    def nested_lambda(self, name: str, lam: cst.Lambda) -> None:
        """`f = lambda t, m=100: t * 2 + m`: the same as `def f(t, m=100): return ...`."""
        fdef = cst.FunctionDef(name=cst.Name(name), params=lam.params, body=cst.IndentedBlock(
            [cst.SimpleStatementLine([cst.Return(lam.body)])]))
        self.pm.origins[fdef] = lam
        self.nested_def(fdef, key=id(lam))

    def nested_def(self, node: cst.FunctionDef, key=None) -> None:
        if node.decorators:
            raise self.error(node.decorators[0], "T2T101", "decorated functions inside kernels "
                             "are not supported", help="define the function at module level")
        pm = self.pm
        local = node.name.value
        scan = _Reads()
        node.params.visit(scan)
        node.body.visit(scan)
        enclosing = self.enclosing_names()
        siblings = {}          # other nested functions it calls: their hoisted names
        captures = []
        for n in scan.reads:
            if n in scan.bound or n in captures or n in siblings:
                continue
            v = self.env.get(n)
            if isinstance(v, FuncV) and v.name in pm.hoisted:
                siblings[n] = v.name
                # what the sibling captures, this function must pass it at its calls
                for c in pm.hoisted[v.name][1]:
                    if c in enclosing and c not in captures and c not in scan.bound:
                        captures.append(c)
            elif n in enclosing:
                captures.append(n)
        key = id(node) if key is None else key
        hoisted = self.mc.nested_names.get(key)
        if hoisted is None:
            base = pm.names[f"{self.fn.name}_{local}"]
            hoisted, k = base, 1
            while hoisted in pm.functions or hoisted in pm.hoisted:
                hoisted, k = f"{base}_{k}", k + 1
            self.mc.nested_names[key] = hoisted
        # (a captured name's default is itself: calls always pass it, see capture_args)
        params = list(node.params.params) + [cst.Param(cst.Name(c), default=cst.Name(c))
                                             for c in captures]
        body = node.body.visit(_Rename(siblings, pm.origins)) if siblings else node.body
        new = node.with_changes(name=cst.Name(hoisted), body=body,
                                params=node.params.with_changes(params=params))
        pm.origins[new] = node
        pm.functions[hoisted] = new
        pm.hoisted[hoisted] = (self.fn.name, captures)
        self.env[local] = FuncV(hoisted)

    def enclosing_names(self) -> set:
        """Names the function being lowered binds: parameters, assigned names, loop targets."""
        scan = _Reads(into_defs=False)
        self.fn.node.params.visit(scan)
        self.fn.node.body.visit(scan)
        return scan.bound | set(self.env)

    def x_Lambda(self, node: cst.Lambda):
        """A lambda as a value (`tuple(lambda: s for s in ct.static_iter(range(4)))`): hoisted
        as above; a comprehension variable it captures is frozen at the variable's last item,
        which is what every lambda of the comprehension sees when it is called."""
        local = self.fresh_name("_lambda")
        self.nested_lambda(local, node)
        fv = self.env.pop(local)
        frozen = self.frozen_captures.setdefault(fv.name, {})
        active = set().union(*self.comp_vars) if self.comp_vars else set()
        for c in self.pm.hoisted[fv.name][1]:
            if c in active and c in self.static_names:
                frozen[c] = self.static_names[c]
        return Lowered(fv.name, fv)

    def capture_args(self, name: str, call) -> list:
        """The values a hoisted nested function's captured names have at this call."""
        out = []
        frozen = self.frozen_captures.get(name, {})
        for c in self.pm.hoisted.get(name, (None, []))[1]:
            if c in frozen:
                out.append(frozen[c])
                continue
            ref = cst.Name(c)
            self.pm.origins[ref] = call
            out.append(self.expr(ref))
        return out
