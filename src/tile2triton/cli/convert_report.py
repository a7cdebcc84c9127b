"""What `convert` prints on stderr about diagnostics: each one in full, up to a few of one code
per file (a test folder that uses `ct.store` on the host 160 times would otherwise print 160
near-identical blocks), then a per-code table at the end, as `ruff --statistics` does.

`-v` prints every diagnostic; machine formats (`--output-format`, `--json`) always carry all.
"""
from __future__ import annotations

from collections import Counter

from ..diagnostics import CODES, Diagnostic

# Full diagnostics of one code shown per file before the rest are counted on one line.
SHOWN_PER_FILE_AND_CODE = 3


class DiagnosticPrinter:
    """Formats diagnostics for the terminal, file by file, and keeps per-code statistics."""

    def __init__(self, show_all: bool = False, limit: int = SHOWN_PER_FILE_AND_CODE):
        self.limit = None if show_all else limit
        self.counts: Counter = Counter()
        self.first: dict[str, Diagnostic] = {}
        self.hidden = 0

    def file_text(self, diagnostics: list[Diagnostic]) -> list[str]:
        """The blocks to print for one file's diagnostics, in order; repeats of a code past
        the limit become one closing line per code."""
        shown: Counter = Counter()
        blocks, held = [], {}
        for d in diagnostics:
            self.counts[d.code] += 1
            self.first.setdefault(d.code, d)
            shown[d.code] += 1
            if self.limit is None or shown[d.code] <= self.limit:
                blocks.append(d.format() + "\n")
            else:
                held.setdefault(d.code, d.path)
        for code, path in held.items():
            n = shown[code] - self.limit
            self.hidden += n
            blocks.append(f"{path}: {n} more {code} ({CODES.get(code, 'diagnostic')}) not "
                          "shown; -v shows every diagnostic\n")
        return blocks

    def statistics(self) -> str:
        """One line per code, most frequent first: count, code, first location, what it means.
        Empty when nothing was reported."""
        if not self.counts:
            return ""
        rows = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        width = len(str(rows[0][1]))
        where = {code: f"{d.path}:{d.line}:{d.col}" for code, d in self.first.items()}
        where_width = max(len(where[code]) for code, _ in rows)
        lines = ["Diagnostics by code (count, code, first location, meaning):"]
        for code, n in rows:
            lines.append(f"  {n:>{width}}  {code}  {where[code]:<{where_width}}  "
                         f"{CODES.get(code, '')}".rstrip())
        if self.hidden:
            lines.append(f"  ({self.hidden} repeated diagnostic{'s' if self.hidden != 1 else ''}"
                         f" not shown above; -v shows them)")
        return "\n".join(lines)
