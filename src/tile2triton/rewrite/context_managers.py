"""`with` over generator context managers (`@contextlib.contextmanager` helpers), inlined.

cuTile runs a `with cm(args) as v:` block at compile time: the generator's statements before
its one `yield` run on entry, `v` is the yielded value, and the statements after the `yield`
run on every way out of the block (falling off its end, `break`, `continue`, `return`). Triton
has no `with`, so before lowering (and before `control_flow.py` turns exits into flags) each
such statement is replaced by:

    <parameters bound to the arguments>    # `_cm0_x = x`, the generator's names respelled
    <statements before the yield>
    v = <yielded value>
    <the block, with the cleanup copied in front of each exit that leaves it>
    <statements after the yield>           # the cleanup

Blocks are inlined innermost first, so an exit leaving several blocks runs their cleanups from
the inside out. The generator's own `with` statements are inlined first (a `yield` inside one
is then at the top level). A generator must have exactly one reachable `yield`, at its top
level (statements after a `break`/`continue` in the same block are unreachable), and no
`return`, as cuTile requires.
"""
from __future__ import annotations

import libcst as cst

from ..parse.cst_tools import Rename, function_locals, walk

_MAX_DEPTH = 16


class ContextInliner:
    def __init__(self, pm, error, names):
        self.pm = pm
        self.error = error                  # callable(node, code, message, help=) -> exception
        self.names = names
        self.counter = 0
        self.depth = 0

    # ---------------------------------------------------------------------------- traversal
    def function_body(self, body: cst.IndentedBlock) -> cst.IndentedBlock:
        if not _has_with(body):
            return body
        return body.with_changes(body=self.block(list(body.body)))

    def block(self, stmts: list) -> list:
        out = []
        for s in stmts:
            new = self.stmt(s)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def suite(self, suite):
        if isinstance(suite, cst.IndentedBlock):
            new = self.block(list(suite.body))
            return suite.with_changes(body=new or [cst.SimpleStatementLine([cst.Pass()])])
        return suite

    def stmt(self, s):
        if isinstance(s, cst.If):
            orelse = s.orelse
            if isinstance(orelse, cst.If):
                orelse = self.stmt(orelse)
            elif isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=self.suite(orelse.body))
            return self._keep(s, s.with_changes(body=self.suite(s.body), orelse=orelse))
        if isinstance(s, (cst.For, cst.While)):
            return self._keep(s, s.with_changes(body=self.suite(s.body)))
        if isinstance(s, cst.With):
            return self.with_stmt(s)
        return s

    def _keep(self, old, new):
        if new is not old:
            self.pm.origins[new] = old
        return new

    # ------------------------------------------------------------------------------- a with
    def with_stmt(self, s: cst.With) -> list:
        if s.asynchronous is not None:
            raise self.error(s, "T2T101", "`async with` is not supported in kernels",
                             help="use a plain `with`: kernels have no event loop to await in")
        if not isinstance(s.body, cst.IndentedBlock):
            raise self.error(s, "T2T101", "one-line blocks are not supported in kernels",
                             help="put the block body on its own indented line")
        # `with a as x, b as y:` is `with a as x:` around `with b as y:`
        body = list(s.body.body)
        for item in reversed(s.items[1:]):
            body = self.one_item(s, item, body)
        return self.one_item(s, s.items[0], body)

    def one_item(self, s, item: cst.WithItem, body: list) -> list:
        call = item.item
        gen = self._generator(call)
        if gen is None:
            raise self.error(item.item, "T2T101", "a `with` statement in a kernel must enter a "
                             "generator context manager (a `@contextlib.contextmanager` function "
                             "of the module)",
                             help="call the helper's setup and cleanup code explicitly")
        if self.depth >= _MAX_DEPTH:
            raise self.error(item.item, "T2T101", "context managers nested too deeply (a "
                             "recursive context manager?)",
                             help="give the context manager a body that does not enter itself "
                                  "again")
        n = self.counter
        self.counter += 1
        prefix = self.names[f"_cm{n}"] + "_"
        self.depth += 1
        try:
            binds, gbody = self._instantiate(gen, call, prefix, _assigned(body), item.asname)
            gbody = _prune(gbody)
            gbody = self.block(gbody)          # the generator's own `with` statements
        finally:
            self.depth -= 1
        k = self._the_yield(gen, gbody)
        before, after = gbody[:k], gbody[k + 1:]
        yielded = gbody[k].body[0].value.value
        body = self.block(body)                # inner `with` statements first
        enter = []
        if item.asname is not None and not (
                isinstance(yielded, cst.Name) and isinstance(item.asname.name, cst.Name)
                and yielded.value == item.asname.name.value):
            value = yielded if yielded is not None else cst.Name("None")
            line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(item.asname.name)],
                                                       value)])
            self.pm.origins[line] = s
            enter.append(line)
        cleanup = lambda: [self._copy(c) for c in after]  # noqa: E731 - fresh nodes per copy
        routed = _Router(self, cleanup, prefix).block(body, False)
        return binds + before + enter + routed + cleanup()

    def _generator(self, call):
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        fdef = self.pm.functions.get(call.func.value)
        if fdef is None or not _yields(fdef.body):
            return None
        self.pm.context_managers.add(call.func.value)
        return fdef

    def _instantiate(self, gen: cst.FunctionDef, call: cst.Call, prefix: str, assigned: set,
                     asname=None):
        """(statements binding the parameters, the generator's body) with the generator's
        local names respelled `<prefix><name>`."""
        params = gen.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg \
                or params.posonly_params:
            raise self.error(call, "T2T101", "context managers with `*args`, `**kwargs` or "
                             "positional-only parameters are not supported in kernels",
                             help="give the context manager plain named parameters")
        plist = list(params.params) + list(params.kwonly_params)
        positional = list(params.params)
        bound: dict = {}
        for i, a in enumerate(call.args):
            if a.star:
                raise self.error(a, "T2T101", "`*` and `**` arguments of a context manager are "
                                 "not supported in kernels",
                                 help="pass the context manager's arguments one by one")
            if a.keyword is None:
                if i >= len(positional):
                    raise self.error(a, "T2T105", f"too many arguments for `{gen.name.value}`",
                                     help="pass at most as many arguments as the context manager "
                                          "has parameters")
                bound[positional[i].name.value] = a.value
            else:
                if a.keyword.value not in {p.name.value for p in plist} or \
                        a.keyword.value in bound:
                    raise self.error(a, "T2T105", f"`{gen.name.value}` got an unexpected or "
                                     f"repeated argument `{a.keyword.value}`",
                                     help="name each parameter of the context manager once, "
                                          "spelled as in its definition")
                bound[a.keyword.value] = a.value
        local, stored = function_locals(self.pm.module.code_for_node(gen))
        # a parameter given a plain name the block does not assign, and that the generator
        # does not assign either, is that name (arrays cannot be re-bound in kernels)
        same = {p.name.value: bound[p.name.value].value for p in plist
                if isinstance(bound.get(p.name.value), cst.Name)
                and p.name.value not in stored and bound[p.name.value].value not in assigned}
        renamer = Rename({n: same.get(n, prefix + n) for n in local}, self.pm.origins)
        if asname is not None and isinstance(asname.name, cst.Name):
            # a function of the generator yielded by name is defined under the `as` name
            yielded = _yielded_name(gen)
            if yielded in local and \
                    asname.name.value not in assigned and asname.name.value not in same.values():
                renamer.mapping[yielded] = asname.name.value
        binds = []
        for p in plist:
            name = p.name.value
            if name in same:
                continue
            if name in bound:
                value = bound[name]
            elif p.default is not None:
                value = p.default.visit(renamer)
            else:
                raise self.error(call, "T2T105", f"`{gen.name.value}` is missing the argument "
                                 f"`{name}`",
                                 help="pass a value for every parameter that has no default")
            line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(prefix + name))],
                                                       value)])
            self.pm.origins[line] = call
            binds.append(line)
        if not isinstance(gen.body, cst.IndentedBlock):
            raise self.error(gen, "T2T101", "one-line function bodies are not supported",
                             help="put the function body on its own indented lines")
        body = [s.visit(renamer) for s in gen.body.body]
        return binds, body

    def _the_yield(self, gen, gbody) -> int:
        where = []
        _find_yields(gbody, where, top=True)
        _find_returns(gbody, self, gen)
        if not where:
            raise self.error(gen.name, "T2T105", f"context manager `{gen.name.value}` has no "
                             "reachable `yield` statement",
                             help="give the generator one `yield` that every call reaches (as "
                                  "@contextlib.contextmanager needs)")
        if len(where) > 1:
            raise self.error(where[1][0], "T2T105", f"context manager `{gen.name.value}` must "
                             "have one `yield` statement",
                             help="keep one `yield`; put the code around it before and after that "
                                  "one")
        node, index = where[0]
        if index is None:
            raise self.error(node, "T2T105", "the `yield` of a context manager must be outside "
                             "of loops and conditional statements",
                             help="move the `yield` to the generator's top level: the setup "
                                  "before it, the cleanup after it")
        return index

    def _copy(self, stmt):
        return stmt.visit(Rename({}, self.pm.origins))


class _Router:
    """Copies the cleanup in front of each exit of the block that leaves it: `break` and
    `continue` outside the block's own loops, every `return`."""

    def __init__(self, inliner: ContextInliner, cleanup, prefix: str):
        self.inliner = inliner
        self.cleanup = cleanup
        self.prefix = prefix

    def block(self, stmts: list, in_loop: bool) -> list:
        out = []
        for s in stmts:
            out.extend(self.stmt(s, in_loop))
        return out

    def suite(self, suite, in_loop):
        if isinstance(suite, cst.IndentedBlock):
            return suite.with_changes(body=self.block(list(suite.body), in_loop))
        if isinstance(suite, cst.SimpleStatementSuite) and _leaves(suite, in_loop):
            line = cst.SimpleStatementLine(list(suite.body))
            return cst.IndentedBlock(body=self.stmt(line, in_loop))
        return suite

    def stmt(self, s, in_loop) -> list:
        origins = self.inliner.pm.origins
        if isinstance(s, cst.SimpleStatementLine):
            smalls = list(s.body)
            for j, small in enumerate(smalls):
                leaves = isinstance(small, cst.Return) or (
                    isinstance(small, (cst.Break, cst.Continue)) and not in_loop)
                if not leaves:
                    continue
                out = []
                if j:
                    out.append(s.with_changes(body=smalls[:j]))
                exit_ = small
                if isinstance(small, cst.Return) and small.value is not None \
                        and not isinstance(small.value, (cst.Name, cst.Integer, cst.Float)):
                    tmp = cst.Name(self.inliner.names[self.prefix + "result"])
                    keep = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(tmp)],
                                                               small.value)])
                    origins[keep] = s
                    out.append(keep)
                    exit_ = small.with_changes(value=tmp)
                out.extend(self.cleanup())
                line = cst.SimpleStatementLine([exit_],
                                               leading_lines=() if out else s.leading_lines)
                origins[line] = s
                out.append(line)
                return out
            return [s]
        if isinstance(s, cst.If):
            new = s.with_changes(body=self.suite(s.body, in_loop),
                                 orelse=self._orelse(s.orelse, in_loop))
        elif isinstance(s, (cst.For, cst.While)):
            new = s.with_changes(body=self.suite(s.body, True))
        else:
            return [s]
        origins[new] = s
        return [new]

    def _orelse(self, orelse, in_loop):
        if isinstance(orelse, cst.If):
            return self.stmt(orelse, in_loop)[0]
        if isinstance(orelse, cst.Else):
            return orelse.with_changes(body=self.suite(orelse.body, in_loop))
        return orelse


def _assigned(stmts: list) -> set:
    """Names a block assigns (anywhere in it, nested functions included: conservative)."""
    out = set()
    for s in stmts:
        for node in walk(s):
            targets = []
            if isinstance(node, cst.AssignTarget):
                targets.append(node.target)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
                targets.append(node.target)
            elif isinstance(node, cst.NamedExpr):
                targets.append(node.target)
            elif isinstance(node, cst.AsName):
                targets.append(node.name)
            for t in targets:
                out |= {n.value for n in walk(t) if isinstance(n, cst.Name)}
    return out


def _has_with(node) -> bool:
    if isinstance(node, cst.With):
        return True
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    return any(_has_with(c) for c in node.children)


def _yields(node) -> bool:
    if isinstance(node, cst.Yield):
        return True
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    return any(_yields(c) for c in node.children)


def _is_yield_stmt(s) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and \
        isinstance(s.body[0], cst.Expr) and isinstance(s.body[0].value, cst.Yield)


def _find_yields(stmts: list, where: list, top: bool) -> None:
    """Reachable `yield`s: (node, index in the top-level block or None)."""
    for i, s in enumerate(stmts):
        if _is_yield_stmt(s):
            where.append((s, i if top else None))
        elif isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if _yields(small):
                    where.append((small, None))
                if isinstance(small, (cst.Break, cst.Continue, cst.Return)):
                    return          # the rest of the block is unreachable
        elif isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            continue
        else:
            for suite in _suites(s):
                if isinstance(suite, cst.IndentedBlock):
                    _find_yields(list(suite.body), where, False)
                elif _yields(suite):
                    where.append((s, None))
            header = [c for c in s.children if not isinstance(
                c, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Else, cst.If))]
            if any(_yields(c) for c in header):
                where.append((s, None))


def _find_returns(stmts: list, inliner, gen) -> None:
    for s in stmts:
        for node in walk(s, skip_defs=True):
            if isinstance(node, cst.Return):
                raise inliner.error(node, "T2T105", "Returning from a generator-based context "
                                    f"manager (`{gen.name.value}`) is not supported",
                                    help="let the generator reach its `yield`")


def _suites(s) -> list:
    out = []
    body = getattr(s, "body", None)
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        out.append(body)
    orelse = getattr(s, "orelse", None)
    while orelse is not None:
        if isinstance(orelse, cst.If):
            out.append(orelse.body)
            orelse = orelse.orelse
        else:
            out.append(orelse.body)
            orelse = None
    return out


def _leaves(suite, in_loop) -> bool:
    return any(isinstance(s, cst.Return) or (isinstance(s, (cst.Break, cst.Continue))
                                             and not in_loop) for s in suite.body)


def _yielded_name(gen) -> str | None:
    """The name a generator yields at its top level, if it yields a bare name there and
    defines a function of that name at its top level."""
    body = gen.body.body if isinstance(gen.body, cst.IndentedBlock) else ()
    defs = {s.name.value for s in body if isinstance(s, cst.FunctionDef)}
    for s in body:
        if _is_yield_stmt(s) and isinstance(s.body[0].value.value, cst.Name) and \
                s.body[0].value.value.value in defs:
            return s.body[0].value.value.value
    return None


def _prune(stmts: list) -> list:
    """The block without its unreachable statements (after a `break`, `continue` or `return`
    of the same block)."""
    out = []
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            out.append(s)
            if any(isinstance(x, (cst.Break, cst.Continue, cst.Return)) for x in s.body):
                break
            continue
        new = s
        if isinstance(s, (cst.If, cst.For, cst.While)) and isinstance(s.body, cst.IndentedBlock):
            new = s.with_changes(body=s.body.with_changes(body=_prune(list(s.body.body))))
        out.append(new)
    return out


def rewrite_pass(unit) -> None:
    """Body pass (rewrite/__init__.py): `with` over generator context managers inlined."""
    unit.body = ContextInliner(unit.pm, unit.error, unit.pm.names).function_body(unit.body)
