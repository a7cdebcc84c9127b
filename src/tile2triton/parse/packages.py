"""parse: imports between the user's own modules (a package converted as a unit).

`from mypkg.tiles import swizzle` in a kernel module makes `swizzle` a helper the kernels may
call: its module is found on disk next to the importing file (relative imports, or absolute ones
rooted at an enclosing folder), parsed, and its function definitions are linked into the
importing module, so the helper is translated into that module as a local `@triton.jit` helper
(Triton resolves it from the module's globals) and the name is dropped from the import.
`from mypkg.kern import my_kernel` makes `my_kernel` a kernel of another module: `ct.launch` of
it calls `launch_my_kernel`, imported from the same module.

Nothing is executed: the user's modules are only read.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst

from .source import ParsedModule, dotted_name, parse_source

MAX_DEPTH = 6
_PARSED: dict = {}


def resolve_module(importing: str, module: str, level: int = 0) -> Optional[Path]:
    """The file of `module` as imported from file `importing`, or None. `level` is the number
    of leading dots of a relative import."""
    try:
        here = Path(importing).resolve().parent
    except (OSError, ValueError):
        return None
    parts = [p for p in module.split(".") if p]
    if level:
        base = here
        for _ in range(level - 1):
            base = base.parent
        roots = [base]
    else:
        # absolute: the package may be rooted at any enclosing folder (sys.path entry)
        roots = [here] + list(here.parents)[:MAX_DEPTH]
    for root in roots:
        cand = root.joinpath(*parts)
        for f in (cand.with_suffix(".py"), cand / "__init__.py"):
            if parts and f.is_file():
                return f
    return None


def _parse_file(path: Path) -> Optional[ParsedModule]:
    key = str(path)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    hit = _PARSED.get(key)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    try:
        pm = parse_source(path.read_text(), key)
    except Exception:  # noqa: BLE001 - an unreadable module links nothing
        pm = None
    _PARSED[key] = (mtime, pm)
    return pm


def _is_kernel(pm: ParsedModule, fdef: cst.FunctionDef) -> bool:
    return any(pm.decorator_role(d)[0] == "kernel" for d in fdef.decorators)


def link_imports(pm: ParsedModule) -> None:
    """Link functions imported from the user's modules into `pm` (see the module docstring).
    Fills `pm.foreign` (linked helper name -> its ParsedModule), `pm.foreign_kernels`
    (local name -> (module as written in the import, kernel name)) and `pm.linked`."""
    relative = _relative_imports(pm)
    for local, q in list(pm.imports.items()) + relative:
        if q.split(".")[0] == "cuda" or "." not in q.lstrip("."):
            continue
        dots = len(q) - len(q.lstrip("."))
        mod, _, attr = q.lstrip(".").rpartition(".")
        path = resolve_module(pm.source.path, mod, dots)
        if path is None or str(path) == str(Path(pm.source.path).resolve()):
            continue
        other = _parse_file(path)
        if other is not None and attr in other.enums and local == attr and local not in pm.enums:
            # an enum class of the user's other module (`from util import AtomicOp`): its
            # members are translation-time values in kernels, as the module's own enums are
            pm.enums[local] = other.enums[attr]
            pm.enum_bases[local] = other.enum_bases[attr]
            continue
        if other is None or attr not in other.functions:
            continue
        fdef = other.functions[attr]
        if _is_kernel(other, fdef):
            pm.foreign_kernels[local] = ("." * dots + mod, attr)
            continue
        _link_function(pm, local, other, attr, 0)


def _relative_imports(pm: ParsedModule) -> list:
    """(local name, '.mod.name') for `from .mod import name` (parse.py skips them)."""
    out = []
    for stmt in pm.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and small.relative \
                    and not isinstance(small.names, cst.ImportStar):
                mod = dotted_name(small.module) if small.module else ""
                dots = "." * len(small.relative)
                for alias in small.names:
                    local = alias.asname.name.value if alias.asname else alias.name.value
                    out.append((local, f"{dots}{mod}.{alias.name.value}" if mod
                                else f"{dots}.{alias.name.value}"))
    return out


def _free(pm: ParsedModule, name: str) -> bool:
    return name not in pm.imports and name not in pm.globals and name not in pm.functions


def _link_function(pm, local, other, name, depth) -> None:
    if depth > MAX_DEPTH or local in pm.foreign:
        return
    if local != name:
        return        # an aliased import of a helper (`import x as y`): not linked
    pm.imports.pop(local, None)
    pm.functions[local] = other.functions[name]
    pm.foreign[local] = other
    if other not in pm.linked:
        pm.linked.append(other)
    # what the helper's own module binds, where the importing module leaves the name free
    for n, q in other.imports.items():
        if _free(pm, n):
            pm.imports[n] = q
            pm.borrowed_imports.add(n)
    for n, v in other.globals.items():
        if _free(pm, n):
            pm.globals[n] = v
    for n in other.functions:
        if _free(pm, n) and not _is_kernel(other, other.functions[n]):
            pm.functions[n] = other.functions[n]
            pm.foreign[n] = other
    # helpers the helper's module imports from further modules
    for n, q in list(other.imports.items()):
        if q.split(".")[0] == "cuda" or "." not in q:
            continue
        mod, _, attr = q.rpartition(".")
        path = resolve_module(other.source.path, mod)
        third = _parse_file(path) if path else None
        if third is not None and attr in third.functions and not _is_kernel(
                third, third.functions[attr]) and pm.imports.get(n) == q:
            _link_function(pm, n, third, attr, depth + 1)
