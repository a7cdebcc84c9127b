"""Names of the user's module that would change what the generated code means at run time.

The generated launchers and host helpers are module-level functions of the user's module: they
read the module's `triton`, `torch` and `tl` and Python's builtins (`max`, `min`, `dict`,
`getattr`, `isinstance`, `tuple`, ...) through the module's globals, and the host code the
translation rewrites (`ct.cdiv(n, t)` -> `triton.cdiv(n, t)`) reads `triton` in the user's own
function. So a module that binds one of those names itself is refused at the binding (T2T121),
before anything is written:
  - `triton`, `tl` or `torch` bound anywhere but by their own import: a parameter, a local, a
    loop variable, an import of something else under that name;
  - a builtin the generated code calls, bound at module level (`def max`, `tuple = ...`,
    `from numpy import max`, `class dict`);
  - a star import (`from numpy import *` binds numpy's `max` and `min`): which names it binds
    is not known without importing it.
Identifiers are compared as Python compares them, after NFKC normalization (`ＵＳＥ_INT64` is
`USE_INT64`; parse.py normalizes the tree the same way).
"""
from __future__ import annotations

import ast
import builtins
import re
from functools import lru_cache
from importlib import resources
from typing import Optional

from ..parse.names import RESERVED_IMPORTS

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@lru_cache(maxsize=1)
def generated_builtins() -> frozenset:
    """The builtins the generated host code may call: every builtin name the launcher and
    host-helper templates spell (read from the templates, so a new call is covered)."""
    names: set = set()
    for template in ("launcher.py.j2", "host.py.j2"):
        text = resources.files("tile2triton.emit").joinpath("templates", template).read_text(
            encoding="utf-8")
        text = re.sub(r'"""[\s\S]*?"""', "", text)          # docstrings
        text = re.sub(r"\{#[\s\S]*?#\}", "", text)            # template comments
        text = re.sub(r"#[^\n]*", "", text)                    # comments
        text = re.sub(r'"[^"\n]*"|\'[^\'\n]*\'', "", text)     # strings (messages)
        names |= set(_IDENTIFIER.findall(text))
    return frozenset(n for n in names & set(dir(builtins)) if not n.startswith("_")
                     and n not in ("True", "False", "None"))


def rebinding_problem(text: str) -> Optional[tuple[int, int, str, str]]:
    """(line, 1-based col, name, why) of the first binding the generated code cannot live with,
    else None."""
    if not any(w in text for w in (*RESERVED_IMPORTS, "import *", *generated_builtins())):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    wanted = generated_builtins()
    for node in ast.walk(tree):      # triton / tl / torch bound other than by their import
        for name, where in _bindings(node):
            if name in RESERVED_IMPORTS and not _is_own_import(node, name):
                return (*where, name, f"`{name}` is the {RESERVED_IMPORTS[name]} module in the "
                        "translated module (the rewritten host code and the launchers read it)")
    for stmt in _module_level(tree.body):
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names) \
                and not (stmt.module or "").startswith("cuda.tile"):
            return (stmt.lineno, stmt.col_offset + 1, "*",
                    f"`from {stmt.module or '.'} import *` may bind names the translated "
                    f"launchers call ({', '.join(sorted(wanted & {'max', 'min', 'dict'}))}, ...)")
        for name, where in _bindings(stmt, shallow=True):
            if name in wanted:
                return (*where, name, f"`{name}` is Python's builtin in the translated "
                        "module's launchers, which call it")
    return None


def _module_level(body):
    """Statements that run at module level (inside if/try/with/for, not functions/classes)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try)) or \
                type(stmt).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(stmt, field, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _module_level(handler.body)


def _bindings(node, shallow: bool = False):
    """(name, (line, col)) bound by `node` itself (with shallow=True: by a module-level
    statement, its targets but not the inside of functions or classes it defines)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, (node.lineno, node.col_offset + 1)
        if shallow:
            return
    if isinstance(node, ast.arg):
        yield node.arg, (node.lineno, node.col_offset + 1)
    elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        yield node.id, (node.lineno, node.col_offset + 1)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for a in node.names:
            if a.name != "*":
                yield (a.asname or a.name.split(".")[0]), (node.lineno, node.col_offset + 1)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name, (node.lineno, node.col_offset + 1)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        return
    if shallow:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Lambda, ast.stmt)):
                for sub in ast.walk(child):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                        yield sub.id, (sub.lineno, sub.col_offset + 1)


def _is_own_import(node, name: str) -> bool:
    """`import torch`, `import triton`, `import triton.language as tl` (and the same names
    from their packages: `from triton import language as tl`)."""
    want = RESERVED_IMPORTS[name]
    if isinstance(node, ast.Import):
        for a in node.names:
            if (a.asname or a.name.split(".")[0]) == name:
                if (a.name if a.asname else a.name.split(".")[0]) != want:
                    return False
        return True
    if isinstance(node, ast.ImportFrom):
        return all(f"{node.module}.{a.name}" == want for a in node.names
                   if (a.asname or a.name) == name)
    return False
