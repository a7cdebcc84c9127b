"""Mutation fuzzer: the translator must never crash, hang or report an internal error.

    python -m tile2triton.verify.fuzz --n 10000                  # mutants of the corpus kernels
    python -m tile2triton.verify.fuzz --n 10000 --extra DIR      # ... and of every cuTile file in DIR
    python -m tile2triton.verify.fuzz --n 200 --seed 7 --save fuzz-failures/

Each input is a seed file (a corpus kernel, or a file from `--extra`) with one to three random
mutations: lines deleted, duplicated, swapped, re-indented or truncated; literals, operators,
names, cuda.tile attributes and keywords replaced (including names the translator generates,
such as `a_shape0` or `launch_k`); `break`/`continue`/`return` inserted; expressions nested deep;
stray characters inserted; line-break characters other than "\\n" (form feeds, \\x0b,
\\x1c-\\x1e, \\x85, U+2028/9, lone \\r) anywhere, also at the start of indented lines; huge
compile-time values (`(1,) * 10**6`, `s = s + s` repeated, `"%0999999999d" % 1`, giant powers and
shifts). A share of inputs also gets file-level mutations: a PEP 263 coding line naming any codec
(text or not: hex, rot13, punycode, utf-16, cp037, an unknown name), and a file name with control
characters, line breaks, quotes or undecodable bytes. Each input is read from its bytes as
`convert` reads a file; a translation is then also encoded in the file's own encoding and
compiled from those bytes (as Python would import it), translated again under a plain name (the
file name must change nothing but the header comment), and diffed with `--diff`'s diff, which
must rebuild the translation line for line. Inputs are generated from (seed, index), so a
failure is reproduced with `--seed S --start I --n 1`.

Inputs run in worker subprocesses, in batches. A worker that prints nothing for `--timeout`
seconds is killed and the input it was on counts as a hang; a worker that dies counts as a crash
for its current input; both restart at the next input. Outcomes:
  translated  the output is produced and is valid Python
  diagnostic  a located user-facing diagnostic (T2T0xx/T2T1xx)
  internal    a T2T9xx diagnostic (a translator bug)
  exception   an exception escaped translate_source (a translator bug)
  bad-output  the output does not compile as Python (a translator bug)
  hang, crash
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from .pipe_lines import PipeLines

BUGS = ("internal", "exception", "bad-output", "hang", "crash")

# Names the translator generates: mutating user names into these checks name hygiene.
GENERATED_NAMES = ["a_shape0", "x_stride0", "x_ptr", "tile_elems", "num_warps", "USE_INT64",
                   "_grid", "_as_tensor", "launch_k", "_load_tile_1d", "_broke_0", "_returned",
                   "tl", "triton", "torch", "hints", "stream", "grid", "_LAUNCHERS"]
CT_NAMES = ["load", "store", "bid", "num_blocks", "cdiv", "full", "zeros", "ones", "arange",
            "sum", "max", "min", "exp", "mma", "matmul", "permute", "transpose", "reshape",
            "astype", "where", "cumsum", "gather", "scatter", "atomic_add", "float32", "int32",
            "float16", "PaddingMode.ZERO", "PaddingMode.BOGUS", "Constant[int]", "nope",
            "num_tiles", "extract", "broadcast_to", "static_eval", "assert_", "printf"]
LITERALS = ["0", "1", "-1", "2", "3", "16", "0.0", "1.5", "-2.5", "2**31", "2**63", "10**400",
            "1e400", "float('nan')", "True", "None", "'abc'", "(1, 2)", "()", "(0, 0, 0)",
            "ct.float32", "4 // 0", "~1.5"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", ">",
             "==", "!=", "<=", ">=", " and ", " or ", " is ", " in "]
STATEMENTS = ["break", "continue", "return", "return 1", "pass", "del t", "global g",
              "assert False", "yield 1", "with x: pass", "import os", "x = yield",
              "for i in range(4): pass", "while True: break", "lambda: 0", "raise ValueError"]
STRAY = ["(", ")", "[", "]", ":", ",", "\\", "'", '"', "#", "\t", "\x00", "\ufeff", "é", "\r",
         "async ", "await ", "*", "**", "=", ";", ".", "@"]

# Characters Python or str.splitlines treat as line breaks, other than "\n".
LINE_BREAKS = ["\f", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\r\n",
               "\f\f", "\f    "]
# Compile-time values far past what any kernel holds (they must be refused before they are
# computed, never exhaust memory or time).
HUGE_VALUES = ["(1,) * 1000000", "(0, 1) * 10**9", "[0] * 10**7", "'a' * 10**10",
               "'%09999999999d' % 1", "'%.999999999f' % 1.5", "'%*d' % (10**9, 1)",
               "10 ** 10 ** 10", "1 << 10**10", "2 ** 100000", "int('9' * 5000)",
               "'ab' * 6000 + 'c' * 5000", "((1,) * 100,) * 100", "(1,) * 10000 + (2,)",
               "-(2 ** 64) * 2 ** 64", "1e308 * 10", "'x' * -5", "str(10 ** 4000)"]
HUGE_STATEMENTS = ["s = 'ab'\n" + "s = s + s\n" * 40, "t = (1, 2)\n" + "t = t + t\n" * 30,
                   "n = 2\n" + "n = n ** n\n" * 8]
# Codecs for a PEP 263 coding line: text encodings, codecs that are not text, unknown names.
CODECS = ["utf-8", "utf-8-sig", "latin-1", "ascii", "cp1252", "shift_jis", "euc-jp", "utf-7",
          "utf-16", "utf-32", "cp037", "idna", "punycode", "hex", "rot13", "base64", "zlib",
          "bz2", "uu", "quopri", "undefined", "mbcs", "no-such-codec", "UTF8", "latin_1"]
# Pieces of file names: line breaks that would end the header comment, controls, quotes,
# characters some encodings lack, and bytes that are not UTF-8 (as surrogate escapes).
NAME_PIECES = ["\n", "\r", "\r\n", "\t", "\x1b[31m", "\x7f", "\x85", "\u2028", "\u202e", "\f",
               "\x0b", "'", '"', "\\", "#", "模块", "é", "\udcff", "\udc80", " ", "$(x)", "`",
               "__import__('os').system('x')", "\n__import__('pathlib').Path('P').touch()\n#"]

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\*\*|//|<<|>>|[<>=!]=|"
                    r"\S")


def seed_files(extra: list[str] = ()) -> list[tuple[str, str]]:
    """(name, text) of the corpus kernels, plus cuTile files under the `extra` folders."""
    here = Path(__file__).resolve()
    roots = [p / "corpus" for p in here.parents[:4] if (p / "corpus").is_dir()]
    files = sorted(roots[0].glob("*/kernel.py")) if roots else []
    for d in extra:
        files += sorted(f for f in Path(d).rglob("*.py") if f.is_file())
    out = []
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "cuda.tile" in text or "import cuda" in text:
            out.append((str(f), text))
    return out


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.choice((1, 1, 2, 3))):
        text = rng.choice(_MUTATIONS)(text, rng)
    return text


def _lines(text):
    return text.split("\n")


def _kernel_line(lines, rng) -> int:
    """A line index, preferring lines inside functions (indented), where kernels are."""
    inside = [i for i, ln in enumerate(lines) if ln.startswith("    ") and ln.strip()]
    return rng.choice(inside) if inside and rng.random() < 0.85 else rng.randrange(len(lines))


def _delete_line(text, rng):
    lines = _lines(text)
    del lines[_kernel_line(lines, rng)]
    return "\n".join(lines)


def _duplicate_line(text, rng):
    lines = _lines(text)
    i = _kernel_line(lines, rng)
    lines.insert(i, lines[i])
    return "\n".join(lines)


def _swap_lines(text, rng):
    lines = _lines(text)
    i, j = _kernel_line(lines, rng), _kernel_line(lines, rng)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _reindent(text, rng):
    lines = _lines(text)
    i = _kernel_line(lines, rng)
    delta = rng.choice((-4, 4, 8, -1, 1))
    lines[i] = " " * max(0, len(lines[i]) - len(lines[i].lstrip()) + delta) + lines[i].lstrip()
    return "\n".join(lines)


def _truncate(text, rng):
    return text[:rng.randrange(len(text) + 1)]


def _insert_statement(text, rng):
    lines = _lines(text)
    i = _kernel_line(lines, rng)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    lines.insert(i + rng.choice((0, 1)), indent + rng.choice(STATEMENTS))
    return "\n".join(lines)


def _stray(text, rng):
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(STRAY) + text[i:]


def _replace_token(text, rng, predicate, choices):
    spans = [m.span() for m in _TOKEN.finditer(text) if predicate(m.group())]
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:a] + rng.choice(choices) + text[b:]


def _literal(text, rng):
    return _replace_token(text, rng, lambda t: t[0].isdigit(), LITERALS)


def _operator(text, rng):
    return _replace_token(text, rng, lambda t: t in OPERATORS or t in "+-*/%<>&|^@", OPERATORS)


def _name(text, rng):
    names = sorted({m.group() for m in _TOKEN.finditer(text) if m.group()[0].isalpha()})
    pool = names + GENERATED_NAMES
    return _replace_token(text, rng, lambda t: t[0].isalpha() or t[0] == "_", pool)


def _rename_everywhere(text, rng):
    """Rename one identifier consistently (a valid program that may collide with generated
    names)."""
    names = sorted({m.group() for m in _TOKEN.finditer(text)
                    if m.group()[0].isalpha() and m.group() not in ("ct", "cuda", "tile")})
    if not names:
        return text
    old = rng.choice(names)
    return re.sub(rf"\b{re.escape(old)}\b", rng.choice(GENERATED_NAMES + names), text)


def _ct_attribute(text, rng):
    spans = [m.span(1) for m in re.finditer(r"\bct\.([A-Za-z_]+)", text)]
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:a] + rng.choice(CT_NAMES) + text[b:]


def _nest(text, rng):
    """Wrap an argument-like span in many parentheses or unary operators."""
    spans = [m.span() for m in re.finditer(r"(?<=[(,=] )[A-Za-z_][A-Za-z_0-9.]*", text)]
    if not spans:
        return text
    a, b = rng.choice(spans)
    n = rng.choice((10, 60, 99, 101, 300, 1300))
    kind = rng.random()
    if kind < 0.5:
        new = "(" * n + text[a:b] + ")" * n
    elif kind < 0.8:
        new = "-" * n + text[a:b]
    else:
        new = " + ".join([text[a:b]] * n)
    return text[:a] + new + text[b:]


def _swap_args(text, rng):
    calls = list(re.finditer(r"\(([^()]*),\s*([^()]*)\)", text))
    if not calls:
        return text
    m = rng.choice(calls)
    return text[:m.start()] + f"({m.group(2)}, {m.group(1)})" + text[m.end():]


def _drop_arg(text, rng):
    calls = list(re.finditer(r",\s*[^,()]+(?=\))", text))
    if not calls:
        return text
    m = rng.choice(calls)
    return text[:m.start()] + text[m.end():]


def _line_break(text, rng):
    """A line-break character other than "\\n": at the start of an indented line (where it
    would reset Python's indentation column), or anywhere."""
    if rng.random() < 0.5:
        lines = _lines(text)
        i = _kernel_line(lines, rng)
        lines[i] = rng.choice(LINE_BREAKS) + lines[i]
        return "\n".join(lines)
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(LINE_BREAKS) + text[i:]


def _huge_value(text, rng):
    """A huge compile-time value: as a statement in a kernel, or replacing a literal."""
    if rng.random() < 0.4:
        return _replace_token(text, rng, lambda t: t[0].isdigit(), HUGE_VALUES)
    lines = _lines(text)
    i = _kernel_line(lines, rng)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    if rng.random() < 0.3:
        block = rng.choice(HUGE_STATEMENTS)
    else:
        block = f"{rng.choice(('z', 'g', 't', 's'))} = {rng.choice(HUGE_VALUES)}\n"
    lines[i:i] = [indent + ln for ln in block.rstrip("\n").split("\n")]
    return "\n".join(lines)


_MUTATIONS = [_delete_line, _duplicate_line, _swap_lines, _reindent, _truncate,
              _insert_statement, _stray, _literal, _literal, _operator, _operator, _name,
              _rename_everywhere, _ct_attribute, _ct_attribute, _nest, _swap_args, _drop_arg,
              _line_break, _line_break, _huge_value, _huge_value]


PLAIN_NAME = "fuzzed.py"


def generate(seeds: list, seed: int, index: int) -> tuple[str, str]:
    """The `index`-th input of run `seed`: (seed file name, mutated text)."""
    name, text, _ = _generate(seeds, seed, index)
    return name, text


def generate_file(seeds: list, seed: int, index: int) -> tuple[str, str, bytes]:
    """The `index`-th input as a file: (seed file name, the input's file name, its bytes)."""
    name, text, rng = _generate(seeds, seed, index)
    file_name, data = PLAIN_NAME, None
    roll = rng.random()
    if roll < 0.12:
        data = _coding_line(text, rng)
    elif roll < 0.24:
        file_name = "".join(rng.choice(("k", "_", "x")) + rng.choice(NAME_PIECES)
                            for _ in range(rng.choice((1, 1, 2, 3)))) + ".py"
    if data is None:
        data = text.encode("utf-8", "surrogateescape")
    return name, file_name, data


def _generate(seeds: list, seed: int, index: int):
    rng = random.Random(f"{seed}:{index}")
    name, text = seeds[rng.randrange(len(seeds))]
    return name, mutate(text, rng), rng


def _coding_line(text: str, rng: random.Random) -> bytes:
    """`text` under a PEP 263 coding line (line 1, or line 2 after a `#!` line), encoded in the
    codec it names where that works, else as UTF-8 (a declaration the bytes contradict)."""
    codec = rng.choice(CODECS)
    cookie = rng.choice((f"# coding: {codec}", f"# -*- coding: {codec} -*-",
                         f"# vim: set fileencoding={codec} :"))
    head = "#!/usr/bin/env python\n" if rng.random() < 0.2 else ""
    full = head + cookie + "\n" + text
    if rng.random() < 0.7:
        try:
            data = full.encode(codec)
            if isinstance(data, bytes):
                return data
        except Exception:  # noqa: BLE001 - not a text codec, or the text does not fit it
            pass
    return full.encode("utf-8", "surrogateescape")


def _without_header(text: str) -> str:
    return "\n".join(ln for ln in text.split("\n") if not ln.startswith("# Translated from "))


def _diff_rebuilds(src, output: str) -> str | None:
    """Why `convert --diff`'s diff of this file does not turn the file into its translation as
    `git apply` would (lines are what ends in "\\n"), else None."""
    from ..cli.convert import git_diff
    diff = git_diff(src, output, "fuzzed.py")
    old = re.findall(rb"[^\n]*\n|[^\n]+$", src.raw)
    new: list = []
    at = 0
    lines = re.findall(rb"[^\n]*\n|[^\n]+$", diff)
    if lines[:2] != [b"--- a/fuzzed.py\n", b"+++ b/fuzzed.py\n"]:
        return "diff header"
    for k, line in enumerate(lines[2:], 2):
        if line.startswith(b"@@"):
            m = re.match(rb"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@\n$", line)
            if m is None:
                return f"hunk header {line!r}"
            first = int(m.group(1)) - (0 if m.group(2) == b"0" else 1)
            new += old[at:first]
            at = first
        elif line.startswith(b"\\"):  # the line before it has no newline (its side's last)
            if lines[k - 1][:1] in (b"+", b" "):
                if not new or not new[-1].endswith(b"\n"):
                    return "misplaced no-newline marker"
                new[-1] = new[-1][:-1]
        elif line[:1] in (b" ", b"-"):
            if at >= len(old) or old[at].rstrip(b"\n") != line[1:].rstrip(b"\n"):
                return f"context line {k + 1} does not match the file"
            if line[:1] == b" ":
                new.append(old[at] if old[at].endswith(b"\n") else old[at] + b"\n")
            at += 1
        elif line[:1] == b"+":
            new.append(line[1:])
        else:
            return f"diff line {k + 1}: {line[:40]!r}"
    new += old[at:]
    if new and not src.raw.endswith(b"\n") and b"".join(new) == src.raw + b"\n":
        new[-1] = new[-1][:-1]
    want = src.encode(output)
    return None if b"".join(new) == want else "the diff does not rebuild the translation"


def classify(text, file_name: str = PLAIN_NAME) -> tuple[str, str]:
    """(outcome, detail) of translating one input (text, or a file's bytes), in this process:
    read as `convert` reads a file, translated, and the translation checked as it would be
    written (encoded in the file's encoding, compiled from those bytes as Python imports it,
    unchanged by the file name but for the header, rebuilt by the diff)."""
    from ..cli.convert import unwritable_problem
    from ..diagnostics import is_internal
    from ..cli.files import FileProblem, decode_source
    from ..translate import translate_source
    try:
        src = decode_source(text if isinstance(text, bytes) else
                            text.encode("utf-8", "surrogateescape"), file_name)
    except FileProblem:
        return "diagnostic", "T2T004"
    except BaseException as e:  # noqa: BLE001 - the fuzzer's finding
        return "exception", f"reading: {type(e).__name__}: {e}"[:500]
    try:
        result = translate_source(src.text, file_name)
    except BaseException as e:  # noqa: BLE001 - the fuzzer's finding
        return "exception", f"{type(e).__name__}: {e}"[:500]
    diags = result.diagnostics()
    internal = [d for d in diags if is_internal(d)]
    if internal:
        return "internal", internal[0].format()[:1000]
    if result.output is not None and result.has_cutile:
        try:
            unwritable = unwritable_problem(src, result.output, file_name)
            if unwritable is not None:
                return "diagnostic", unwritable.code
            written = src.encode(result.output)
            compile(written, "translated.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            return "bad-output", f"{type(e).__name__}: {e}"[:500]
        except BaseException as e:  # noqa: BLE001 - the fuzzer's finding
            return "exception", f"writing: {type(e).__name__}: {e}"[:500]
        try:
            if file_name != PLAIN_NAME:
                plain = translate_source(src.text, PLAIN_NAME).output
                if plain is None or _without_header(plain) != _without_header(result.output):
                    return "bad-output", f"the file name {file_name!r} changed the code"
            broken_diff = _diff_rebuilds(src, result.output)
        except BaseException as e:  # noqa: BLE001 - the fuzzer's finding
            return "exception", f"checking: {type(e).__name__}: {e}"[:500]
        if broken_diff is not None:
            return "bad-output", f"--diff: {broken_diff}"
        if not diags:
            return "translated", ""
    return "diagnostic", diags[0].code if diags else ""


def _worker(args) -> int:
    seeds = seed_files(args.extra)
    selftest = os.environ.get("T2T_FUZZ_SELFTEST") == "1"  # tests/test_fuzz.py
    # Import and warm the translator before the first input is announced: the parent allows a
    # long wait for the first line only, and a loaded machine can take seconds over the imports
    # (which then counted as a hang of the worker's first input).
    classify(seeds[0][1])
    for i in range(args.start, args.start + args.n):
        print(json.dumps({"start": i}), flush=True)
        if selftest and i == 2:
            time.sleep(3600)
        if selftest and i == 4:
            os.kill(os.getpid(), signal.SIGSEGV)
        if selftest:  # only the harness is under test: inputs that take no time on any load
            outcome, detail = classify(b"x = 1\n")
        else:
            _, file_name, data = generate_file(seeds, args.seed, i)
            outcome, detail = classify(data, file_name)
        print(json.dumps({"done": i, "outcome": outcome, "detail": detail}), flush=True)
    return 0


def run(n: int, seed: int = 0, start: int = 0, extra: list = (), timeout: float = 20.0,
        batch: int = 500, save: str | None = None, progress: bool = False) -> dict:
    """Fuzz inputs start..start+n-1 of run `seed` in worker subprocesses; counts and findings."""
    counts: dict = {}
    findings = []
    seeds = seed_files(extra)
    if not seeds:
        raise SystemExit("no seed files: corpus/ not found and no --extra folder given")
    nxt, end, t0 = start, start + n, time.time()
    while nxt < end:
        count = min(batch, end - nxt)
        cmd = [sys.executable, "-m", "tile2triton.verify.fuzz", "--worker", "--seed", str(seed),
               "--start", str(nxt), "--n", str(count)]
        for d in extra:
            cmd += ["--extra", d]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                bufsize=0, env={**os.environ, "PYTHONHASHSEED": "0"})
        lines = PipeLines(proc.stdout.fileno())
        current, started = None, False
        while True:
            # a new worker first imports the translator: allow for a loaded machine
            try:
                line = lines.next(time.monotonic() + (timeout if started else max(timeout, 120)))
            except EOFError:
                rc = proc.wait()
                outcome, detail = ("crash", f"worker exit status {rc}") if rc else (None, "")
                break
            started = True
            if line is None:  # silent for `timeout` seconds: the current input hangs
                proc.kill()
                proc.wait()
                outcome, detail = "hang", f"no progress for {timeout:.0f} s"
                break
            msg = json.loads(line)
            if "start" in msg:
                current = msg["start"]
                continue
            current = None
            counts[msg["outcome"]] = counts.get(msg["outcome"], 0) + 1
            nxt = msg["done"] + 1
            if msg["outcome"] in BUGS:
                findings.append((msg["done"], msg["outcome"], msg["detail"]))
        proc.stdout.close()
        if outcome is not None and current is not None:
            counts[outcome] = counts.get(outcome, 0) + 1
            findings.append((current, outcome, detail))
            nxt = current + 1
        elif outcome is not None:  # died between inputs: do not loop forever
            counts[outcome] = counts.get(outcome, 0) + 1
            findings.append((nxt, outcome, detail))
            nxt += 1
        if progress:
            done = nxt - start
            rate = done / max(time.time() - t0, 1e-9)
            print(f"{done}/{n} inputs, {rate:.0f}/s, ETA {(end - nxt) / max(rate, 1e-9):.0f} s,"
                  f" {sum(counts.get(b, 0) for b in BUGS)} bugs", file=sys.stderr)
    if save:
        out = Path(save)
        out.mkdir(parents=True, exist_ok=True)
        for i, outcome, detail in findings:
            name, file_name, data = generate_file(seeds, seed, i)
            # the input's own bytes (its coding line first, if any); its name and the finding
            # beside it
            (out / f"{outcome}-{seed}-{i}.py").write_bytes(data)
            (out / f"{outcome}-{seed}-{i}.txt").write_text(
                f"{outcome} (seed {seed}, input {i}, from {name}, file name "
                f"{ascii(file_name)}): {detail}\n", encoding="utf-8")
    return {"counts": counts, "findings": findings, "seconds": time.time() - t0}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tile2triton.verify.fuzz",
                                description="Mutation-fuzz the translator (see module doc).")
    p.add_argument("--n", type=int, default=1000, help="number of inputs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first input index")
    p.add_argument("--extra", action="append", default=[],
                   help="folder of more seed files (cuTile sources); may repeat")
    p.add_argument("--timeout", type=float, default=20.0,
                   help="seconds without progress before an input counts as a hang")
    p.add_argument("--batch", type=int, default=500, help="inputs per worker process")
    p.add_argument("--save", help="write each failing input to this folder")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return _worker(args)
    res = run(args.n, args.seed, args.start, args.extra, args.timeout, args.batch, args.save,
              progress=True)
    for i, outcome, detail in res["findings"]:
        print(f"[{outcome}] seed {args.seed} input {i}: {detail}")
    counts = res["counts"]
    print(f"{args.n} inputs in {res['seconds']:.0f} s: "
          + ", ".join(f"{k} {counts.get(k, 0)}" for k in
                      ("translated", "diagnostic") + BUGS))
    return 1 if any(counts.get(b) for b in BUGS) else 0


if __name__ == "__main__":
    sys.exit(main())
