"""convert, after every file of a run is translated: the launchers a module imports from the
user's other modules must exist there.

`from pkg.kern import copy` with `copy` a cuTile kernel of pkg/kern.py makes the translated
module import `launch_copy` from pkg.kern (packages.py). That import works only if pkg/kern.py,
as it will be once the run is over, defines `launch_copy`:
- pkg/kern.py in the same run: its translation must be written and define the launcher (it
  does not when the file is not written, or when `--keep-unconverted` kept `copy` as cuTile
  code);
- pkg/kern.py outside the run: its current content must define it (it was converted before, or
  the user wrote the launcher); a cuTile module that was not converted does not.
Otherwise the importing module is not written either (T2T112 at its import of the kernel), and
so on for the modules importing from it; with `--keep-unconverted` it is translated again, its
launches of those kernels kept as cuTile code (cuTile launches the kernel its module kept)
under T2T112 notes. Files are only read, never imported.

Any other import of one of the user's modules that will still be cuTile code once the run is
over (not written in this run, or outside it and not converted) is reported at the import
(T2T114, `unconverted_imports`): the importing module is written, since it works where
cuda.tile is installed, but the run needs attention, as the package will not import without
cuda.tile until that module is converted.
"""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from ..diagnostics import Diagnostic
from ..emit.module_check import defines, introduced_launchers, launcher_import_site


def _key(path) -> str:
    return os.path.realpath(str(path))


def pending_links(path, source: str, output: str) -> list:
    """The launchers (module, level, name, line) that `output` imports because of the
    translation; none for stdin (whose neighbours are unknown)."""
    if path == "-":
        return []
    return introduced_launchers(source, output)


def unmet_links(path, display: str, source: str, links: list, produced: dict,
                source_line) -> list:
    """(module as imported, kernel, T2T112) per launcher in `links` that will not exist.
    `produced`: real path of each file of the run -> its text once the run is written (None:
    not written)."""
    from ..parse.packages import resolve_module
    out = []
    for module, level, name, _ in links:
        target = resolve_module(str(path), module, level)
        shown = ("." * level) + module
        if target is None:
            why = f"`{shown}` cannot be found next to this file"
            text = None
        else:
            key = _key(target)
            if key in produced:
                text = produced[key]
                why = (f"{target} is not written in this run" if text is None else
                       f"the translation of {target} does not define it (its kernel was not "
                       "converted)")
            else:
                try:
                    text = Path(target).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    text = None
                why = f"{target} is not part of this run and does not define it"
        if text is not None and defines(text, name):
            continue
        line, col, end, kernel = launcher_import_site(source, module, level, name)
        out.append((shown, kernel, Diagnostic(
            "T2T112", f"the translated module imports `{name}` from `{shown}`, but {why}",
            display, line, col, end_col=end, source_line=source_line(line),
            help=f"convert `{shown}` in the same run (or before this file), so that its "
                 "kernels become Triton kernels with launchers")))
    return out


def settle(deferred: list, produced: dict, in_place: bool, retranslate=None) -> None:
    """Check every deferred module ([Outcome, its links]) against `produced`, repeatedly: a
    module that fails is not written (in place: it keeps its cuTile text), which may fail the
    modules importing from it. `retranslate(outcome, kept)` (--keep-unconverted): the module
    translated again with the imported kernels `kept` left to cuTile."""
    changed = True
    while changed:
        changed = False
        for entry in deferred:
            o, links = entry[0], entry[1]
            r = o.result
            if r.output is None:
                continue
            problems = unmet_links(o.path, o.display, o.source.text, links, produced,
                                   _line_getter(o.source.text))
            if not problems:
                continue
            changed = True
            kept = frozenset((m, k) for m, k, _ in problems if k is not None)
            again, before = None, entry[2] if len(entry) > 2 else frozenset()
            if retranslate is not None and kept and not kept <= before:  # (the set grows)
                kept |= before
                try:
                    again = retranslate(o, kept)
                except Exception:  # noqa: BLE001 - then the module fails as it is
                    again = None
            if again is not None and again.output is not None:
                o.result = again
                entry[1:] = [pending_links(o.path, o.source.text, again.output), kept]
                produced[_key(o.path)] = again.output
                continue
            r.module_diagnostics.extend(d for _, _, d in problems)
            r.output = None
            produced[_key(o.path)] = o.source.text if in_place else None


def _line_getter(text: str):
    lines = text.splitlines()
    return lambda n: lines[n - 1] if 0 < n <= len(lines) else None


_USES_CUDA_TILE = re.compile(r"^[ \t]*(import[ \t]+cuda\.tile\b|from[ \t]+cuda(\.tile\b|[ \t]+import"
                             r"[ \t]+tile\b))", re.M)


def unconverted_imports(path, display: str, source: str, after: str, produced: dict) -> list:
    """T2T114 per import in `after` (the text the run leaves at `path`) of one of the user's
    modules that stays cuTile code: not written in this run (`produced`: real path -> text
    once the run is written, None where the file gets none), or outside the run and still
    importing cuda.tile. Located at the import in `source`, the input."""
    if path == "-":
        return []
    try:
        imports = _imports(ast.parse(after))
        where = {(m, lv): node for m, lv, node in _imports(ast.parse(source))}
    except SyntaxError:
        return []
    out, lines, seen = [], source.splitlines(), set()
    for module, level, node in imports:
        why = None if (module, level) in seen else _still_cutile(path, module, level, produced)
        seen.add((module, level))
        if why is None:
            continue
        at = where.get((module, level))
        line, col = (at.lineno, at.col_offset + 1) if at is not None else (1, 1)
        shown = "." * level + module
        out.append(Diagnostic(
            "T2T114", f"imports `{shown}`, which {why}: without cuda.tile this module cannot "
            "be imported", display, line, col,
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
            help=f"convert `{shown}` too (its diagnostics say what stopped it), or keep "
                 "cuda.tile installed until it is"))
    return out


def _imports(tree) -> list:
    """(module, level, node) of each module an import statement of `tree` names: `from . import
    ops` names the package and `.ops`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, node))
            if node.module is None or node.level:
                out += [(f"{node.module}.{a.name}" if node.module else a.name, node.level, node)
                        for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, 0, node) for a in node.names]
    return out


def _still_cutile(path, module: str, level: int, produced: dict):
    """Why `module` (as `path` imports it) is still cuTile code after the run, or None."""
    from ..parse.packages import resolve_module
    if not module.strip("."):
        return None
    target = resolve_module(str(path), module, level)
    if target is None or _key(target) == _key(path):
        return None
    key = _key(target)
    if key in produced:
        text = produced[key]
        if text is None:
            return f"this run does not write as Triton code ({target})"
        return f"stays cuTile code in this run ({target})" if _USES_CUDA_TILE.search(text) \
            else None
    try:
        text = Path(target).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return f"is cuTile code outside this run ({target})" if _USES_CUDA_TILE.search(text) \
        else None
