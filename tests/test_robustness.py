"""No internal errors: inputs that used to crash the translator get a located diagnostic (or a
translation), and limits are refused before anything recursive sees the input."""
import pytest

from tile2triton import translate_source
from tile2triton.diagnostics import is_internal
from tile2triton.parse.prescan import MAX_DEPTH, too_deep
from tile2triton.lower.module import MAX_HELPER_DEPTH

PRELUDE = "import cuda.tile as ct\n\n\n"
HEAD = PRELUDE + "@ct.kernel\ndef k(x, y, T: ct.Constant[int]):\n    t = ct.load(x, (0,), (T,))\n"
# line 7 is the first line after HEAD


def _first(src: str):
    result = translate_source(src, "fuzzed.py")
    assert not result.ok
    diags = result.diagnostics()
    assert diags, "a failed translation must say why"
    return diags[0]


# (name, kernel body after HEAD, code, line, col, message part)
ROOT_CAUSES = [
    ("break outside a loop", "    break\n", "T2T001", 7, 5, "'break' outside loop"),
    ("continue outside a loop", "    if T > 2:\n        continue\n", "T2T001", 8, 9,
     "'continue' not properly in loop"),
    ("break in host code", "def host():\n    break\n", "T2T001", 8, 5, "'break' outside loop"),
    ("return outside a function", "return 1\n", "T2T001", 7, 1, "'return' outside function"),
    ("~ on a float constant", "    ct.store(y, (0,), t + ~1.5)\n", "T2T120", 7, 27,
     "bad operand type for unary ~"),
    ("~ on a float tile", "    ct.store(y, (0,), ~t.astype(ct.float32))\n", "T2T106", 7, 23,
     "not defined on floats"),
    ("cdiv by zero", "    ct.store(y, (0,), t + ct.cdiv(4, 0))\n", "T2T120", 7, 27,
     "division by zero"),
    ("floor division by zero", "    ct.store(y, (0,), t + 4 // 0)\n", "T2T120", 7, 27,
     "division by zero"),
    ("unknown enum member",
     "    u = ct.load(x, (0,), (T,), padding_mode=ct.PaddingMode.BOGUS)\n", "T2T100", 7, 45,
     "ct.PaddingMode has no member `BOGUS`"),
    ("permute with the wrong number of axes",
     "    u = ct.full((T, 4), 1.0, dtype=ct.float32)\n"
     "    ct.store(y, (0, 0), ct.permute(u, (1, 0, 2)))\n",
     "T2T105", 8, 40, "not a permutation of the 2 axes"),
    ("mma on scalars", "    ct.store(y, (0,), t + ct.mma(1.0, 2.0, 3.0))\n", "T2T105", 7, 27,
     "operands must be 2-D or 3-D tiles"),
    ("array shape index out of range", "    ct.store(y, (0,), t + x.shape[5])\n", "T2T105", 7,
     35, "index 5 is out of range for a tuple of 1 item"),
    ("tile shape index out of range", "    ct.store(y, (0,), t + t.shape[-2])\n", "T2T105", 7,
     35, "index -2 is out of range"),
    ('float("abc")', '    ct.store(y, (0,), t + float("abc"))\n', "T2T120", 7, 27,
     "could not convert string to float"),
    ("float overflow", "    ct.store(y, (0,), t + 10.0 ** 400)\n", "T2T120", 7, 27,
     "the result is too large"),
    ("int too large for a float", "    ct.store(y, (0,), t + float(2 ** 1100))\n", "T2T120", 7,
     33, "far too large"),
    ("huge power is refused, not computed", "    ct.store(y, (0,), t + 7 ** 10 ** 9)\n",
     "T2T120", 7, 27, "far too large"),
    ("huge string repetition is refused, not allocated",
     "    ct.store(y, (0,), t + len('a' * 10 ** 10))\n", "T2T120", 7, 31, "far too long"),
    ("ct.full with a string", "    ct.store(y, (0,), t + ct.full((T,), 'abc', dtype=ct.float32))\n",
     "T2T102", 7, 41, "fill_value must be a number"),
    ("tuple index out of range", "    a = (1, 2)\n    ct.store(y, (0,), t + a[5])\n", "T2T105",
     8, 29, "index 5 is out of range for a tuple of 2 items"),
    ("literal tuple index out of range", "    ct.store(y, (0,), t + (1, 2)[-3])\n", "T2T105",
     7, 34, "index -3 is out of range"),
    ("for header with break: error in range()",
     "    for i in range(undefined_n):\n        if i > 3:\n            break\n", "T2T107", 7, 20,
     "unknown name `undefined_n`"),
    ("for header with break: error in the step",
     "    for i in range(0, 8, -ct.nope(1)):\n        if i > 3:\n            break\n", "T2T100",
     7, 27, "ct.nope is not supported"),
    ("while header with break",
     "    while undefined_w:\n        break\n", "T2T107", 7, 11, "unknown name `undefined_w`"),
]


@pytest.mark.parametrize("body,code,line,col,message", [c[1:] for c in ROOT_CAUSES],
                         ids=[c[0] for c in ROOT_CAUSES])
def test_root_cause_is_a_located_diagnostic(body, code, line, col, message):
    d = _first(HEAD + body)
    assert (d.code, d.line, d.col) == (code, line, col), d.format()
    assert message in d.message, d.format()
    assert d.source_line is not None and d.help


def test_huge_factorial_is_refused_not_computed():
    """math.factorial(10**6) used to take 110 s (a hang for the fuzzer)."""
    d = _first("import math\n" + HEAD + "    ct.store(y, (0,), t + math.factorial(10 ** 6))\n")
    assert (d.code, d.line, d.col) == ("T2T103", 8, 27) and "far too large" in d.message


def test_slice_view_made_in_a_helper_translates():
    """`.slice()` inside a helper: the view's uses give the rank of the caller's array."""
    src = PRELUDE + """def first4(a):
    s = a.slice(0, 2, 6)
    return ct.load(s, (0,), (4,))


@ct.kernel
def k(x, y):
    ct.store(y, (0,), first4(x))
"""
    result = translate_source(src, "view.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
    assert "def first4(a_ptr, a_shape0, a_stride0, USE_INT64: tl.constexpr):" in result.output


def _helper_chain(n: int, inner: str = "    return a\n") -> str:
    helpers = "".join(f"def h{i}(a):\n    return h{i + 1}(a) + 1\n\n\n" for i in range(n))
    return (PRELUDE + helpers + f"def h{n}(a):\n{inner}\n\n"
            "@ct.kernel\ndef k(x, y):\n    t = ct.load(x, (0,), (4,))\n"
            "    ct.store(y, (0,), h0(t))\n")


def test_long_helper_chain_is_refused_at_the_call():
    d = _first(_helper_chain(130))
    assert d.code == "T2T002" and f"more than {MAX_HELPER_DEPTH} deep" in d.message
    assert d.source_line.strip() == f"return h{MAX_HELPER_DEPTH}(a) + 1"


def test_deep_parentheses_are_refused_before_the_parser():
    """1,281 nested parentheses crash libcst's native parser; the prescan refuses first."""
    d = _first(HEAD + "    ct.store(y, (0,), " + "(" * 1281 + "t" + ")" * 1281 + ")\n")
    assert (d.code, d.line) == ("T2T002", 7) and "nested too deeply" in d.message


def test_deep_nesting_in_invalid_python_is_refused():
    """A file the tokenizer rejects still gets the bracket bound (libcst's parser could see
    what precedes the error)."""
    d = _first(HEAD + "    u = " + "[" * 5000 + "\n    'unterminated\n")
    assert d.code == "T2T002"


# Expression shapes that nest, each written as a function of its repetition count.
NESTERS = {
    "parentheses": lambda n: "(" * n + "a" + ")" * n,
    "binary operators": lambda n: "a" + " + a" * n,
    "unary operators": lambda n: "-" * n + "a",
    "calls": lambda n: "ct.exp(" * n + "a" + ")" * n,
    "conditional expressions": lambda n: "a if a > 0 else " * n + "a",
    "subscripts": lambda n: "a" + "[:, None]" * n,
    "string concatenation": lambda n: "'s' " * n,
}


def _deepest(make) -> int:
    """The largest repetition count the prescan accepts in `return <expr>` in a helper."""
    lo, hi = 0, 4 * MAX_DEPTH
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if too_deep(f"def f(a):\n    return {make(mid)}\n") is None:
            lo = mid
        else:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("kind", list(NESTERS))
def test_deepest_accepted_nesting_is_handled_without_internal_error(kind):
    """What the prescan lets through, at the end of the longest helper chain allowed, stays
    inside Python's recursion limit in every stage (a diagnostic is fine, a crash is not)."""
    n = _deepest(NESTERS[kind])
    assert 0 < n < MAX_DEPTH + 1
    assert too_deep(f"def f(a):\n    return {NESTERS[kind](n + 1)}\n") is not None
    src = _helper_chain(MAX_HELPER_DEPTH - 1, f"    return {NESTERS[kind](n)}\n")
    result = translate_source(src, "deep.py")
    assert not any(is_internal(d) for d in result.diagnostics()), \
        [d.format() for d in result.diagnostics()]


def _nested_ifs(depth: int) -> str:
    """`depth` nested ifs inside a loop, the innermost one breaking out of it."""
    body = "    for j in range(4):\n"
    body += "".join("    " * (i + 2) + f"if j > {i % 3}:\n" for i in range(depth))
    body += "    " * (depth + 2) + "t = t + 1\n" + "    " * (depth + 2) + "break\n"
    return HEAD + body + "    ct.store(y, (0,), t)\n"


def test_deepest_accepted_blocks_are_handled_without_internal_error():
    depth = 1
    while too_deep(_nested_ifs(depth + 1)) is None:
        depth += 1
    assert depth > MAX_DEPTH // 3
    result = translate_source(_nested_ifs(depth), "blocks.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
