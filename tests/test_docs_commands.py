"""Every `tile2triton ...` command shown in README.md and docs/ still parses with the real
command-line parser: a command line in a code block parses as a whole; a command quoted inline in
prose (often a fragment, e.g. `tile2triton bench --exec`) names a real command and only options
that command has. So renaming a command or an option fails here until the docs follow."""
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from tile2triton.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SEPARATORS = {";", "&&", "||", "|", "(", ")", "&", "do", "then", "else", "time", "exec"}
REDIRECTS = {">", ">>", "<", "2>", "&>"}


def _code_lines(text: str):
    """(line number, text) of the lines of fenced code blocks, `\\`-continued lines joined."""
    in_code, lines, i = False, text.splitlines(), 0
    while i < len(lines):
        start, line = i + 1, lines[i]
        if line.strip().startswith("```"):
            in_code = not in_code
        elif in_code:
            while line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1] + " " + lines[i]
            yield start, line
        i += 1


def _invocations(line: str) -> list:
    """The argument lists of each `tile2triton` (or `python -m tile2triton`) invocation in a
    shell line, the program in command position only (not `from tile2triton import ...`)."""
    line = re.sub(r"\bpython3? -m tile2triton(\.cli)?\b", "tile2triton", line)
    line = re.sub(r"(?<=\s)[12]>", " >", line)   # `2> err`: a redirect, not an argument 2
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split, lex.commenters = True, "#"
    try:
        tokens = list(lex)
    except ValueError:  # an unclosed quote: not a shell line
        return []
    out, current, prev = [], None, None
    for tok in tokens:
        if tok in SEPARATORS or tok in REDIRECTS or tok.endswith(">"):
            if current is not None:
                out.append(current)
            current = None
            if tok in REDIRECTS or tok.endswith(">"):
                prev = "redirect"
                continue
        elif current is not None:
            if prev == "redirect":   # the redirect's target ends the argument list
                out.append(current)
                current = None
            else:
                current.append(tok)
        elif tok == "tile2triton" and (prev is None or prev in SEPARATORS or
                                       re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", prev)):
            current = []
        prev = tok
    if current is not None:
        out.append(current)
    return out


def _shown_commands():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for lineno, line in _code_lines(text):
            for argv in _invocations(line):
                yield pytest.param(argv, "block", id=f"{path.name}:{lineno}")
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in re.finditer(r"`tile2triton ([a-z][^`]*)`", line):
                yield pytest.param(shlex.split(m.group(1), comments=True), "inline",
                                   id=f"{path.name}:{lineno}:inline")


SHOWN = list(_shown_commands())


def _subcommands(parser):
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return action.choices


def test_the_docs_show_every_command():
    shown = {p.values[0][0] for p in SHOWN if p.values[0]}
    unshown = set(_subcommands(build_parser())) - shown
    assert not unshown, f"commands no doc shows: {sorted(unshown)}; add each to the table at " \
        "the top of docs/cli.md, with a section showing how it is run"
    assert sum(p.values[1] == "block" for p in SHOWN) > 40


@pytest.mark.parametrize("argv, where", SHOWN)
def test_shown_command_parses(argv, where):
    parser = build_parser()
    if where == "block":
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(argv)
        except SystemExit as e:
            assert e.code == 0, f"tile2triton {shlex.join(argv)}: {err.getvalue().strip()}"
        return
    commands = _subcommands(parser)
    if argv[0].isupper():       # a placeholder: `tile2triton COMMAND --help`
        return
    assert argv[0] in commands, f"`tile2triton {shlex.join(argv)}`: no command {argv[0]!r}"
    known = set(commands[argv[0]]._option_string_actions)
    for tok in argv[1:]:
        tok = tok.strip("[]")        # `[--bench N]`: an optional part of a synopsis
        if tok == "--":              # the rest is the command `run` runs
            break
        if tok.startswith("-") and tok != "-":
            assert tok.split("=", 1)[0] in known, \
                f"`tile2triton {shlex.join(argv)}`: {argv[0]} has no option {tok}"


def test_the_check_fails_on_what_no_longer_parses():
    assert _invocations('cd x && tile2triton convert a.py -o "b c.py" 2> err | head  # note') == \
        [["convert", "a.py", "-o", "b c.py"]]
    assert _invocations("from tile2triton import interp") == []
    assert _invocations("T2T_X=1 python -m tile2triton check corpus/; echo") == [
        ["check", "corpus/"]]
    for argv, where in ((["convert", "k.py", "--no-such-option"], "block"),
                        (["convert"], "block"), (["translate", "k.py"], "inline"),
                        (["inspect", "CASE", "[--benchmark", "N]"], "inline")):
        with pytest.raises(AssertionError):
            test_shown_command_parses(argv, where)


def test_readme_lists_every_verdict():
    """The README's verdict list names every verdict `check` can give (verify/verdicts.py)."""
    import ast
    tree = ast.parse((ROOT / "src" / "tile2triton" / "verify" / "verdicts.py").read_text())
    (verdicts,) = [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                   and any(getattr(t, "id", None) == "VERDICTS" for t in n.targets)]
    readme = (ROOT / "README.md").read_text()
    (listed,) = [p for p in readme.split("\n\n") if "launch a verdict" in " ".join(p.split())]
    missing = [v for v in verdicts if f"`{v}`" not in listed]
    assert not missing, f"README.md's verdict list lacks {missing}"
