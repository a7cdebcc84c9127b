"""The translated module's imports as one pass over its top-level statements (emit.render_module
runs it last), in the spirit of libcst's RemoveImportsVisitor and an isort pass:

  * an import the user wrote whose names the input module used and the translation no longer
    uses (`from contextlib import contextmanager` for an inlined context manager, a kernel
    imported from a sibling module that is now called through its launcher) is removed; an import
    that was already unused in the input is the user's and stays; a name the translation added
    to an import (a sibling kernel's launcher) stays only where the module uses it;
  * the block of consecutive imports that holds the generated ones is grouped and ordered as
    `ruff check --select I` expects: __future__, standard library, third party, relative; within
    a group `import x` lines before `from x import y` lines, each sorted by module, and the
    names of a `from` import sorted as isort sorts them, `from x import a as b, c` split into
    a statement per alias. A comment above an import moves with it.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst

from ..parse.names import source_identifiers

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], (cst.Import, cst.ImportFrom))


def _dotted(node) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    return f"{_dotted(node.value)}.{node.attr.value}"


def _bound(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    return _dotted(alias.name).split(".")[0]


def identifiers_used(statements) -> set:
    """Identifiers the statements use, imports left out; those of string annotations
    (`k: "triton.JITFunction"`) too, which ruff and type checkers resolve like code."""
    code = cst.Module(body=[s for s in statements if not _is_import(s)]).code
    if not code.strip():
        return set()
    tree = ast.parse(code)
    used = source_identifiers(tree)
    for text in _string_annotations(tree):
        try:
            used |= source_identifiers(ast.parse(text.strip(), mode="eval"))
        except SyntaxError:     # (a string annotation that is prose: it names nothing)
            pass
    return used


def _string_annotations(tree) -> list:
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            notes.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            notes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
    return [n.value for n in notes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def drop_orphaned(body: list, original: str, generated: set, helpers=()) -> list:
    """`body` without the user's import names the translation left unused (see the module
    docstring); `original`: the user's source; `generated`: ids of the import statements emit
    added; `helpers`: the helper statements that will join the module (what they use stays
    imported)."""
    try:
        user_body = cst.parse_module(original).body
    except cst.ParserSyntaxError:   # (it parsed once: only for safety)
        return body
    before = identifiers_used(user_body)
    # names the user's own imports bind: any other name in an import was added with the
    # translation (a sibling kernel's launcher) and stays only where the module uses it
    user_bound = {_bound(a) for s in user_body if _is_import(s)
                  and not isinstance(s.body[0].names, cst.ImportStar) for a in s.body[0].names}
    after = identifiers_used(list(body) + list(helpers))
    out = []
    for stmt in body:
        if id(stmt) in generated or not _is_import(stmt):
            out.append(stmt)
            continue
        imp = stmt.body[0]
        if isinstance(imp, cst.ImportFrom) and (
                isinstance(imp.names, cst.ImportStar) or _dotted(imp.module) == "__future__"):
            out.append(stmt)
            continue
        keep = [a for a in imp.names if _bound(a) in after
                or (_bound(a) not in before and _bound(a) in user_bound)]
        if len(keep) == len(imp.names):
            out.append(stmt)
        elif keep:
            keep[-1] = keep[-1].with_changes(comma=imp.names[-1].comma)   # (its layout)
            out.append(stmt.with_changes(body=[imp.with_changes(names=keep)]))
        else:   # its comments and blank lines stay, on the next statement
            out.append(_Carry(stmt.leading_lines))
    return _attach_carried(out)


class _Carry:
    """Comments of a removed import, for the statement after it."""

    def __init__(self, lines):
        self.lines = tuple(lines)


def _attach_carried(body: list) -> list:
    out, carry = [], ()
    for stmt in body:
        if isinstance(stmt, _Carry):
            carry += stmt.lines
            continue
        if carry:
            own = list(stmt.leading_lines)
            blank = max(sum(1 for line in carry if line.comment is None),
                        sum(1 for line in own if line.comment is None))
            comments = [line for line in list(carry) + own if line.comment is not None]
            # as many blank lines as the removed statement or this one had, then the comments
            stmt = stmt.with_changes(leading_lines=tuple([cst.EmptyLine()] * min(blank, 2)
                                                         + comments))
            carry = ()
        out.append(stmt)
    if carry:
        out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carry))
    return out


def _section(imp) -> int:
    if isinstance(imp, cst.ImportFrom) and imp.relative:
        return 3
    module = _dotted(imp.module) if isinstance(imp, cst.ImportFrom) else _dotted(
        imp.names[0].name)
    top = module.split(".")[0]
    return 0 if top == "__future__" else 1 if top in _STDLIB else 2


def _key(imp):
    if isinstance(imp, cst.ImportFrom):
        return (1, ("." * len(imp.relative)) + _dotted(imp.module).lower())
    return (0, _dotted(imp.names[0].name).lower())


def _member_key(alias: cst.ImportAlias):
    """isort's order of the names of one `from` import (ruff's default, order-by-type):
    CONSTANTS, then Classes, then other names, each case-insensitively."""
    name = _dotted(alias.name)
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), name, _dotted(alias.asname.name) if alias.asname else ""


def _sorted_members(stmt):
    """`stmt` with the names of its `from x import b, a` sorted; a parenthesized import laid
    out as isort lays it out (one line where it fits in 100 columns and has no trailing comma,
    else a name per line), unless it holds a comment; `import *` left as written."""
    imp = stmt.body[0]
    if (not isinstance(imp, cst.ImportFrom) or isinstance(imp.names, cst.ImportStar)
            or len(imp.names) < 2 and imp.lpar is None):
        return stmt
    names = sorted(imp.names, key=_member_key)
    if imp.lpar is not None:
        return _parenthesized(stmt, imp, names)
    if [id(n) for n in names] == [id(n) for n in imp.names]:
        return stmt
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    names = [n.with_changes(comma=comma if i < len(names) - 1 else cst.MaybeSentinel.DEFAULT)
             for i, n in enumerate(names)]
    return stmt.with_changes(body=[imp.with_changes(names=names), *stmt.body[1:]])


def _parenthesized(stmt, imp, names):
    code = cst.Module([]).code_for_node(imp)
    if "#" in code or len(stmt.body) > 1:
        return stmt     # (a comment between names, or `; more` after it: as written)
    head = code.split("(")[0].rstrip()     # `from x import`
    text = from_import_text(head, names, isinstance(imp.names[-1].comma, cst.Comma))
    if text == code:
        return stmt
    return stmt.with_changes(body=[cst.parse_statement(text + "\n").body[0]])


def from_import_text(head: str, names: list, magic: bool = False) -> str:
    """`from x import a, b` as isort lays it out: one line where it fits in 100 columns and
    had no trailing comma (`magic`), else a name per line in parentheses."""
    items = [cst.Module([]).code_for_node(n.with_changes(comma=cst.MaybeSentinel.DEFAULT))
             for n in names]
    flat = f"{head} {', '.join(items)}"
    if len(flat) <= 100 and not magic:
        return flat
    return head + " (\n" + "".join(f"    {item},\n" for item in items) + ")"


def _split_aliases(stmt) -> list:
    """`from x import a as b, c` as isort writes it (ruff's default, no combine-as-imports):
    `from x import c` and `from x import a as b`, each alias its own statement, in member
    order; a statement with a comment, or `; more` after it, as written."""
    imp = stmt.body[0]
    if (not isinstance(imp, cst.ImportFrom) or isinstance(imp.names, cst.ImportStar)
            or len(imp.names) < 2 or not any(n.asname for n in imp.names)
            or len(stmt.body) > 1 or stmt.trailing_whitespace.comment is not None):
        return [stmt]
    code = cst.Module([]).code_for_node(imp)
    if "#" in code:
        return [stmt]
    head = code.split(" import ")[0] + " import"
    plain = sorted((n for n in imp.names if not n.asname), key=_member_key)
    groups = sorted([[n] for n in imp.names if n.asname] + ([plain] if plain else []),
                    key=lambda g: _member_key(g[0]))
    out = []
    for g in groups:
        piece = cst.parse_statement(from_import_text(head, g) + "\n")
        out.append(piece.with_changes(leading_lines=stmt.leading_lines if not out else ()))
    return out


def sort_block(body: list, generated: set) -> list:
    """`body` with the run of consecutive imports holding the generated ones grouped and
    ordered (see the module docstring)."""
    at = next((i for i, s in enumerate(body) if id(s) in generated), None)
    if at is None:
        return body
    start = at
    while start > 0 and _is_import(body[start - 1]):
        start -= 1
    end = at
    while end < len(body) and _is_import(body[end]):
        end += 1
    block = body[start:end]
    if any(isinstance(s.body[0], cst.Import) and len(s.body[0].names) > 1 for s in block):
        return body     # `import a, b`: the user's own layout, left as written
    block = [piece for s in block for piece in _split_aliases(_sorted_members(s))]
    lead = block[0].leading_lines
    ordered = sorted(range(len(block)), key=lambda i: (_section(block[i].body[0]),
                                                       _key(block[i].body[0]), i))
    out, previous = [], None
    for n, i in enumerate(ordered):
        stmt = _sorted_members(block[i])
        comments = [line for line in stmt.leading_lines if line.comment is not None]
        section = _section(stmt.body[0])
        if n == 0:  # the blank lines above the block, then the statement's own comments
            lines = [line for line in lead if line.comment is None][:2] + comments
        else:
            lines = ([cst.EmptyLine()] if section != previous else []) + comments
        out.append(stmt.with_changes(leading_lines=tuple(lines)))
        previous = section
    return body[:start] + out + body[end:]
