"""Diagnostics: each user error has its code, points at the construct, says what to do, and
never leaks the translator's internals; other kernels of the file still translate."""
import pytest

from tile2triton import translate_source
from tile2triton.registry import load_patterns

PRELUDE = "import cuda.tile as ct\n\n\n"

CASES = [
    # (kernel source, code, line, col, message part)
    ("""@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    ct.store(y, (0,), ct.full((TILE,), 0, dtype=x.dtype))
""", "T2T104", 5, 7, "cannot infer the rank of array parameter `x`"),
    ("""@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.mma_fancy(t))
""", "T2T100", 7, 23, "ct.mma_fancy is not supported"),
    ("""@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    with open("f") as f:
        pass
""", "T2T101", 7, 10, "a `with` statement in a kernel must enter a generator context"),
    ("""@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), t + undefined_thing)
""", "T2T107", 7, 27, "unknown name `undefined_thing`"),
    ("""@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,), padding_mode=ct.PaddingMode.ZERO, bogus=1)
""", "T2T102", 6, 9, "unexpected keyword argument 'bogus'"),
    ("""@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), t.astype(ct.float8_e8m0fnu))
""", "T2T106", 7, 32, "ct.float8_e8m0fnu has no Triton equivalent"),
    ("""@ct.kernel
def k(*arrays):
    pass
""", "T2T108", 5, 7, "*args or **kwargs"),
]


@pytest.mark.parametrize("src,code,line,col,message", CASES, ids=[c[1] for c in CASES])
def test_diagnostic(src, code, line, col, message):
    result = translate_source(PRELUDE + src, "user_kernels.py")
    assert not result.ok
    d = result.diagnostics()[0]
    assert d.code == code, d.format()
    assert message in d.message, d.format()
    if line is not None:
        assert (d.line, d.col) == (line, col), d.format()
    text = d.format()
    assert text.startswith(f"user_kernels.py:{d.line}:{d.col}: {code} ")
    lines = text.splitlines()
    assert lines[1].startswith(f"{d.line} | ")  # the source line
    caret = lines[2]
    assert caret.strip() and set(caret.strip()) == {"^"}
    assert caret.index("^") == lines[1].index(" | ") + 3 + d.col - 1  # under the construct
    assert lines[-1].startswith("help: ") and len(lines[-1]) > len("help: ")
    for internal in ("lower.py", "pattern_api", "Traceback", "tile2triton/"):
        assert internal not in text, f"internal detail leaked: {text}"


def test_other_kernels_still_translate():
    src = PRELUDE + """@ct.kernel
def bad(x, TILE: ct.Constant[int]):
    ct.store(x, (0,), ct.nope(1))


@ct.kernel
def good(x, TILE: ct.Constant[int]):
    ct.store(x, (0,), ct.full((TILE,), 1.0, dtype=ct.float32))
"""
    result = translate_source(src, "two.py")
    status = {k.kernel: k.status for k in result.kernels}
    assert status == {"bad": "failed", "good": "translated"}
    assert result.output is None  # the file is not written half-translated


def test_internal_error_is_reported_with_location(monkeypatch):
    pattern = load_patterns()["bid"]

    def boom(self, call, cx):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(type(pattern), "lower", boom)
    result = translate_source(PRELUDE + """@ct.kernel
def k(x, TILE: ct.Constant[int]):
    ct.store(x, (ct.bid(0),), ct.full((TILE,), 1.0, dtype=ct.float32))
""", "internal.py")
    d = result.diagnostics()[0]
    assert d.code == "T2T900" and "internal error" in d.message and "simulated bug" in d.message
    # located at the node being lowered (`ct.bid(0)`), not at the `def` line
    assert (d.line, d.col) == (6, 18), d.format()
    assert d.format().splitlines()[2].strip() == "^" * len("ct.bid(0)")


def test_rank_from_local_tuples():
    """Index and shape tuples bound to local names still give the array's rank."""
    result = translate_source(PRELUDE + """@ct.kernel
def k(x, y):
    idx = (0, 0)
    shp = (16, 16)
    t = ct.load(x, idx, shp)
    ct.store(y, idx, t)
""", "tuples.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
    # (both dimensions' offsets are one vector: the same 16 elements)
    assert "t = tl.load(x_ptr + offs0[:, None] * x_stride0 + offs0[None, :] * x_stride1, " \
        "mask=mask_x)" in result.output
