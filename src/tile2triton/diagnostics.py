"""Located diagnostics: `path:line:col: T2Tnnn message`, the source line, a caret, and `help:`.

Every user-facing error of the translator is a `TranslationError` carrying one `Diagnostic`.
Codes are stable: tests and `--json` consumers key on them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Code registry: one line per code so docs/diagnostics.md can be generated from it.
CODES = {
    "T2T001": "syntax error in the input file",
    "T2T002": "input beyond the translator's limits (file size, nesting depth, chained helpers)",
    "T2T003": "file cannot be read (missing, a broken link, a FIFO or folder, no permission)",
    "T2T004": "file cannot be decoded (bytes not in its declared or the default UTF-8 encoding)",
    "T2T005": "output file cannot be written",
    "T2T100": "unsupported cuTile construct",
    "T2T101": "unsupported Python construct inside a kernel",
    "T2T102": "wrong arguments for a cuTile construct",
    "T2T103": "value must be a compile-time constant",
    "T2T104": "rank of an array could not be inferred",
    "T2T105": "inconsistent rank or shape",
    "T2T106": "dtype Triton cannot represent or operation it cannot express",
    "T2T107": "unknown name inside a kernel",
    "T2T108": "unsupported kernel parameter",
    "T2T109": "unsupported host-side use of a kernel",
    "T2T110": "a live kernel object cannot be turned into source (no source, or a value that is not a constant)",
    "T2T111": "host code the translation cannot carry over (the Triton module would not define a name it uses)",
    "T2T112": "a launcher the module imports from another of the user's modules would not exist (that module is not written, or does not define it)",
    "T2T113": "a value whose type depends on the path taken (cuTile rejects it too)",
    "T2T114": "a written module imports one of the user's modules that stays cuTile code (not converted in this run, or outside it): it needs cuda.tile until that module is converted",
    "T2T120": "compile-time expression cannot be evaluated (division by zero, overflow, ...)",
    "T2T121": "a name the translated module needs (USE_INT64, tl, triton, torch, hints, the builtins its launchers call; star imports)",
    "T2T900": "internal error of the translator",
}


def _excerpt(line: int, col: int, end_col: int | None, source_line: str | None) -> list[str]:
    """The source line and a caret under columns col..end_col (nothing without a line)."""
    if source_line is None:
        return []
    gutter = f"{line} | "
    width = end_col - col if end_col and end_col > col else 1
    return [gutter + source_line.rstrip("\n"), " " * (len(gutter) + col - 1) + "^" * width]


@dataclass
class Note:
    """A second location a diagnostic involves (e.g. the other side of a conflict)."""
    message: str
    path: str
    line: int = 0
    col: int = 0
    source_line: str | None = None
    end_col: int | None = None

    def format(self) -> str:
        return "\n".join([f"{self.path}:{self.line}:{self.col}: note: {self.message}",
                          *_excerpt(self.line, self.col, self.end_col, self.source_line)])

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "col": self.col, "message": self.message}


@dataclass
class Diagnostic:
    code: str
    message: str
    path: str = "<input>"
    line: int = 0
    col: int = 0  # 1-based column, as editors count
    help: str | None = None
    source_line: str | None = None
    end_col: int | None = None
    notes: list[Note] = field(default_factory=list)

    def format(self) -> str:
        head = f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"
        parts = [head, *_excerpt(self.line, self.col, self.end_col, self.source_line)]
        parts += [n.format() for n in self.notes]
        if self.help:
            parts.append(f"help: {self.help}")
        return "\n".join(parts)

    def as_json(self) -> dict:
        out = {"code": self.code, "line": self.line, "col": self.col, "message": self.message,
               "help": self.help}
        if self.notes:
            out["notes"] = [n.as_json() for n in self.notes]
        return out


class UsageError(Exception):
    """A wrong command line (exit status 2): reported as one line, never a traceback."""


class TranslationError(Exception):
    """A user-facing error with a location. Never shown with a Python traceback."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class LocatedFailure(Exception):
    """An unexpected exception caught at the syntax node being processed (the way Triton's code
    generator wraps `visit`): the innermost node catches it, outer nodes let it pass, and the
    pipeline's top level turns it into a T2T900 diagnostic at that node. Formatting happens
    there, not here, because positions are computed by a recursive walk and the failure may be
    a RecursionError deep in the stack."""

    def __init__(self, node, exc: BaseException):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.node = node
        self.exc = exc


def is_internal(d: Diagnostic) -> bool:
    """T2T9xx: a bug of tile2triton rather than a problem with the input."""
    return d.code.startswith("T2T9")


@dataclass
class SourceFile:
    path: str
    text: str
    lines: list[str] = field(init=False)

    def __post_init__(self):
        self.lines = self.text.splitlines()

    def line_text(self, line: int) -> str | None:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return None
