"""emit, last step: a translated module is checked before anyone may write it.

A module is written only if it parses and every name it reads is bound: by the module itself,
by an import, as a builtin, or already left unbound by the input (the user's own undefined
names, say ones that a star import or `globals()` provides, are not the translation's doing).
No cuda.tile import may be left. Scopes come from Python's own compiler (`symtable`), so a
local, a closure variable, a class body and a comprehension resolve exactly as they will when
the module runs; nothing is imported or executed.
"""
from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass
from typing import Optional

# names every module has without binding them
_MODULE_NAMES = frozenset(dir(builtins)) | {
    "__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
    "__builtins__", "__path__", "__annotations__", "__cached__", "__dict__"}


@dataclass(frozen=True)
class UnboundName:
    name: str
    line: int     # of its first read in the text
    col: int      # 1-based


def unbound_names(text: str) -> Optional[dict]:
    """name -> UnboundName for each global the module reads and never binds; None where that
    cannot be known (the text does not parse, or a star import may bind anything)."""
    try:
        tree = ast.parse(text)
        top = symtable.symtable(text, "<module>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
           for n in ast.walk(tree)):
        return None
    bound = {s.get_name() for s in top.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}
    read = set()
    stack = [top]
    while stack:
        table = stack.pop()
        stack.extend(table.get_children())
        for s in table.get_symbols():
            name = s.get_name()
            if table is not top and s.is_declared_global() and s.is_assigned():
                bound.add(name)     # `global x; x = ...` in a function binds a module global
            if not s.is_referenced():
                continue
            if table is top or s.is_global() or (
                    table.get_type() == "class" and not s.is_local() and not s.is_free()):
                read.add(name)
    missing = read - bound - _MODULE_NAMES
    if not missing:
        return {}
    out: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in missing and not isinstance(
                node.ctx, ast.Store):
            seen = out.get(node.id)
            if seen is None or (node.lineno, node.col_offset + 1) < (seen.line, seen.col):
                out[node.id] = UnboundName(node.id, node.lineno, node.col_offset + 1)
    for name in missing - set(out):   # read only where ast has no Name (`del x` and the like)
        out[name] = UnboundName(name, 1, 1)
    return out


def imports_cuda_tile(text: str) -> Optional[int]:
    """The line of the first import of cuda.tile (or of `tile` from `cuda`), else None."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
                a.name == "cuda.tile" or a.name.startswith("cuda.tile.") for a in node.names):
            return node.lineno
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == "cuda.tile" or node.module.startswith("cuda.tile.") or (
                    node.module == "cuda" and any(a.name == "tile" for a in node.names))):
            return node.lineno
    return None


def imported_launchers(text: str) -> list:
    """(module as written, level, name, line) for each `from m import launch_x` (or a private
    kernel's `_launch_x`) at module level: launchers the module expects another translated
    module to define."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name.startswith(("launch_", "_launch_")):
                    out.append((node.module or "", node.level, a.name, node.lineno))
    return out


def introduced_launchers(source: str, output: str) -> list:
    """The launcher imports of `output` that its input `source` did not make: those the
    translation added for kernels imported from the user's other modules (packages.py)."""
    from ..parse.names import launcher_name
    before = {i[:3] for i in imported_launchers(source)}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    # (the launcher of a name the input imports from that module: not the shared runtime's
    # helpers, which `--shared-runtime` writes in the same run)
    kernels = {(node.module or "", node.level, launcher_name(a.name))
               for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    return [i for i in imported_launchers(output) if i[:3] not in before and i[:3] in kernels]


def launcher_import_site(source: str, module: str, level: int, launcher: str) -> tuple:
    """(line, col, end col, kernel) in `source` of the imported kernel whose launcher is
    `launcher` (`from pkg.kern import k` for `launch_k`), else of that import, else (1, 1,
    None, None)."""
    from ..parse.names import launcher_name
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return 1, 1, None, None
    first = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "") == module \
                and node.level == level:
            for a in node.names:
                if launcher_name(a.name) == launcher:
                    return (a.lineno, a.col_offset + 1, a.col_offset + 1 + len(a.name),
                            a.name)
            first = first or (node.lineno, node.col_offset + 1, None, None)
    return first or (1, 1, None, None)


def defines(text: str, name: str) -> bool:
    """Whether the module binds `name` at module level."""
    try:
        top = symtable.symtable(text, "<module>", "exec")
        s = top.lookup(name)
    except (SyntaxError, ValueError, KeyError, RecursionError):
        return False
    return s.is_assigned() or s.is_imported() or s.is_namespace()


def _module_bindings(tree: ast.Module) -> dict:
    """name -> (line, col) of its first binding by a top-level statement of the input (an
    import of cuda.tile binds nothing that survives: its names are reported where read)."""
    out: dict = {}

    def bind(name, node):
        out.setdefault(name, (node.lineno, node.col_offset + 1))

    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(stmt.name, stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if imports_cuda_tile(ast.unparse(stmt)) is None:
                for a in stmt.names:
                    bind(a.asname or a.name.split(".")[0], stmt)
        else:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    bind(node.id, node)
    return out


def _host_reads(tree: ast.Module, name: str, device: set):
    """(line, col) of the first read of `name` outside the module's tile functions."""
    stack = [s for s in tree.body if not (
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in device)]
    best = None
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            here = (node.lineno, node.col_offset + 1)
            best = here if best is None or here < best else best
        stack.extend(ast.iter_child_nodes(node))
    return best


def check_output(path: str, source: str, output: str, device: set, source_line,
                 cuda_tile_allowed: bool = False) -> list:
    """Diagnostics that keep `output` (the translation of `source`) from being written: a
    module that does not parse, reads a name it does not bind where `source` did bind it (or
    a generated name nothing defines), or still imports cuda.tile. `device`: names of the
    module's tile functions (their reads are translated, not kept); `source_line(n)`: the
    input's line n, for the excerpt."""
    from ..diagnostics import Diagnostic
    try:
        out_tree = ast.parse(output)
    except SyntaxError as e:
        return [Diagnostic("T2T900", f"internal error: the translated module does not parse "
                           f"(line {e.lineno}: {e.msg})", path, 1, 1,
                           help="this is a tile2triton bug; please report it with this file",
                           source_line=source_line(1))]
    out = []
    line = imports_cuda_tile(output)
    if line is not None and not cuda_tile_allowed:
        out.append(Diagnostic("T2T900", "internal error: the translated module still imports "
                              "cuda.tile", path, 1, 1,
                              help="this is a tile2triton bug; please report it with this file",
                              source_line=source_line(1)))
    after = unbound_names(output)
    before = unbound_names(source)
    if after is None or before is None:
        return out
    del out_tree
    in_tree = ast.parse(source)
    bindings = None
    for name in sorted(set(after) - set(before)):
        bindings = _module_bindings(in_tree) if bindings is None else bindings
        if name in bindings:
            where = bindings[name]
            message = (f"host code uses `{name}`, defined here, but this definition has no "
                       "translation: the Triton module would not define it")
            help_ = ("define it without cuda.tile (plain Python, torch or triton), or keep "
                     "this code in a module that is not converted")
        else:
            where = _host_reads(in_tree, name, device)
            if where is None:
                out.append(Diagnostic(
                    "T2T900", f"internal error: the translated module reads `{name}`, which it "
                    "does not define", path, 1, 1,
                    help="this is a tile2triton bug; please report it with this file",
                    source_line=source_line(1)))
                continue
            message = (f"host code uses `{name}` in a way that has no translation: the Triton "
                       "module would not define it")
            help_ = ("host code may call ct.launch, ct.cdiv, ct.kernel, kernel.replace_hints, "
                     "ct.ByTarget and ct.tune.exhaustive_search and pass kernels around; "
                     "write the rest without cuda.tile")
        out.append(Diagnostic("T2T111", message, path, where[0], where[1], help=help_,
                              source_line=source_line(where[0]),
                              end_col=where[1] + len(name)))
    return out
