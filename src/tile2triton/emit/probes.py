"""Availability probes of cuda.tile in modules without kernels.

A library that has several backends often asks "is cuTile installed?" with

    try:
        import cuda.tile as ct
        import cuda.tile.tune
        CUTILE_AVAILABLE = True
    except ImportError:
        CUTILE_AVAILABLE = False

and never uses `ct` again. After `convert`, the backend's modules need Triton, not cuda.tile:
left as it is, the probe turns the converted backend off wherever cuda.tile is missing (the
machines the conversion is for), and the package fails its own tests. So an import whose only
purpose is the probe is rewritten to probe Triton. An import whose names the module uses is
cuTile code tile2triton does not translate (T2T100, `translate.hidden_cutile_import`).
"""
from __future__ import annotations

import ast
from typing import Optional

NOTE = "  # tile2triton: probes Triton, which the converted kernels need, instead of cuda.tile"

# handlers that catch a failed import
_CATCHES_IMPORT = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def is_cutile_module(name) -> bool:
    return isinstance(name, str) and (name == "cuda.tile" or name.startswith("cuda.tile."))


def _catches_import(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    if kinds is None:
        return True
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    return any(isinstance(n, ast.Name) and n.id in _CATCHES_IMPORT
               or isinstance(n, ast.Attribute) and n.attr in _CATCHES_IMPORT for n in names)


def _bound(node) -> list:
    """The names an import of cuda.tile binds (`import cuda.tile` binds `cuda`)."""
    if isinstance(node, ast.Import):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    return [a.asname or a.name for a in node.names]


def _uses(tree, name: str, imports: set) -> bool:
    """Whether the module mentions `name` anywhere but in the probing imports: a read, a
    rebinding, a `global`, another import binding it, or a string annotation naming it
    (`x: "ct.Array"`, which `typing.get_type_hints` evaluates)."""
    for node in ast.walk(tree):
        if node in imports:
            continue
        if isinstance(node, ast.Name) and node.id == name:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and name in _bound(node):
            return True
    return any(name in _annotation_names(a) for a in _string_annotations(tree))


def _string_annotations(tree) -> list:
    out = []
    for node in ast.walk(tree):
        anns = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            anns.append(node.returns)
        elif isinstance(node, ast.arg):
            anns.append(node.annotation)
        elif isinstance(node, ast.AnnAssign):
            anns.append(node.annotation)
        for ann in anns:
            for sub in ast.walk(ann) if ann is not None else ():
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    out.append(sub.value)
    return out


def _annotation_names(text: str) -> set:
    try:
        return {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    except (SyntaxError, ValueError, RecursionError):
        return set()


def probe_rewrite(text: str) -> Optional[str]:
    """`text` with every import of cuda.tile made an import of Triton, when each of them is an
    availability probe: a whole statement of a `try:` body (at any depth) with a handler that
    catches ImportError, on lines of its own, binding names the module never uses. None when
    the module imports cuda.tile any other way, or not at all."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    probes, others, first = [], 0, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            guarded = any(_catches_import(h) for h in node.handlers)
            for stmt in node.body:
                if guarded and _imports_cutile(stmt):
                    probes.append(stmt)
                    first.setdefault(id(node), stmt)
        if _imports_cutile(node) or isinstance(node, ast.Call) and node.args and \
                is_cutile_module(getattr(node.args[0], "value", None)):
            others += 1
    if not probes or others != len(probes):
        return None
    lines = text.splitlines(keepends=True)
    imports = set(probes)
    for stmt in probes:
        if stmt.lineno != stmt.end_lineno or not _only_cutile(stmt) or any(
                _uses(tree, name, imports) for name in _bound(stmt)):
            return None
        line = lines[stmt.lineno - 1]
        rest = line[stmt.end_col_offset:]
        if rest.strip() and not rest.lstrip().startswith("#"):   # `import cuda.tile; x = 1`
            return None
        if line[:stmt.col_offset].strip():                        # `try: import cuda.tile`
            return None
    kept = {id(stmt) for stmt in first.values()}
    for stmt in probes:   # one Triton import per `try:`; the other probes of it go
        line = lines[stmt.lineno - 1]
        end = line[len(line.rstrip("\r\n")):]
        lines[stmt.lineno - 1] = (line[:stmt.col_offset] + "import triton" + NOTE + end
                                  if id(stmt) in kept else "")
    return "".join(lines)


def _imports_cutile(node) -> bool:
    if isinstance(node, ast.Import):
        return any(is_cutile_module(a.name) for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return not node.level and (is_cutile_module(node.module) or (
            node.module == "cuda" and any(a.name == "tile" for a in node.names)))
    return False


def _only_cutile(node) -> bool:
    """`import cuda.tile as ct, os` also imports os: not only a probe."""
    if isinstance(node, ast.Import):
        return all(is_cutile_module(a.name) for a in node.names)
    return node.module != "cuda" or all(a.name == "tile" for a in node.names)
