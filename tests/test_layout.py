"""layout.py lays generated statements out as `ruff format --line-length 100` does.

Checked against ruff itself (a test dependency): random statements of the shapes the translator
writes (calls, subscripts, operator chains, tuples, comparisons, conditional expressions, at
several indentation depths, with names long enough to force every kind of break) are laid out
by the engine and must then be left unchanged by ruff, and mean the same (`ast.dump`). Also the
engine must leave ruff-formatted code as it is (the corpus kernels, formatted by ruff first).
"""
import ast
import keyword
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import libcst as cst
import pytest

# the `test` extra installs ruff (CI always runs this; tests/test_packaging.py checks the extra)
pytest.importorskip("ruff")

from tile2triton.emit.layout import Layout, lay_out

ROOT = Path(__file__).resolve().parents[1]


def ruff_format(*texts: str) -> list:
    """`ruff format --line-length 100` of each text, in one ruff run."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"m{i}.py" for i in range(len(texts))]
        for path, text in zip(paths, texts):
            path.write_text(text)
        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", "--no-cache",
                        "--line-length", "100", tmp], check=True)
        return [path.read_text() for path in paths]


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def name(self):
        text = "".join(self.r.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(
            self.r.choice([1, 3, 6, 10, 18]))).lstrip("_") or "v"
        return text + "_" if keyword.iskeyword(text) else text

    def atom(self):
        k = self.r.random()
        if k < 0.5:
            return self.name()
        if k < 0.7:
            return str(self.r.randint(0, 4096))
        if k < 0.8:
            return repr(round(self.r.uniform(-9, 9), self.r.randint(1, 6)))
        if k < 0.9:
            return f"{self.name()}.{self.name()}"
        return '"' + self.name() + '"'

    def expr(self, depth=0):
        if depth > 3:
            return self.atom()
        k = self.r.random()
        if k < 0.25:
            return self.atom()
        if k < 0.45:  # a call, maybe with keywords and a star argument
            args = [self.expr(depth + 1) for _ in range(self.r.randint(0, 6))]
            if self.r.random() < 0.3:
                args.append(f"{self.name()}={self.expr(depth + 1)}")
            if self.r.random() < 0.1:
                args.append(f"*{self.name()}")
            return f"{self.callee()}({', '.join(args)})"
        if k < 0.55:
            index = self.r.choice([f"{self.expr(depth + 1)}", ":, None", "None, :",
                                   f"{self.name()} : {self.name()} + 1", ":"])
            return f"{self.name()}[{index}]"
        if k < 0.8:
            op = self.r.choice(["+", "-", "*", "/", "//", "%", "&", "|", "<<"])
            return f"{self.operand(depth)} {op} {self.operand(depth)}"
        if k < 0.85:  # redundant parentheses (not around a tuple: ruff's rules for those
            # depend on the position, and the translator never writes them)
            text = self.expr(depth + 1)
            return text if text.startswith("(") else f"({text})"
        if k < 0.9:
            op = self.r.choice(["<", "<=", "==", "!="])
            return f"{self.operand(depth)} {op} {self.operand(depth)}"
        if k < 0.95:
            items = [self.expr(depth + 1) for _ in range(self.r.randint(1, 5))]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return f"{self.operand(depth)} if {self.operand(depth)} else {self.operand(depth)}"

    def operand(self, depth):
        text = self.expr(depth + 1)
        return f"({text})" if " if " in text else text

    def callee(self):
        return self.r.choice(["tl.load", "tl.store", "tl.where", "_helper", self.name(),
                              f"{self.name()}.to"])

    def statement(self):
        k = self.r.random()
        if k < 0.5:
            return f"{self.name()} = {self.expr()}"
        if k < 0.6:
            return f"{self.name()} += {self.expr()}"
        if k < 0.7:
            return f"return {self.expr()}"
        if k < 0.85:
            return f"{self.callee()}({', '.join(self.expr(1) for _ in range(4))})"
        return f"{self.name()}[{self.name()}] = {self.expr()}"


def _random_module(seed: int, n: int) -> str:
    g = _Gen(seed)
    lines = []
    for i in range(n):
        lines.append(f"def f{i}():")
        depth = g.r.randint(0, 3)
        for d in range(1, depth + 1):  # statements nested in `if`/`while` blocks
            lines.append("    " * d + g.r.choice(["if", "while"]) + f" {g.expr(2)}:")
        lines.append("    " * (depth + 1) + g.statement())
        lines += ["", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def test_random_statements_are_laid_out_as_ruff_would():
    sources = [_random_module(seed, 100) for seed in (1, 2, 3)]
    laid = [cst.parse_module(source).visit(Layout()).code for source in sources]
    for source, text in zip(sources, laid):
        assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source)), "layout changed meaning"
        long_before = sum(len(line) > 100 for line in source.splitlines())
        assert long_before > 20, "the generator must produce lines that need breaking"
    for text, formatted in zip(laid, ruff_format(*laid)):
        if formatted != text:
            import difflib
            diff = "\n".join(difflib.unified_diff(text.splitlines(), formatted.splitlines(),
                                                  "layout", "ruff", lineterm="", n=2))
            pytest.fail(f"ruff would change the engine's layout:\n{diff[:6000]}")


def test_ruff_formatted_code_is_left_as_it_is():
    """The corpus kernels, formatted by ruff, are a fixed point of the engine (it would
    otherwise undo a formatter's work in the kernels it translates)."""
    sources = [p.read_text() for p in sorted(ROOT.glob("corpus/*/kernel.py"))]
    assert len(sources) > 30
    for formatted in ruff_format(*sources):
        assert cst.parse_module(formatted).visit(Layout()).code == formatted


EXAMPLES = [
    # a Triton load too long for a line: its arguments on one indented line
    ("x = tl.load(x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1, "
     "mask=mask_x, other=0.0)",
     "x = tl.load(\n    x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1, "
     "mask=mask_x, other=0.0\n)"),
    # parentheses around a whole test are dropped
    ("if (shape0 > 0):\n    pass", "if shape0 > 0:\n    pass"),
    # an operator chain breaks in added parentheses, before its operators
    ("ptrs = ptr + offs0[:, None, None] * stride0 + offs1[None, :, None] * stride1 + "
     "offs2[None, None, :] * stride2",
     "ptrs = (\n    ptr\n    + offs0[:, None, None] * stride0\n    + offs1[None, :, None] * stride1"
     "\n    + offs2[None, None, :] * stride2\n)"),
    # a trailing comma keeps one item per line
    ("f(a, b,)", "f(\n    a,\n    b,\n)"),
    # a comment inside an expression: left as written
    ("x = f(a,  # why\n      b)", "x = f(a,  # why\n      b)"),
    # `**` hugs simple operands; numbers in lower case; double quotes
    ("y = x ** 2 + 1E5 + 0XFF + 'a'", 'y = x**2 + 1e5 + 0xFF + "a"'),
]


def test_examples():
    outs = [lay_out(cst.parse_module(source + "\n")).code for source, _ in EXAMPLES]
    for (source, expected), out in zip(EXAMPLES, outs):
        assert out == expected + "\n"
    # and ruff agrees (generated code has no comments inside expressions)
    checked = [out for (source, _), out in zip(EXAMPLES, outs) if "#" not in source]
    assert ruff_format(*checked) == checked
