"""Mutation fuzzer: the translator must never crash, hang or report an internal error.

    python -m tile2triton.fuzz --n 10000                  # mutants of the corpus kernels
    python -m tile2triton.fuzz --n 10000 --extra DIR      # ... and of every cuTile file in DIR
    python -m tile2triton.fuzz --n 200 --seed 7 --save fuzz-failures/

Each input is a seed file (a corpus kernel, or a file from `--extra`) with one to three random
mutations: lines deleted, duplicated, swapped, re-indented or truncated; literals, operators,
names, cuda.tile attributes and keywords replaced (including names the translator generates,
such as `a_shape0` or `launch_k`); `break`/`continue`/`return` inserted; expressions nested deep;
stray characters inserted. Inputs are generated from (seed, index), so a failure is reproduced
with `--seed S --start I --n 1`.

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
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

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


_MUTATIONS = [_delete_line, _duplicate_line, _swap_lines, _reindent, _truncate,
              _insert_statement, _stray, _literal, _literal, _operator, _operator, _name,
              _rename_everywhere, _ct_attribute, _ct_attribute, _nest, _swap_args, _drop_arg]


def generate(seeds: list, seed: int, index: int) -> tuple[str, str]:
    """The `index`-th input of run `seed`: (seed file name, mutated text)."""
    rng = random.Random(f"{seed}:{index}")
    name, text = seeds[rng.randrange(len(seeds))]
    return name, mutate(text, rng)


def classify(text: str) -> tuple[str, str]:
    """(outcome, detail) of translating one input, in this process."""
    from .diagnostics import is_internal
    from .translate import translate_source
    try:
        result = translate_source(text, "fuzzed.py")
    except BaseException as e:  # noqa: BLE001 - the fuzzer's finding
        return "exception", f"{type(e).__name__}: {e}"[:500]
    diags = result.diagnostics()
    internal = [d for d in diags if is_internal(d)]
    if internal:
        return "internal", internal[0].format()[:1000]
    if result.output is not None and result.has_cutile:
        try:
            compile(result.output, "translated.py", "exec")
        except (SyntaxError, ValueError) as e:
            return "bad-output", f"{type(e).__name__}: {e}"[:500]
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
        _, text = generate(seeds, args.seed, i)
        outcome, detail = classify(text)
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
        cmd = [sys.executable, "-m", "tile2triton.fuzz", "--worker", "--seed", str(seed),
               "--start", str(nxt), "--n", str(count)]
        for d in extra:
            cmd += ["--extra", d]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        current, started = None, False
        while True:
            # a new worker first imports the translator: allow for a loaded machine
            ready, _, _ = select.select([proc.stdout], [], [], timeout if started else
                                        max(timeout, 120))
            started = True
            if not ready:  # silent for `timeout` seconds: the current input hangs
                proc.kill()
                proc.wait()
                outcome, detail = "hang", f"no progress for {timeout:.0f} s"
                break
            line = proc.stdout.readline()
            if not line:
                rc = proc.wait()
                outcome, detail = ("crash", f"worker exit status {rc}") if rc else (None, "")
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
            name, text = generate(seeds, seed, i)
            (out / f"{outcome}-{seed}-{i}.py").write_text(
                f"# {outcome} (seed {seed}, input {i}, from {name}): "
                f"{detail.splitlines()[0] if detail else ''}\n" + text, encoding="utf-8")
    return {"counts": counts, "findings": findings, "seconds": time.time() - t0}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tile2triton.fuzz",
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
