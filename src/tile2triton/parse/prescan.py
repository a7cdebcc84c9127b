"""A cheap prescan of the source's nesting depth, run before libcst parses it.

libcst's native parser recurses on nesting (about 1,280 nested parentheses crash the process),
and every later stage walks the tree recursively. Python itself refuses 200 nested parentheses
and 100 indentation levels; real kernels stay far below both. So the prescan bounds the depth of
the tree a file can produce, from tokens alone, and the file is refused with a located T2T002
beyond a fixed budget.

The bound for a point in a logical line is: open brackets, plus the operators seen since the last
`,` or `=` at each open bracket level (each operator, attribute dot, call or subscript trailer,
keyword operator and adjacent string literal can add one level to the tree), plus the indentation
level (each block adds statement and suite nodes).
"""
from __future__ import annotations

import io
import tokenize
from typing import Optional

# Depth budget for one point of the source (see the module docstring for what is counted).
MAX_DEPTH = 100
# Keyword tokens that nest an expression: `not not x`, `a if b else c if ...`, `lambda: lambda:`.
_NESTING_KEYWORDS = {"not", "and", "or", "if", "else", "lambda", "await", "in", "is", "for",
                     "yield", "from", "async"}
_OPEN, _CLOSE = "([{", ")]}"
_RESET = {",", ";", "="}


def too_deep(text: str) -> Optional[tuple[int, int, int]]:
    """(line, 0-based column, depth) of the first point deeper than MAX_DEPTH, else None."""
    try:
        return _scan_tokens(text)
    except Exception:  # noqa: BLE001 - any tokenizer failure: fall back to the bracket bound
        # Not valid Python; libcst reports the syntax error. Its tokenizer stops at the first
        # error, but its parser may still see what precedes it: bound the raw bracket depth.
        return _scan_brackets(text)


def _scan_tokens(text: str):
    stack = [0]  # per open bracket level: nesting tokens since the last separator
    indent = 0
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        kind, s = tok.type, tok.string
        if kind == tokenize.INDENT:
            indent += 1
        elif kind == tokenize.DEDENT:
            indent -= 1
        elif kind == tokenize.NEWLINE:
            stack = [0]
        elif kind == tokenize.OP:
            if s in _OPEN:
                stack[-1] += 1  # a trailer `f(...)`/`a[...]` or a parenthesised atom
                stack.append(0)
            elif s in _CLOSE:
                if len(stack) > 1:
                    stack.pop()
            elif s in _RESET:
                stack[-1] = 0
            else:
                stack[-1] += 1
        elif kind == tokenize.NAME and s in _NESTING_KEYWORDS:
            stack[-1] += 1
        elif kind == tokenize.STRING and prev == tokenize.STRING:
            stack[-1] += 1  # implicit concatenation nests
        if kind not in (tokenize.NL, tokenize.COMMENT):
            prev = kind
        depth = len(stack) - 1 + sum(stack) + indent
        if depth > MAX_DEPTH:
            return tok.start[0], tok.start[1], depth
    return None


def _scan_brackets(text: str):
    depth, line, col = 0, 1, 0
    for ch in text:
        if ch in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                return line, col, depth
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        if ch == "\n":
            line, col = line + 1, 0
        else:
            col += 1
    return None
