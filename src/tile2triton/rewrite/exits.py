"""Structured rewrite of `break`, `continue` and early `return`, which Triton does not have.

Runs on the kernel's libcst body before lowering and keeps the user's statements (and their
comments) as they are, only wrapping them:

  * `break` sets a flag; a `for` loop containing one becomes a `while` loop whose condition also
    tests the flag (so the loop really stops), `while` loops get the same extra test;
  * `continue` sets a per-iteration flag;
  * `return` (without a value) sets `_returned`; every loop it can leave tests it too;
  * statements after a point that may have exited run under `if <no flag set>:`.

Flags are int32 scalars compared with 0, which Triton handles as ordinary loop-carried values.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

RETURNED = "_returned"


class _IndentSuites(cst.CSTTransformer):
    """`def f(x): return x` / `if c: a = 1; b = 2`: each one-line suite becomes the indented
    block it stands for. The small statements are the user's own nodes (they keep their
    positions); every node rebuilt around them is mapped to the node it replaces."""

    def __init__(self, origins: dict):
        self.origins = origins

    def leave_SimpleStatementSuite(self, original, updated):
        line = cst.SimpleStatementLine(body=updated.body)
        block = cst.IndentedBlock(header=updated.trailing_whitespace, body=[line])
        self.origins[line] = original
        self.origins[block] = original
        return block

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if result is not original and isinstance(result, cst.CSTNode):
            self.origins.setdefault(result, original)
        return result


def indent_suites(node, origins: dict):
    """`node` (a function body or any statement) with every one-line suite in it indented."""
    return node.visit(_IndentSuites(origins))


@dataclass
class _Loop:
    broke: str
    skip: str


class ExitRewriter:
    def __init__(self, error, origins: dict | None = None, names=None):
        self.error = error  # callable(node, code, message, help) -> exception
        # spellings of the flags, clear of the user's names (names.Names; tests pass none)
        self.names = names if names is not None else _Identity()
        self.returned = self.names[RETURNED]
        self.counter = 0
        self.uses_return = False
        # new node -> the user's node it stands for, so diagnostics about rewritten statements
        # point at the source (the rewritten nodes have no position of their own)
        self.origins = origins if origins is not None else {}

    # ----------------------------------------------------------------------------- analysis
    def exits(self, node, in_inner_loop=False) -> set:
        """Kinds of exits in `node` that leave the current loop or the function."""
        found = set()
        if isinstance(node, cst.Break) and not in_inner_loop:
            found.add("break")
        elif isinstance(node, cst.Continue) and not in_inner_loop:
            found.add("continue")
        elif isinstance(node, cst.Return):
            found.add("return")
        inner = in_inner_loop or isinstance(node, (cst.For, cst.While))
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return found
        for child in node.children:
            # the loop node's own body is "inner" for break/continue
            found |= self.exits(child, inner)
        return found

    def needs_rewrite(self, body: cst.IndentedBlock) -> bool:
        stmts = list(body.body)
        # A single `return` as the very last top-level statement is plain Triton.
        if stmts and isinstance(stmts[-1], cst.SimpleStatementLine) and \
                len(stmts[-1].body) == 1 and isinstance(stmts[-1].body[0], cst.Return):
            stmts = stmts[:-1]
        return any(_contains_exit(s) for s in stmts)

    # ------------------------------------------------------------------------------ rewrite
    def function_body(self, body: cst.IndentedBlock) -> cst.IndentedBlock:
        if not self.needs_rewrite(body) or _returns_values_outside_loops(body):
            return body
        stmts = list(body.body)
        if stmts and isinstance(stmts[-1], cst.SimpleStatementLine) and \
                len(stmts[-1].body) == 1 and isinstance(stmts[-1].body[0], cst.Return) and \
                stmts[-1].body[0].value is None:
            stmts = stmts[:-1]
        doc = []
        if stmts and isinstance(stmts[0], cst.SimpleStatementLine) and \
                isinstance(stmts[0].body[0], cst.Expr) and \
                isinstance(stmts[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            doc, stmts = stmts[:1], stmts[1:]
        new = self.block(stmts, None)
        if self.uses_return:
            new = doc + [_stmt(f"{self.returned} = 0")] + new
        else:
            new = doc + new
        return body.with_changes(body=new)

    def flags_clear(self, kinds: set, loop) -> str:
        terms = []
        if loop is not None and "break" in kinds:
            terms.append(f"{loop.broke} == 0")
        if loop is not None and "continue" in kinds:
            terms.append(f"{loop.skip} == 0")
        if "return" in kinds:
            terms.append(f"{self.returned} == 0")
        return " and ".join(f"({t})" for t in terms) if len(terms) > 1 else terms[0]

    def block(self, stmts: list, loop) -> list:
        out = []
        for i, s in enumerate(stmts):
            kinds = self.exits(s)
            new = self.stmt(s, loop)
            out.extend(new.items if isinstance(new, _Seq) else [new])
            if kinds:
                rest = self.block(stmts[i + 1:], loop)
                if rest:
                    cond = self.flags_clear(kinds, loop)
                    out.append(cst.If(test=cst.parse_expression(cond),
                                      body=cst.IndentedBlock(body=rest)))
                return out
        return out

    def stmt(self, s, loop):
        if isinstance(s, cst.SimpleStatementLine):
            new_body = []
            for small in s.body:
                if isinstance(small, (cst.Break, cst.Continue)) and loop is None:
                    word = "break" if isinstance(small, cst.Break) else "continue"
                    raise self.error(small, "T2T001", f"`{word}` outside a loop",
                                     help=f"`{word}` must be inside a `for` or `while` loop")
                if isinstance(small, cst.Break):
                    new_body.append(_small(f"{loop.broke} = 1"))
                elif isinstance(small, cst.Continue):
                    new_body.append(_small(f"{loop.skip} = 1"))
                elif isinstance(small, cst.Return):
                    if small.value is not None:
                        raise self.error(small, "T2T101",
                                         "an early `return` with a value cannot be translated",
                                         help="assign the result to a variable and return it "
                                              "once, at the end of the function")
                    self.uses_return = True
                    new_body.append(_small(f"{self.returned} = 1"))
                else:
                    new_body.append(small)
            return s.with_changes(body=new_body)
        if isinstance(s, cst.If):
            return self.if_stmt(s, loop)
        if isinstance(s, cst.For):
            return self.for_stmt(s)
        if isinstance(s, cst.While):
            return self.while_stmt(s)
        return s

    def if_stmt(self, s: cst.If, loop) -> cst.If:
        body = s.body.with_changes(body=self.block(list(s.body.body), loop)) \
            if isinstance(s.body, cst.IndentedBlock) else s.body
        orelse = s.orelse
        if isinstance(orelse, cst.If):
            orelse = self.if_stmt(orelse, loop)
        elif isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
            orelse = orelse.with_changes(body=orelse.body.with_changes(
                body=self.block(list(orelse.body.body), loop)))
        return s.with_changes(body=body, orelse=orelse)

    def _new_loop(self) -> _Loop:
        n = self.counter
        self.counter += 1
        return _Loop(self.names[f"_broke_{n}"], self.names[f"_skip_{n}"])

    def _loop_body(self, body: cst.IndentedBlock, loop: _Loop, kinds: set, tail=()) -> list:
        inner = self.block(list(body.body), loop)
        head = [_stmt(f"{loop.skip} = 0")] if "continue" in kinds else []
        return head + inner + list(tail)

    def _stop_terms(self, kinds: set, loop: _Loop) -> list:
        terms = []
        if "break" in kinds:
            terms.append(f"({loop.broke} == 0)")
        if "return" in kinds:
            terms.append(f"({self.returned} == 0)")
        return terms

    def _inner_only(self, s):
        """A loop none of whose own exits leave it: loops nested in it may still need their
        rewrite (a `while` with a `break` inside a `for`)."""
        if not isinstance(s.body, cst.IndentedBlock):
            return s
        return s.with_changes(body=s.body.with_changes(body=self.block(list(s.body.body),
                                                                       None)))

    def for_stmt(self, s: cst.For):
        kinds = self.exits(s.body, False)
        if not kinds:
            return self._inner_only(s)
        loop = self._new_loop()
        stop_terms = self._stop_terms(kinds, loop)
        if not stop_terms:  # only `continue`: the loop shape stays
            return s.with_changes(body=s.body.with_changes(
                body=self._loop_body(s.body, loop, kinds)))
        it = s.iter
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value == "range" and isinstance(s.target, cst.Name)
                and 1 <= len(it.args) <= 3):
            raise self.error(s, "T2T101", "a loop with `break`/`return` must iterate over "
                             "range(...) with one loop variable",
                             help="write the loop as `for i in range(...)` with one name, or move "
                                  "the exit into a flag checked by a `while` loop")
        # The new statements are built around the user's own header expressions (the same
        # node objects), so diagnostics about them point into the `for` header.
        var = s.target
        args = [a.value for a in it.args]
        start, stop, step = (cst.Integer("0"), args[0], None) if len(args) == 1 else (
            args[0], args[1], args[2] if len(args) == 3 else None)
        negative = isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus)
        cmp = cst.GreaterThan() if negative else cst.LessThan()
        cond = cst.Comparison(var, [cst.ComparisonTarget(cmp, stop)])
        first = _paren(cond)
        test = _and([first] + [cst.parse_expression(t) for t in stop_terms])
        self.origins[first] = s
        pre = [_line(cst.Assign([cst.AssignTarget(var)], start))]
        if "break" in kinds:
            pre.append(_stmt(f"{loop.broke} = 0"))
        step_line = _line(cst.AugAssign(var, cst.AddAssign(), step or cst.Integer("1")))
        body = self._loop_body(s.body, loop, kinds, tail=[step_line])
        loop_node = cst.While(test=test, body=cst.IndentedBlock(body=body))
        self.origins[loop_node] = s
        self.origins[test] = s
        self.origins[pre[0]] = s
        self.origins[step_line] = s
        seq = _Seq(pre, loop_node, s)
        self.origins[seq.items[-1]] = s
        return seq

    def while_stmt(self, s: cst.While):
        kinds = self.exits(s.body, False)
        if not kinds:
            return self._inner_only(s)
        loop = self._new_loop()
        stop_terms = self._stop_terms(kinds, loop)
        test = s.test
        if stop_terms:
            first = _paren(test)
            self.origins[first] = s.test
            test = _and([first] + [cst.parse_expression(t) for t in stop_terms])
            self.origins[test] = s.test
        body = self._loop_body(s.body, loop, kinds)
        new = s.with_changes(test=test, body=s.body.with_changes(body=body))
        self.origins[new] = s
        pre = [_stmt(f"{loop.broke} = 0")] if "break" in kinds else []
        if not pre:
            return new
        seq = _Seq(pre, new, s)
        self.origins[seq.items[-1]] = s
        return seq


class _Identity:
    def __getitem__(self, name):
        return name


class _Seq:
    """Several statements standing where one was (flattened by `flatten`)."""

    def __init__(self, pre, node, original):
        self.items = list(pre) + [node]
        if pre:  # keep the original statement's comments above the first new line
            self.items[0] = self.items[0].with_changes(leading_lines=original.leading_lines)
            self.items[-1] = self.items[-1].with_changes(leading_lines=())


def _returns_values_outside_loops(body) -> bool:
    """Every exit is a `return`, none inside a loop, and some return a value: Triton compiles
    returns in `if` branches outside loops itself (a helper's early `return x`)."""
    found = {"value": False}

    def walk(node, in_loop) -> bool:
        if isinstance(node, (cst.Break, cst.Continue)):
            return False
        if isinstance(node, cst.Return):
            found["value"] |= node.value is not None
            return not in_loop
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return True
        loop = in_loop or isinstance(node, (cst.For, cst.While))
        return all(walk(c, loop) for c in node.children)

    return walk(body, False) and found["value"]


def _contains_exit(node) -> bool:
    if isinstance(node, (cst.Break, cst.Continue, cst.Return)):
        return True
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    return any(_contains_exit(c) for c in node.children)


def _paren(expr):
    """`expr` parenthesised, unless it already is (keeping the node itself where possible)."""
    if expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _and(terms: list):
    """`t0 & t1 & ...` as a left-nested CST expression."""
    acc = terms[0]
    for t in terms[1:]:
        acc = cst.BinaryOperation(acc, cst.BitAnd(), t)
    return acc


def _line(small) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])


def _stmt(code: str) -> cst.SimpleStatementLine:
    return cst.parse_statement(code + "\n")


def _small(code: str):
    return cst.parse_statement(code + "\n").body[0]


# ------------------------------------------------------------------ constants at a loop's exit
def exit_constants(loop: cst.While) -> dict:
    """`while True:` left only by `break`s: the names that every `break` leaves bound to the
    same literal (the last assignment to the name on the way to each `break` within the
    iteration is `name = <literal>`). cuTile folds such a name after the loop; so does the
    lowering (name -> value)."""
    if not (isinstance(loop.test, cst.Name) and loop.test.value == "True") \
            or not isinstance(loop.body, cst.IndentedBlock):
        return {}
    found: list = []          # one dict per break: name -> literal or None

    def walk(stmts: list, chain: list) -> None:
        for i, s in enumerate(stmts):
            here = chain + [(stmts, i)]
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    if isinstance(small, cst.Break):
                        found.append(here)
                        return
                    if isinstance(small, (cst.Continue, cst.Return)):
                        return
                continue
            if isinstance(s, cst.If):
                node = s
                while node is not None:
                    body = node.body if isinstance(node, (cst.If, cst.Else)) else None
                    if isinstance(body, cst.IndentedBlock):
                        walk(list(body.body), here)
                    node = node.orelse if isinstance(node, cst.If) else None
            # (breaks inside inner loops leave those loops; other statements hold none)

    walk(list(loop.body.body), [])
    if not found:
        return {}
    names = _assigned_names(loop.body)
    out = {}
    for name in names:
        values = set()
        for chain in found:
            v = _last_literal(chain, name)
            if v is _UNKNOWN:
                break
            values.add((type(v), v))
        else:
            if len(values) == 1:
                out[name] = next(iter(values))[1]
    return out


_UNKNOWN = object()


def _last_literal(chain: list, name: str):
    """The value `name` last got on the path to a `break` (its enclosing blocks, innermost
    first, each read backwards from the statement holding the path)."""
    for stmts, i in reversed(chain):
        # the statement at i holds the path: in the innermost block it is the `break` line,
        # whose own earlier small statements count too
        s = stmts[i]
        if isinstance(s, cst.SimpleStatementLine):
            for small in reversed(list(s.body)):
                got = _assigns(small, name)
                if got is not None:
                    return got
        for prev in reversed(stmts[:i]):
            if isinstance(prev, cst.SimpleStatementLine):
                for small in reversed(list(prev.body)):
                    got = _assigns(small, name)
                    if got is not None:
                        return got
            elif name in _assigned_names(prev):
                return _UNKNOWN
    return _UNKNOWN


def _assigns(small, name: str):
    """None when `small` does not bind `name`; its literal value, or _UNKNOWN."""
    if isinstance(small, cst.Assign):
        hit = any(name in _target_names(t.target) for t in small.targets)
        if not hit:
            return None
        if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return _literal(small.value)
        return _UNKNOWN
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        return _UNKNOWN if name in _target_names(small.target) else None
    return None


def _literal(expr):
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
            and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return _UNKNOWN


def _target_names(t) -> set:
    if isinstance(t, cst.Name):
        return {t.value}
    if isinstance(t, (cst.Tuple, cst.List)):
        out = set()
        for el in t.elements:
            out |= _target_names(el.value)
        return out
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return set()


def _assigned_names(node) -> set:
    out = set()

    def walk(n):
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(n, cst.AssignTarget):
            out.update(_target_names(n.target))
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)):
            out.update(_target_names(n.target))
        elif isinstance(n, cst.NamedExpr):
            out.update(_target_names(n.target))
        for c in n.children:
            walk(c)

    walk(node)
    return out


def indent_pass(unit) -> None:
    """Body pass (rewrite/__init__.py): one-line suites (`def f(x): return x`, `if c: a = 1`)
    are the blocks they stand for."""
    unit.body = indent_suites(unit.body, unit.pm.origins)


def rewrite_pass(unit) -> None:
    """Body pass (rewrite/__init__.py): `break`, `continue` and early `return` as flags."""
    unit.body = ExitRewriter(unit.error, unit.pm.origins, unit.pm.names).function_body(unit.body)
