"""Types that depend on the path taken: cuTile's front end rejects a kernel in which a value
carried around a loop changes type ("Type of `acc` depends on path taken": a bf16 accumulator
widened to fp32 in the body, `a = 1` then `a *= 2.0`; upstream test_typeinfer.py). The
interpreter runs kernels as Python, where any type goes, so it watches the loops instead: the
kernel's function is recompiled with a check at the end of each loop body (and before each
`continue`) comparing the types of the names the loop re-binds and reads with their types when
the loop started. Built on the standard `ast` module from cuTile's documented rule; nothing here
is shared with the translator.

Compared, conservatively (an oracle that rejects valid code is as wrong as one that accepts
invalid code): two tiles (dtype and shape), or two Python numbers of different kinds. A Python
number meeting a tile is left alone: cuTile types a literal weakly, so `acc = 0.0` then a tile
of any float dtype is one type to it.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import weakref

from ._errors import TileTypeError
from ._tile import Tile

_CHECK = "__t2t_interp_loop_types__"
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _type_of(value):
    if isinstance(value, Tile):
        return ("tile", str(value.dtype), tuple(value.shape))
    if isinstance(value, bool):
        return ("number", "bool")
    if isinstance(value, int):
        return ("number", "int")
    if isinstance(value, float):
        return ("number", "float")
    return None


def _describe(t) -> str:
    if t[0] == "tile":
        return f"Tile[{t[1]},{t[2]}]"
    return t[1]


class _LoopTypes:
    """The types each loop's carried names had when the loop started (per loop, per call)."""

    def __init__(self):
        self.entry = {}

    def __call__(self, loop_id, phase, scope, names, line):
        if phase == "enter":
            self.entry[loop_id] = {n: _type_of(scope[n]) for n in names if n in scope}
            return
        for name, was in self.entry.get(loop_id, {}).items():
            if was is None or name not in scope:
                continue
            now = _type_of(scope[name])
            if now is None or now[0] != was[0] or now == was:
                continue
            raise TileTypeError(f"Type of `{name}` depends on path taken: {_describe(now)} "
                                f"(line {line}) vs. {_describe(was)} (when the loop starts)")


def _assigned(stmts) -> set:
    out = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                            out.add(sub.id)
            elif isinstance(node, ast.NamedExpr):
                out.add(node.target.id)
    return out


def _read_first(stmts) -> set:
    """Names the statements may read before assigning them (in evaluation order: a value
    before its targets, `a += 1` reads `a`; the branches of an `if` both count)."""
    seen, first = set(), set()

    def load(node):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in seen:
                first.add(n.id)
                seen.add(n.id)

    def store(node):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                seen.add(n.id)

    def visit(stmts):
        for stmt in stmts:
            if isinstance(stmt, ast.Assign):
                load(stmt.value)
                for t in stmt.targets:
                    store(t)
            elif isinstance(stmt, ast.AugAssign):
                load(stmt.value)
                if isinstance(stmt.target, ast.Name) and stmt.target.id not in seen:
                    first.add(stmt.target.id)
                    seen.add(stmt.target.id)
                load(stmt.target)
            elif isinstance(stmt, ast.AnnAssign):
                if stmt.value is not None:
                    load(stmt.value)
                store(stmt.target)
            elif isinstance(stmt, (ast.If, ast.While)):
                load(stmt.test)
                before = set(seen)
                visit(stmt.body)
                after_body = set(seen)
                seen.clear()
                seen.update(before)
                visit(stmt.orelse)
                seen.update(after_body)     # (assigned on one path: counted as assigned)
            elif isinstance(stmt, ast.For):
                load(stmt.iter)
                store(stmt.target)
                visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                seen.add(stmt.name)
            else:
                load(stmt)
    visit(stmts)
    return first


def _read(nodes) -> set:
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class _Instrument(ast.NodeTransformer):
    def __init__(self, fn: ast.FunctionDef):
        self.fn = fn
        self.count = 0

    def _call(self, loop_id, phase, names, line):
        return ast.Expr(ast.Call(
            func=ast.Name(_CHECK, ast.Load()),
            args=[ast.Constant(loop_id), ast.Constant(phase),
                  ast.Call(ast.Name("locals", ast.Load()), [], []),
                  ast.Constant(tuple(sorted(names))), ast.Constant(line)], keywords=[]))

    def _loop(self, node):
        self.generic_visit(node)
        # names the loop re-binds and that are read in it or after it: their type at the
        # loop's head is what the body left, or what they held before the loop
        after = [n for n in ast.walk(self.fn) if getattr(n, "lineno", 0) > node.end_lineno]
        names = _assigned(node.body) & (_read_first(node.body) | _read(after))
        if isinstance(node, ast.For):
            names -= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if not names:
            return node
        self.count += 1
        loop_id = self.count
        line = max((getattr(n, "lineno", node.lineno) for s in node.body for n in ast.walk(s)),
                   default=node.lineno)
        check = self._call(loop_id, "iter", names, line)
        node.body = _before_continue(node.body, check) + [check]
        enter = self._call(loop_id, "enter", names, node.lineno)
        for part in (enter, check):
            ast.copy_location(part, node)
            ast.fix_missing_locations(part)
        return [enter, node]

    visit_For = visit_While = _loop

    def visit_FunctionDef(self, node):
        if node is not self.fn:
            return node             # a nested function: not this kernel's loops
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_Lambda = lambda self, node: node


def _before_continue(stmts, check):
    """`stmts` with `check` before each `continue` of this loop (not of loops inside it)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, ast.Continue):
            out.append(check)
        elif not isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, _before_continue(getattr(stmt, field), check))
            if isinstance(stmt, ast.Try):
                for h in stmt.handlers:
                    h.body = _before_continue(h.body, check)
        out.append(stmt)
    return out


def path_checked(func):
    """`func` recompiled with the loop type checks; `func` itself where its source is not
    available or it has no loop that carries a value."""
    try:
        return _CACHE[func]
    except (KeyError, TypeError):
        pass
    checked = _build(func)
    try:
        _CACHE[func] = checked
    except TypeError:
        pass
    return checked


def _build(func):
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return func
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef)
               and n.name == func.__name__), None)
    if fn is None:
        return func
    fn.decorator_list = []
    inst = _Instrument(fn)
    inst.visit(fn)
    if not inst.count:
        return func
    freevars = func.__code__.co_freevars
    try:
        cells = [c.cell_contents for c in (func.__closure__ or ())]
    except ValueError:          # a closure cell not filled yet
        return func
    # a function returning the kernel's: the check and the closure's names are its parameters
    factory = ast.FunctionDef(
        name="__t2t_interp_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in (_CHECK,) + freevars],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fn, ast.Return(ast.Name(fn.name, ast.Load()))], decorator_list=[], returns=None,
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}))
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, func.__code__.co_firstlineno - 1)
    try:
        code = compile(module, func.__code__.co_filename, "exec")
    except (SyntaxError, ValueError):
        return func
    scope = {}
    exec(code, func.__globals__, scope)  # noqa: S102 - the kernel itself, recompiled
    checked = scope["__t2t_interp_factory__"](_LoopTypes(), *cells)
    checked.__defaults__ = func.__defaults__
    checked.__kwdefaults__ = func.__kwdefaults__
    checked.__wrapped__ = func
    return checked
