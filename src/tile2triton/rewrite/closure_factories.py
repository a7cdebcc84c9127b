"""Closures made by factory functions (`def make(t): def f(y): return y + t; return f`), inlined.

cuTile freezes a closure's captured values when the closure is made. Triton has no closures, so
before lowering a statement `c = make(args)` (or `c = make(args)[k]`), where `make` is a function
of the body or of the module whose body only defines functions, assigns names and ends with
`return` of its functions (a name or a tuple), becomes:

    _fz_make_c_t = args              # the factory's names respelled, bound where it was called
    _fz_make_c_f__d0 = <default>     # a default of an inner function, evaluated when it is made
    def _fz_make_c_f(y): return y + _fz_make_c_t
    c = _fz_make_c_f                 # (or the tuple's item k)

The inner functions are then ordinary nested functions (nested_defs.py): their captures are the
respelled names, which nothing rebinds after the closure is made, so reading them at each call
reads the frozen values. Names are per (factory, target): a target bound by the same factory in
both branches of an `if` gets one function whose captures Triton merges. A target bound by two
different factories, or also bound otherwise, is left alone (it then fails with the usual
diagnostic rather than calling the wrong closure).
"""
from __future__ import annotations

import libcst as cst

from ..parse.cst_tools import Rename, function_locals


class ClosureInliner:
    def __init__(self, pm, names):
        self.pm = pm
        self.names = names

    def function_body(self, body: cst.IndentedBlock) -> cst.IndentedBlock:
        local_defs = {}
        for s in _walk_stmts(body.body):
            if isinstance(s, cst.FunctionDef):
                local_defs[s.name.value] = s
        factories = {n: d for n, d in local_defs.items() if _is_factory(d)}
        for n, d in self.pm.functions.items():
            if n not in local_defs and _is_factory(d):
                factories.setdefault(n, d)
        if not factories:
            return body
        # targets: name -> set of factories binding it (None: bound otherwise)
        binders: dict = {}
        for s in _walk_stmts(body.body):
            for small in (s.body if isinstance(s, cst.SimpleStatementLine) else ()):
                for name, fac in _bindings(small, factories):
                    binders.setdefault(name, set()).add(fac)
        ok = {n for n, facs in binders.items() if len(facs) == 1 and None not in facs}
        if not ok:
            return body
        self.factories, self.ok = factories, ok
        return body.with_changes(body=self.block(list(body.body)))

    def block(self, stmts: list) -> list:
        out = []
        for s in stmts:
            if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1:
                got = self.inline(s, s.body[0])
                if got is not None:
                    out.extend(got)
                    continue
            if isinstance(s, (cst.If, cst.For, cst.While)):
                s = self._nested(s)
            out.append(s)
        return out

    def _nested(self, s):
        def suite(b):
            if isinstance(b, cst.IndentedBlock):
                return b.with_changes(body=self.block(list(b.body)))
            return b
        if isinstance(s, cst.If):
            orelse = s.orelse
            if isinstance(orelse, cst.If):
                orelse = self._nested(orelse)
            elif isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=suite(orelse.body))
            new = s.with_changes(body=suite(s.body), orelse=orelse)
        else:
            new = s.with_changes(body=suite(s.body))
        self.pm.origins[new] = s
        return new

    def inline(self, line, small):
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            return None
        target = small.targets[0].target.value
        call, index = _factory_call(small.value)
        if call is None or target not in self.ok or call.func.value not in self.factories:
            return None
        fac = self.factories[call.func.value]
        if self.pm.functions.get(call.func.value) is fac:
            self.pm.closure_factories.add(call.func.value)
        prefix = self.names[f"_fz_{fac.name.value}_{target}"] + "_"
        local, _stored = function_locals(self.pm.module.code_for_node(fac))
        renamer = Rename({n: prefix + n for n in local}, self.pm.origins)
        out = self._bind(fac, call, prefix, renamer, line)
        ret = None
        for s in fac.body.body:
            if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Return):
                ret = s.body[0].value
                continue
            if _is_docstring(s):
                continue
            if isinstance(s, cst.FunctionDef):
                out.extend(self._def(s, prefix, renamer))
                continue
            new = s.visit(renamer)
            out.append(new)
        value = ret.visit(renamer)
        if index is not None:
            if not isinstance(value, cst.Tuple) or not 0 <= index < len(value.elements):
                return None
            value = value.elements[index].value
        assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))],
                                                     value)], leading_lines=line.leading_lines)
        self.pm.origins[assign] = line
        out.append(assign)
        return out

    def _bind(self, fac, call, prefix, renamer, line) -> list:
        params = fac.params
        plist = list(params.params)
        bound = {}
        for i, a in enumerate(call.args):
            if a.star:
                raise self._error(a, "`*` and `**` arguments of a closure factory are not "
                                  "supported in kernels",
                                  help="pass the factory's arguments one by one, by position or "
                                       "by name")
            if a.keyword is None:
                if i >= len(plist):
                    raise self._error(a, f"too many arguments for `{fac.name.value}`",
                                      help="call the factory with at most as many arguments as it "
                                           "has parameters")
                bound[plist[i].name.value] = a.value
            else:
                bound[a.keyword.value] = a.value
        out = []
        for p in plist + list(params.kwonly_params):
            name = p.name.value
            value = bound.get(name)
            if value is None and p.default is not None:
                value = p.default
            if value is None:
                raise self._error(call, f"`{fac.name.value}` is missing the argument `{name}`",
                                  help="pass a value for every parameter that has no default")
            s = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(prefix + name))],
                                                    value)])
            self.pm.origins[s] = line
            out.append(s)
        return out

    def _def(self, d: cst.FunctionDef, prefix, renamer) -> list:
        """The inner function, respelled, with its non-literal defaults evaluated now."""
        pre = []
        params = []
        for k, p in enumerate(d.params.params):
            if p.default is not None and not isinstance(p.default, (cst.Integer, cst.Float,
                                                                    cst.SimpleString)):
                snap = f"{prefix}{d.name.value}__d{k}"
                s = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(snap))],
                                                        p.default.visit(renamer))])
                self.pm.origins[s] = p
                pre.append(s)
                p = p.with_changes(default=cst.Name(snap))
            params.append(p)
        d = d.with_changes(params=d.params.with_changes(params=params))
        new = d.visit(renamer)
        self.pm.origins[new] = d
        return pre + [new]

    def _error(self, node, message, help):
        return self.pm.error(node, "T2T105", message, help)


def _walk_stmts(stmts):
    for s in stmts:
        yield s
        if isinstance(s, (cst.If, cst.For, cst.While, cst.With)):
            for part in (getattr(s, "body", None), getattr(s, "orelse", None)):
                while part is not None:
                    body = getattr(part, "body", None)
                    if isinstance(body, cst.IndentedBlock):
                        yield from _walk_stmts(body.body)
                    part = part.orelse if isinstance(part, cst.If) else None


def _is_docstring(s) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr) and \
        isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _is_factory(d: cst.FunctionDef) -> bool:
    if d.decorators or not isinstance(d.body, cst.IndentedBlock):
        return False
    p = d.params
    if p.star_kwarg is not None or isinstance(p.star_arg, cst.Param) or p.posonly_params:
        return False
    stmts = [s for s in d.body.body if not _is_docstring(s)]
    if not stmts:
        return False
    last = stmts[-1]
    if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1
            and isinstance(last.body[0], cst.Return) and last.body[0].value is not None):
        return False
    defs = {s.name.value for s in stmts if isinstance(s, cst.FunctionDef)}
    if not defs:
        return False
    for s in stmts[:-1]:
        if isinstance(s, cst.FunctionDef):
            continue
        if not (isinstance(s, cst.SimpleStatementLine) and all(
                isinstance(x, cst.Assign) and all(isinstance(t.target, cst.Name)
                                                  for t in x.targets) for x in s.body)):
            return False
    value = last.body[0].value
    items = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    return any(isinstance(v, cst.Name) and v.value in defs for v in items)


def _factory_call(value):
    index = None
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 \
            and isinstance(value.slice[0].slice, cst.Index) \
            and isinstance(value.slice[0].slice.value, cst.Integer):
        index = int(value.slice[0].slice.value.value)
        value = value.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return value, index
    return None, None


def _bindings(small, factories):
    """(name, factory or None) for each name a small statement binds."""
    if isinstance(small, cst.Assign):
        call, _ = _factory_call(small.value)
        fac = call.func.value if call is not None and call.func.value in factories else None
        for t in small.targets:
            if isinstance(t.target, cst.Name):
                yield t.target.value, fac
            else:
                for n in _names(t.target):
                    yield n, None
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        for n in _names(small.target):
            yield n, None


def _names(t):
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _names(el.value)


def rewrite_pass(unit) -> None:
    """Body pass (rewrite/__init__.py): closures made by factory functions inlined."""
    unit.body = ClosureInliner(unit.pm, unit.pm.names).function_body(unit.body)
