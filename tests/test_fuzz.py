"""Fuzzing with a small fixed budget (long runs: `python -m tile2triton.verify.fuzz --n 10000`, see
docs/robustness.md): the translator never raises, never reports an internal error, and every
module it writes compiles."""
import random

import pytest

# the `test` extra installs hypothesis (CI always runs this; tests/test_packaging.py checks the
# extra); the GPU machine has no hypothesis
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tile2triton.verify import fuzz
from tile2triton.diagnostics import is_internal
from tile2triton.translate import translate_source


def _check(src: str):
    try:
        result = translate_source(src, "generated.py")
    except BaseException as e:  # noqa: BLE001 - the finding
        pytest.fail(f"translate_source raised {type(e).__name__}: {e}\n--- input ---\n{src}")
    internal = [d.format() for d in result.diagnostics() if is_internal(d)]
    assert not internal, "\n".join(internal) + "\n--- input ---\n" + src
    if result.output is not None and result.has_cutile:
        compile(result.output, "translated.py", "exec")
    return result


# --------------------------------------------------------------- generated kernels (hypothesis)
ATOMS = ["t", "u", "T", "i", "0", "1", "-1", "2", "3.5", "1e30", "True", "None", "(T,)",
         "x.shape[0]", "t.shape", "x.dtype", "ct.float32", "ct.int32", "ct.bid(0)",
         "ct.num_blocks(0)", "ct.PaddingMode.ZERO", "(1, 2)", "'s'"]
UNARY = ["-", "~", "not ", "+"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "==",
          " and ", " or "]
CALLS = ["ct.exp", "ct.sum", "ct.max", "ct.astype", "ct.reshape", "ct.permute", "ct.where",
         "ct.full", "ct.mma", "ct.cdiv", "ct.minimum", "ct.transpose", "ct.cumsum", "ct.arange",
         "ct.broadcast_to", "ct.extract", "min", "max", "float", "int", "abs", "len", "helper"]


@st.composite
def expressions(draw, depth=0):
    kind = draw(st.integers(0, 5 if depth < 3 else 0))
    if kind == 0:
        return draw(st.sampled_from(ATOMS))
    if kind == 1:
        return draw(st.sampled_from(UNARY)) + "(" + draw(expressions(depth + 1)) + ")"
    if kind in (2, 3):
        op = draw(st.sampled_from(BINARY))
        return f"({draw(expressions(depth + 1))}{op}{draw(expressions(depth + 1))})"
    if kind == 4:
        args = draw(st.lists(expressions(depth + 1), max_size=3))
        kw = draw(st.sampled_from(["", ", axis=0", ", dtype=ct.float32", ", shape=(T,)"]))
        return f"{draw(st.sampled_from(CALLS))}({', '.join(args)}{kw})"
    return f"{draw(expressions(depth + 1))}[{draw(st.sampled_from(['0', '-1', '5', ':, None']))}]"


@st.composite
def statements(draw, indent=1, loop=False):
    pad = "    " * indent
    kind = draw(st.integers(0, 6 if indent < 3 else 2))
    if kind in (0, 1):
        return f"{pad}{draw(st.sampled_from(['t', 'u', 'i']))} = {draw(expressions())}\n"
    if kind == 2:
        if loop and draw(st.booleans()):
            return pad + draw(st.sampled_from(["break", "continue"])) + "\n"
        return f"{pad}ct.store(y, (0,), {draw(expressions())})\n"
    body = "".join(draw(st.lists(statements(indent + 1, loop or kind >= 4), min_size=1,
                                 max_size=3)))
    if kind == 3:
        return f"{pad}if {draw(expressions())}:\n{body}"
    if kind == 4:
        return f"{pad}for i in range({draw(expressions())}):\n{body}"
    if kind == 5:
        return f"{pad}while {draw(expressions())}:\n{body}"
    return f"{pad}t = helper(t)\n"


@st.composite
def modules(draw):
    body = "".join(draw(st.lists(statements(), min_size=1, max_size=5)))
    return ("import cuda.tile as ct\n\n\ndef helper(a):\n    return a + 1\n\n\n"
            "@ct.kernel\ndef k(x, y, T: ct.Constant[int]):\n"
            "    t = ct.load(x, (ct.bid(0),), (T,))\n    u = t\n    i = 0\n" + body)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(modules())
def test_generated_kernels_never_crash_the_translator(src):
    _check(src)


# ------------------------------------------------------------------ mutants of the corpus
def test_mutation_fuzzer_finds_no_bugs_in_a_small_fixed_budget():
    """A few hundred corpus mutants, in worker subprocesses (hangs and crashes are caught)."""
    res = fuzz.run(n=150, seed=20261201, batch=150, timeout=60)
    bugs = [f for f in res["findings"]]
    assert not bugs, "\n".join(f"input {i}: {o}: {d}" for i, o, d in bugs) + \
        "\nreproduce: python -m tile2triton.verify.fuzz --seed 20261201 --start I --n 1 --save DIR"
    assert sum(res["counts"].values()) == 150
    # the mutants exercise both outcomes, or the fuzzer is not testing much
    assert res["counts"].get("translated", 0) > 10 and res["counts"].get("diagnostic", 0) > 10


def test_fuzzer_reports_hangs_and_crashes(monkeypatch):
    """The harness itself: a worker that stops answering is a hang, one that dies on a signal
    a crash, and the run goes on with the next input (T2T_FUZZ_SELFTEST makes the worker hang
    on input 2 and segfault on input 4)."""
    monkeypatch.setenv("T2T_FUZZ_SELFTEST", "1")
    res = fuzz.run(n=6, seed=0, batch=6, timeout=15)  # inputs: well under 1 s
    found = sorted((i, o) for i, o, _ in res["findings"])
    assert found == [(2, "hang"), (4, "crash")], res
    assert sum(res["counts"].values()) == 6


def test_lines_written_together_are_read_without_waiting():
    """The CI failure of stop 30: a worker's "start" and "done" lines that reach the pipe in one
    write were read into a buffer select() does not see, and the input was called a hang."""
    import os
    import time

    from tile2triton.verify.pipe_lines import PipeLines
    r, w = os.pipe()
    try:
        os.write(w, b'{"start": 0}\n{"done": 0}\npartial')
        lines = PipeLines(r)
        t0 = time.monotonic()
        assert lines.next(t0 + 5) == b'{"start": 0}'
        assert lines.next(t0 + 5) == b'{"done": 0}'
        assert time.monotonic() - t0 < 2
        assert lines.next(time.monotonic() + 0.2) is None  # an unfinished line is not a line
        os.close(w)
        w = None
        with pytest.raises(EOFError):
            lines.next(time.monotonic() + 5)
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def test_mutations_are_reproducible():
    seeds = fuzz.seed_files()
    assert len(seeds) >= 20
    a = [fuzz.generate(seeds, 5, i) for i in range(20)]
    b = [fuzz.generate(seeds, 5, i) for i in range(20)]
    assert a == b and len({t for _, t in a}) > 15
    rng = random.Random(1)
    assert fuzz.mutate(seeds[0][1], rng) != seeds[0][1] or fuzz.mutate(seeds[0][1], rng)


# ------------------------------------------------- file-level mutation classes (issue 22)
def test_mutation_classes_of_issue_22_are_generated():
    """PEP 263 coding lines, file names with control characters, line-break characters other
    than "\\n", and huge compile-time values each occur in a few hundred inputs."""
    seeds = fuzz.seed_files()
    inputs = [fuzz.generate_file(seeds, 9, i) for i in range(300)]
    coded = [d for _, _, d in inputs if b"coding" in b"".join(d.split(b"\n", 2)[:2])]
    named = [n for _, n, _ in inputs if n != fuzz.PLAIN_NAME]
    controls = [n for n in named if any(not c.isprintable() for c in n)]
    breaks = [d for _, _, d in inputs if any(c.encode() in d for c in fuzz.LINE_BREAKS[:8])]
    huge = [d for _, _, d in inputs if any(v.encode() in d for v in fuzz.HUGE_VALUES)]
    assert len(coded) > 15 and len(controls) > 10 and len(breaks) > 15 and len(huge) > 15
    assert any(b"coding: hex" in d or b"coding=hex" in d for d in coded) or len(coded) > 30


GOOD_KERNEL = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''


def test_classifier_sees_what_convert_would_write(monkeypatch):
    """The checks behind `bad-output`: the written bytes compile, the file name changes only
    the header comment, and the --diff diff rebuilds the translation."""
    from tile2triton.cli import convert as cli
    from tile2triton.emit import module as emit
    assert fuzz.classify(GOOD_KERNEL.encode(), "k\n__import__('os')\n#.py")[0] == "translated"
    assert fuzz.classify(b"# coding: hex\n" + GOOD_KERNEL.encode()) == ("diagnostic", "T2T004")
    # a file without a final newline: the diff's marker follows the removed last line
    assert fuzz.classify(b"import cuda.tile as ct\n\nConstInt = ct.Constant[int]") == (
        "translated", "")
    # a header that lets the file name out of its comment is caught
    monkeypatch.setattr(emit, "comment_safe", lambda s: s, raising=False)
    real_header = emit.with_header
    monkeypatch.setattr(emit, "with_header", lambda code, path: real_header(code, path)
                        .replace("# Translated from ", "# Translated from " + path + "\nx = 1\n#"))
    outcome, detail = fuzz.classify(GOOD_KERNEL.encode(), "evil.py")
    assert outcome == "bad-output" and "changed the code" in detail
    monkeypatch.setattr(emit, "with_header", real_header)
    # a diff split where git does not split is caught
    monkeypatch.setattr(cli, "source_lines", lambda data: data.splitlines(True))
    outcome, detail = fuzz.classify(GOOD_KERNEL.replace("\n", "\r").encode())  # lone CRs
    assert outcome == "bad-output" and detail.startswith("--diff")
