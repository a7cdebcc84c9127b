"""emit: `convert --keep-unconverted`, the form of a file that did not translate completely.

By default a file with a failed kernel is not written. With the option it is: each kernel that
failed stays as cuTile code, and so does each host line whose cuTile use has no translation,
each under `# tile2triton:` notes giving the diagnostics (as dpct marks what it could not
migrate). The module keeps its cuda.tile import for them; everything else is translated as
usual, so the translated kernels run on Triton and the kept ones, launched with `ct.launch` as
before, on cuTile. A tile function that a translated kernel calls is the Triton one in the
module, so a kept kernel calling it is for the user to finish (its note says so).
"""
from __future__ import annotations

import libcst as cst

MARK = "# tile2triton:"


def note_lines(diagnostics: list) -> list:
    """One comment line per diagnostic: `# tile2triton: T2T100 message (line 12)`."""
    out = []
    for d in diagnostics:
        where = f" (line {d.line})" if d.line else ""
        text = " ".join(f"{MARK} {d.code} {d.message}{where}".split())
        out.append(cst.EmptyLine(comment=cst.Comment(text)))
    return out


def noted_text(text: str, diagnostics: list) -> str:
    """`text` as written, with each diagnostic's note on its own line above the line it is
    at, indented like that line: a module kept whole (no part of it could be translated)."""
    lines = text.splitlines(True)
    at: dict = {}
    for d in diagnostics:
        at.setdefault(min(max(d.line, 1), max(len(lines), 1)), []).append(d)
    out = []
    for n, line in enumerate(lines or [""], 1):
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        for d in at.get(n, []):
            out.append(indent + " ".join(f"{MARK} {d.code} {d.message} (line {d.line})"
                                         .split()) + "\n")
        out.append(line)
    noted = "".join(out)
    try:
        compile(noted, "<kept>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):   # (a line inside a string): the notes go on top
        return "".join(f"{MARK} {d.code} {' '.join(d.message.split())} (line {d.line})\n"
                       for d in diagnostics) + text
    return noted


def with_notes(stmt, diagnostics: list):
    """`stmt` as written, its notes just above it (after its own comments)."""
    return stmt.with_changes(leading_lines=list(stmt.leading_lines) + note_lines(diagnostics))


def kept_kernel(fdef: cst.FunctionDef, diagnostics: list) -> cst.FunctionDef:
    """A failed kernel as written, under a line saying so and its diagnostics."""
    head = cst.EmptyLine(comment=cst.Comment(
        f"{MARK} kernel `{fdef.name.value}` was not converted; kept as cuTile code"))
    return fdef.with_changes(
        leading_lines=list(fdef.leading_lines) + [head] + note_lines(diagnostics))


def is_cutile_decorator(pm, decorator: cst.Decorator) -> bool:
    return pm.decorator_role(decorator)[0] is not None
