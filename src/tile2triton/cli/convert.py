"""Command line: `tile2triton convert PATH...` and the other subcommands (see COMMANDS).

Exit status (every subcommand):
  0  success;
  1  something needs attention (a kernel that did not translate, a failed check, a file that
     could not be read or written);
  2  usage error (bad options, inputs that would be overwritten, colliding outputs, missing
     dependencies): nothing was written;
  3  internal error of tile2triton (a bug: please report it);
  141  stdout was closed early (`tile2triton convert k.py | head`), as for a process killed by
     SIGPIPE.

Files are read as bytes in the encoding Python would use and written back in the same encoding,
line endings and trailing-newline state, atomically, through symlinks, keeping their mode
(files.py). Conventions follow ruff and black: --version, -q/-v, --check/--diff, excludes,
[tool.tile2triton] in pyproject.toml, --output-format.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..version import __version__
from .common import (Progress, Terminated, UsageError, check_report_path, common_options,
                          load_config, terminate_like_interrupt, verbosity, write_report)
from .convert_report import DiagnosticPrinter
from . import launcher_links
from ..diagnostics import Diagnostic, is_internal
from .files import (FileProblem, SourceText, coding_line, decode_source, read_source,
                    write_atomic)
from .formats import FORMATS, render

__all__ = ["main", "build_parser", "COMMANDS", "UsageError", "EXIT_OK", "EXIT_ATTENTION",
           "EXIT_USAGE", "EXIT_INTERNAL", "EXIT_BROKEN_PIPE"]

EXIT_OK, EXIT_ATTENTION, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process killed by SIGPIPE

# Subcommands: (module, function). Each function is `add_<name>_command(subparsers, common)`:
# it adds a parser built with `parents=[common]` (the shared -q/-v/--progress options)
# and sets `func(args) -> exit status`; it raises UsageError for a bad invocation. A new
# subcommand is one line here; its module is imported only when the parser is built, must not
# import torch at import time, and takes its shared helpers from cli_support.
COMMANDS = (
    ("tile2triton.cli.convert", "add_convert_command"),
    ("tile2triton.verify.cli", "add_check_command"),
    ("tile2triton.verify.bench", "add_bench_command"),
    ("tile2triton.verify.inspection", "add_inspect_command"),
    ("tile2triton.cli.run", "add_run_command"),
)


# -- convert --------------------------------------------------------------------------------------

# `convert --shared-runtime`: the module holding the helpers of a translated folder. The
# leading underscore and the tool's name keep it apart from user modules; a batch that has a
# module of that name, or an output folder holding a file of that name that tile2triton did
# not write, is refused before anything is written.
RUNTIME_MODULE = "_tile2triton_runtime"
RUNTIME_HEADER = "# Helpers shared by the modules tile2triton "


def add_convert_command(sub, common) -> None:
    conv = sub.add_parser(
        "convert", parents=[common], help="translate files or folders",
        description="Translate cuTile kernels in files or folders to Triton.",
        epilog="Exit status: 0 all translated, 1 something needs attention, 2 usage error, "
        "3 internal error.")
    conv.add_argument("paths", nargs="+", help="files, folders, or - for stdin")
    conv.add_argument("--config", metavar="FILE",
                      help="pyproject.toml to read [tool.tile2triton] from (default: the nearest "
                      "one above the inputs that has that table)")
    mode = conv.add_argument_group("what to do with translations (default: print to stdout)")
    mode.add_argument("-o", "--output", help="output file (one input) or folder (mirrors inputs)")
    mode.add_argument("--in-place", action="store_true",
                      help="rewrite files where they are (codemod mode)")
    mode.add_argument("--diff", action="store_true",
                      help="print a unified diff (applies with `git apply`), write nothing")
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 if some file still has cuTile kernels "
                      "(with --diff, also print the diff)")
    mode.add_argument("--shared-runtime", action="store_true",
                      help=f"with -o: write the helpers once, as {RUNTIME_MODULE}.py in the "
                      "output folder, which the translated modules import")
    conv.add_argument("--keep-unconverted", action="store_true",
                      help="write a file even when some of its kernels or host lines do not "
                      "translate: they stay as cuTile code under `# tile2triton:` notes "
                      "(the file then still imports cuda.tile)")
    conv.add_argument("--json", metavar="FILE",
                      help="write one record per kernel to FILE (- for stdout)")
    conv.add_argument("--output-format", choices=FORMATS, default=None,
                      help="diagnostics as text (stderr), or json / github / sarif on stdout "
                      "(default: text)")
    conv.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                      help="translate in N processes (0: one per CPU; default 1); output order "
                      "does not depend on N")
    sel = conv.add_argument_group("which files under folders")
    sel.add_argument("--exclude", action="append", metavar="GLOBS",
                     help="comma-separated globs replacing the default excludes (.git, venv, "
                     ".venv, build, site-packages, ...)")
    sel.add_argument("--extend-exclude", action="append", metavar="GLOBS",
                     help="comma-separated globs excluded in addition")
    sel.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                     help="skip files git ignores (default: yes)")
    conv.set_defaults(func=cmd_convert)


@dataclass
class Outcome:
    """One input after translation."""
    index: int
    path: object           # Path, or "-"
    display: str           # path as shown in diagnostics
    source: SourceText | None = None
    result: object = None  # ModuleResult
    problem: Diagnostic | None = None


def problem_diagnostic(p: FileProblem, code: str = "T2T003") -> Diagnostic:
    if p.line:
        code = "T2T004"
    return Diagnostic(code, p.message, path=p.path, line=p.line, col=p.col, help=p.help)


def internal_diagnostic(path: str, exc: BaseException) -> Diagnostic:
    return Diagnostic("T2T900", f"internal error: {type(exc).__name__}: {exc}", path=path,
                      help="this is a tile2triton bug; please report it with this file")


def _writable(result, keep: bool) -> bool:
    """Whether a translated module may be written: every kernel translated, or with
    --keep-unconverted a module whose failed parts were kept as cuTile code (keep.py)."""
    return result.ok or (keep and result.output is not None)


def translate_one(job) -> Outcome:
    """Read and translate one input (runs in a worker process with -j)."""
    index, path, display, data, shared, keep = job
    from ..translate import translate_source
    out = Outcome(index, path, display)
    try:
        out.source = decode_source(data, display) if data is not None else read_source(path)
    except FileProblem as p:
        out.problem = problem_diagnostic(p)
        return out
    try:
        out.result = translate_source(out.source.text, display, shared,
                                      keep_unconverted=keep)
    except RecursionError as e:
        out.problem = internal_diagnostic(display, e)
    except Exception as e:  # noqa: BLE001 - a bug in one file must not stop the batch
        out.problem = internal_diagnostic(display, e)
    if out.result is not None and _writable(out.result, keep) and out.result.has_cutile:
        out.problem = unwritable_problem(out.source, out.result.output, display)
    return out


def unwritable_problem(src: SourceText, text: str, display: str) -> Diagnostic | None:
    """A translation the file's own encoding cannot hold (`# coding: ascii` in `模块.py`,
    whose name the header comment carries; a codec that decodes but cannot encode): a
    diagnostic for that file, before anything is written."""
    try:
        src.encode(text)
    except (UnicodeError, ValueError, LookupError, TypeError) as e:
        what = e.object[e.start:e.end] if isinstance(e, UnicodeEncodeError) else ""
        restored = src.restore(text)
        line = restored.count(src.newline, 0, e.start) + 1 if what else 1
        return Diagnostic("T2T005", f"the translation cannot be written in this file's "
                          f"encoding {src.encoding}" + (f": {what!r} on line {line} of the "
                                                        "translation" if what else f": {e}"),
                          path=display, line=coding_line(src.raw or b""), col=1,
                          help="rename the file if its name has characters the encoding lacks "
                          "(the header comment names it), or save the file as UTF-8")
    return None


def _records(result) -> list[dict]:
    out = []
    for k in result.kernels:
        out.append({"file": result.path, "kernel": k.kernel, "line": k.line, "status": k.status,
                    "diagnostics": [d.as_json() for d in k.diagnostics]})
    if result.module_diagnostics:
        out.append({"file": result.path, "kernel": None, "line": 0, "status": "failed",
                    "diagnostics": [d.as_json() for d in result.module_diagnostics]})
    return out


def source_lines(data: bytes) -> list[bytes]:
    """`data` split after each b"\\n", as git splits a file into lines. On the file's bytes,
    so that any encoding (a BOM, UTF-16, stateful UTF-7) diffs as it is stored; "\\r\\n" ends
    a line with its "\\r", and a lone "\\r" (old Mac style), \\f, \\x1c-\\x1e, \\x85, U+2028
    and U+2029 stay inside git's line (`str.splitlines` broke there, and `git apply` then
    refused the diff)."""
    return re.findall(rb"[^\n]*\n|[^\n]+$", data)


def git_diff(src: SourceText, new_text: str, path: str) -> bytes:
    """A unified diff of one file that `git apply` accepts from the working folder: a/ and b/
    prefixes (quoted as git quotes them), the bytes as stored and as they would be written, and
    the no-newline-at-end marker."""
    old = src.raw if src.raw is not None else src.encode(src.text)
    new = src.encode(new_text)
    out = [b"--- " + os.fsencode(git_quote_path(f"a/{path}")) + b"\n",
           b"+++ " + os.fsencode(git_quote_path(f"b/{path}")) + b"\n"]
    lines = difflib.diff_bytes(difflib.unified_diff, source_lines(old), source_lines(new),
                               lineterm=b"")
    for k, line in enumerate(lines):
        if k < 2:  # difflib's own ---/+++ lines: replaced by the quoted ones above
            continue
        if line.startswith(b"@@"):
            out.append(line.rstrip(b"\r\n") + b"\n")
            continue
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n\\ No newline at end of file\n")
    return b"".join(out)


_GIT_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
                34: '\\"', 92: "\\\\"}


def git_quote_path(path: str) -> str:
    """A path for a diff header, quoted the way git quotes one (and `git apply` unquotes it):
    a file name holding a line break must not end the header line, or the rest of the name
    would be read as diff lines and could patch another file."""
    raw = os.fsencode(path)
    if all(0x20 <= b < 0x7f and b not in (34, 92) for b in raw):
        return path
    return '"' + "".join(_GIT_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7f else f"\\{b:03o}")
                         for b in raw) + '"'


def diff_path(path) -> str:
    """The path as `git apply` run from the working folder wants it."""
    rel = os.path.relpath(os.path.abspath(path))
    return Path(rel).as_posix()


def _plan(args, inputs, out: Path | None) -> list:
    """Target of each input (None: not written to a file), refusing collisions before anything
    is written."""
    targets = []
    single_file_out = out is not None and len(inputs) == 1 and out.suffix == ".py" \
        and not os.path.isdir(out)
    for inp in inputs:
        if args.in_place:
            targets.append(None if inp.path == "-" else Path(inp.path))
        elif out is not None:
            targets.append(out if single_file_out else out / inp.rel)
        else:
            targets.append(None)
    if out is not None:
        by_target: dict = {}
        real_inputs = {os.path.realpath(i.path): i for i in inputs if i.path != "-"}
        for inp, t in zip(inputs, targets):
            rt = os.path.realpath(t)
            if rt in real_inputs:
                raise UsageError(f"refusing to overwrite input {real_inputs[rt].path} with the "
                                 f"translation of {inp.path} (use --in-place to rewrite files "
                                 "where they are)")
            if rt in by_target:
                raise UsageError(f"output collision: {by_target[rt].path} and {inp.path} would "
                                 f"both be written to {t}; nothing was written (convert them "
                                 "separately, or give distinct folders)")
            by_target[rt] = inp
        _refuse_file_folder_clashes(inputs, targets, by_target)
    return targets


def _refuse_file_folder_clashes(inputs, targets, by_target: dict) -> None:
    """`x/k.py` and `y/k.py/z.py` both to OUT: one output is a file where the other needs a
    folder. Refused before anything is written. (A file already on disk where a folder is
    needed is a write failure of that one output, reported with the others.)"""
    for inp, t in zip(inputs, targets):
        if t is None:
            continue
        for parent in Path(os.path.realpath(t)).parents:
            key = str(parent)
            if key in by_target:
                raise UsageError(f"output collision: the translation of {by_target[key].path} "
                                 f"would be the file {parent}, where {inp.path} needs a folder; "
                                 "nothing was written (convert them separately, or give "
                                 "distinct folders)")


def _refuse_conflicting_modes(args) -> None:
    """The write modes exclude each other: one UsageError naming the pair."""
    if args.in_place and args.output:
        raise UsageError("--in-place rewrites inputs where they are; it cannot be combined "
                         "with -o")
    if args.in_place and args.diff:
        raise UsageError("--diff writes nothing; it cannot be combined with --in-place")
    if args.check and (args.in_place or args.output):
        raise UsageError("--check writes nothing; it cannot be combined with "
                         f"{'--in-place' if args.in_place else '-o'}")
    if args.diff and args.output:
        raise UsageError("--diff writes nothing; it cannot be combined with -o")


def _settings(args):
    """(output format, worker count, gitignore choice, exclude patterns) from the options and
    [tool.tile2triton]."""
    from .inputs import make_patterns
    settings = load_config(args, args.paths)
    fmt = args.output_format or settings.output_format or "text"
    if fmt not in FORMATS:
        raise UsageError(f"output-format `{fmt}` in {settings.source}: choose one of "
                         f"{', '.join(FORMATS)}")
    jobs = args.jobs if args.jobs is not None else (settings.jobs or 1)
    if jobs < 0:
        raise UsageError("-j/--jobs must be 0 (one per CPU) or more")
    gitignore = args.respect_gitignore if args.respect_gitignore is not None \
        else settings.respect_gitignore
    patterns = make_patterns(settings, args.exclude, args.extend_exclude)
    return fmt, jobs or os.cpu_count() or 1, gitignore, patterns


def _inputs(args, patterns, gitignore) -> list:
    """The input files, each once (a/k.py and ./a/k.py, or a file inside a named folder)."""
    from .inputs import discover
    missing: list[str] = []
    inputs = discover(args.paths, patterns, gitignore, on_missing=missing.append)
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    seen, unique = set(), []
    for inp in inputs:
        key = "-" if inp.path == "-" else os.path.realpath(inp.path)
        if key not in seen:
            seen.add(key)
            unique.append(inp)
    if not unique:
        raise UsageError("no Python files found in the given paths (see --exclude)")
    if sum(1 for i in unique if i.path == "-") and len(unique) > 1 and args.in_place:
        raise UsageError("- (stdin) cannot be rewritten in place")
    return unique


def _refuse_shared_stdout(args, inputs, fmt) -> None:
    """Only one thing goes to stdout: the translation, the diff, the JSON report or a machine
    format."""
    printing = not (args.output or args.in_place or args.check or args.diff)
    if printing and len(inputs) > 1:
        raise UsageError("several inputs need -o OUT (a folder), --in-place, --diff or --check")
    stdout_users = [what for what, uses in (
        ("the translated module", printing), ("--diff", args.diff),
        ("--json -", args.json == "-"), (f"--output-format {fmt}", fmt != "text")) if uses]
    if len(stdout_users) > 1:
        raise UsageError(f"{' and '.join(stdout_users)} would both be printed on stdout; "
                         "send one to a file")


def cmd_convert(args) -> int:
    _refuse_conflicting_modes(args)
    fmt, jobs, gitignore, patterns = _settings(args)
    inputs = _inputs(args, patterns, gitignore)
    _refuse_shared_stdout(args, inputs, fmt)
    out = Path(args.output) if args.output else None
    targets = _plan(args, inputs, out)
    runtime_path = _runtime_path(args, inputs, out, targets)
    if args.json:
        check_report_path("--json", args.json, [i.path for i in inputs if i.path != "-"],
                          [t for t in targets if t is not None])
    batch = _Batch(args, fmt, targets, Progress(len(inputs), args))
    shared = runtime_imports(runtime_path, targets) if runtime_path is not None else None
    # a module importing launchers from the user's other modules waits until those are known
    # (launcher_links.py); the others are reported and queued as they come
    produced: dict = {}
    deferred: list = []
    for o in _outcomes(inputs, jobs, batch.progress, shared, args.keep_unconverted):
        if o.path != "-":
            produced[launcher_links._key(o.path)] = _text_on_disk(o, args)
        links = launcher_links.pending_links(o.path, o.source.text, o.result.output) if (
            o.problem is None and o.result is not None and o.result.output is not None
            and o.result.has_cutile) else []
        if links:
            deferred.append([o, links])
            continue
        batch.handle(o)

    def retranslate(o, kept):
        from ..translate import translate_source
        return translate_source(o.source.text, o.display,
                                shared[o.index] if shared is not None else None,
                                keep_unconverted=True, kept_foreign=kept)

    launcher_links.settle(deferred, produced, args.in_place,
                          retranslate if args.keep_unconverted else None)
    for o, *_ in deferred:
        batch.handle(o)
    batch.report_unconverted_imports(produced)
    batch.progress.clear()
    batch.queue_runtime(runtime_path)
    return batch.finish()


def _text_on_disk(o, args):
    """The text input `o`'s path will hold after the batch (what other modules' launcher
    links see), or None when nothing is written there."""
    if o.result is not None and o.problem is None and _writable(o.result, args.keep_unconverted):
        return o.result.output if o.result.has_cutile else o.source.text
    if args.in_place and o.source is not None:
        return o.source.text
    return None


class _Batch:
    """One `convert` run: reports each outcome, queues what is written, counts for the
    summary, then writes and prints the summary (`finish`)."""

    def __init__(self, args, fmt: str, targets: list, progress: Progress):
        self.args, self.fmt, self.targets, self.progress = args, fmt, targets, progress
        self.keep = args.keep_unconverted
        self.verbose = verbosity(args)
        self.printer = DiagnosticPrinter(show_all=self.verbose > 0)
        self.machine: list[Diagnostic] = []
        self.records, self.pending, self.runtime = [], [], []
        self.n_kernels = self.n_files = self.n_bad = self.n_problems = self.n_would = 0
        self.n_written = self.n_unwritten = self.n_partial = self.n_left = 0
        self.internal = False
        # (path, display, input text, text after the run) of the modules the run leaves
        # importable: translated, or without cuTile code
        self.modules: list = []

    def say(self, text: str) -> None:
        self.progress.clear()
        print(text, file=sys.stderr, flush=True)

    def handle(self, o) -> None:
        diags = [o.problem] if o.problem else (o.result.diagnostics() if o.result else [])
        for d in diags:
            self.internal |= is_internal(d)
        if self.fmt == "text":
            for block in self.printer.file_text(diags):
                self.say(block)
        else:
            self.machine.extend(diags)
        if o.problem is not None:
            self.n_problems += 1
            self.records.append({"file": o.display, "kernel": None, "line": o.problem.line,
                                 "status": "failed", "diagnostics": [o.problem.as_json()]})
            return
        result = o.result
        self.records.extend(_records(result))
        failed = sum(1 for k in result.kernels if k.status == "failed")
        self.n_files += bool(result.has_cutile)
        self.n_kernels += sum(1 for k in result.kernels if k.status == "translated")
        self.n_bad += failed + (1 if result.module_diagnostics else 0)
        self.n_left += failed
        if not _writable(result, self.keep):
            self.n_unwritten += result.has_cutile
            return
        self.modules.append((o.path, o.display, o.source.text,
                             result.output if result.has_cutile else o.source.text))
        if result.has_cutile:
            self.n_written += 1
            self.n_partial += not result.ok
        if self.args.check or self.args.diff:
            self._would_write(o)
        else:
            self._queue(o)

    def report_unconverted_imports(self, produced: dict) -> None:
        """T2T114 for the modules of the run (translated, or without cuTile code) that import
        one of the user's modules that stays cuTile code (launcher_links.unconverted_imports):
        written as they are, and counted as needing attention."""
        for path, display, source, after in self.modules:
            diags = launcher_links.unconverted_imports(path, display, source, after, produced)
            if not diags:
                continue
            self.n_bad += 1
            self.records.append({"file": display, "kernel": None, "line": diags[0].line,
                                 "status": "failed",
                                 "diagnostics": [d.as_json() for d in diags]})
            if self.fmt == "text":
                for block in self.printer.file_text(diags):
                    self.say(block)
            else:
                self.machine.extend(diags)

    def _unchanged(self, o) -> None:
        if self.verbose > 0:
            self.say(f"unchanged {o.display} (no cuTile kernels)")

    def _would_write(self, o) -> None:
        """--check and --diff: say what would be written."""
        if not o.result.has_cutile:
            return self._unchanged(o)
        self.n_would += 1
        if self.args.check:
            self.say(f"would convert {o.display}")
        if self.args.diff:
            sys.stdout.flush()
            sys.stdout.buffer.write(git_diff(o.source, o.result.output, diff_path(o.path)
                                             if o.path != "-" else "stdin.py"))
            sys.stdout.flush()

    def _queue(self, o) -> None:
        """Print the translation (no target) or queue it for writing."""
        result, src = o.result, o.source
        target = self.targets[o.index]
        if target is None:
            if self.args.in_place and o.path != "-":
                return self._unchanged(o)
            sys.stdout.flush()
            sys.stdout.buffer.write(src.encode(result.output))
            sys.stdout.flush()
            return
        if self.args.in_place and not result.has_cutile:
            return self._unchanged(o)
        data = src.encode(result.output) if result.has_cutile else src.raw
        # in place: replaced only if the file still holds what was read (item 9 of issue 22)
        self.pending.append((target, data, o.display, src.raw if self.args.in_place else None))
        self.runtime.extend(result.runtime)

    def queue_runtime(self, runtime_path) -> None:
        """--shared-runtime: the helpers the queued modules import, as one module."""
        if not self.runtime:
            return
        from ..emit import module as emit
        collected = emit.SharedRuntime(RUNTIME_MODULE)
        collected.pieces = self.runtime
        try:
            text = emit.render_shared_runtime(collected, __version__)
        except ValueError as e:  # two modules needed different helpers under one name
            self.internal = True
            self.say(Diagnostic("T2T900", f"internal error: {e}", path=str(runtime_path),
                                help="this is a tile2triton bug; please report it with the "
                                "batch (converting without --shared-runtime avoids it)").format())
        else:
            self.pending.append((runtime_path, text.encode("utf-8"), "--shared-runtime", None))

    def finish(self) -> int:
        """Write what is queued, the JSON report and the summary; the exit status."""
        args = self.args
        written, failed = _write_all(self.pending, self.say, self.verbose)
        if args.json:
            try:
                write_report(args.json, json.dumps({"kernels": self.records}, indent=2) + "\n")
            except OSError as e:
                failed.append((args.json, e.strerror or str(e)))
                self.say(f"tile2triton: cannot write {args.json}: {e.strerror or e}")
        if self.fmt != "text":
            sys.stdout.write(render(self.fmt, self.machine, __version__))
            sys.stdout.flush()
        if failed:
            lines = [f"tile2triton: {len(failed)} file(s) not written:"]
            lines += [f"  {t}: {why}" for t, why in failed]
            lines.append(f"{len(written)} written" + (":" if written else ""))
            lines += [f"  {t}" for t in written]
            self.say("\n".join(lines))
        if self.verbose >= 0:
            self._summary(len(failed))
        if self.internal:
            return EXIT_INTERNAL
        if (args.check and self.n_would) or self.n_bad or self.n_problems or failed:
            return EXIT_ATTENTION
        return EXIT_OK

    def _summary(self, n_not_written: int) -> None:
        if self.printer.statistics():
            self.say(self.printer.statistics())
        # a file not written needs attention too
        n_attention = self.n_bad + self.n_problems + n_not_written
        n_kernels, n_files = self.n_kernels, self.n_files
        summary = (f"Translated {n_kernels} kernel{'s' if n_kernels != 1 else ''} in {n_files} "
                   f"file{'s' if n_files != 1 else ''}; {n_attention} "
                   f"need{'s' if n_attention == 1 else ''} attention")
        if self.args.check and self.n_would:
            summary += f"; {self.n_would} file{'s' if self.n_would != 1 else ''} would be " \
                "converted"
        self.say(summary)
        if self.n_unwritten or self.n_left or self.keep:
            self.say(files_summary(self.n_written, self.n_unwritten, self.n_partial,
                                   self.n_left, self.keep,
                                   writes=not (self.args.check or self.args.diff)))


def files_summary(written: int, unwritten: int, partial: int, left: int, keep: bool,
                  writes: bool = True) -> str:
    """The second summary line: what happened to files with cuTile kernels, and to the kernels
    that did not translate."""
    def n(k, what):
        return f"{k} {what}{'s' if k != 1 else ''}"
    verb = "written" if writes else "would be written"
    head = f"Files with cuTile code: {written} {verb}"
    if keep:
        head += f" ({partial} with cuTile code kept, --keep-unconverted)"
    if unwritten:
        head += f", {unwritten} not written (a kernel or host line failed; --keep-unconverted " \
            "writes them)" if not keep else f", {unwritten} not written"
    tail = f"{n(left, 'kernel')} left unconverted" + (" (kept as cuTile code)" if keep else "")
    return f"{head}; {tail}"


def _runtime_path(args, inputs, out: Path | None, targets: list) -> Path | None:
    """Where `--shared-runtime` writes its module (None without the option); refuses, before
    anything is written, a batch where that name is the user's."""
    if not args.shared_runtime:
        return None
    if out is None:
        raise UsageError("--shared-runtime needs -o OUT: the helpers are written to OUT")
    folder = out if os.path.isdir(out) or out.suffix != ".py" else out.parent
    path = folder / f"{RUNTIME_MODULE}.py"
    for inp, t in zip(inputs, targets):
        # a module or a package of that name (`_tile2triton_runtime/ops.py`) anywhere in the
        # batch: the translations' import would find one instead of the other
        parts = [Path(str(inp.path)).stem, *(Path(p).stem for p in Path(inp.rel).parts)]
        if RUNTIME_MODULE in parts or (
                t is not None and os.path.realpath(t) == os.path.realpath(path)):
            raise UsageError(f"{inp.path} is named like the shared runtime module "
                             f"{RUNTIME_MODULE}; nothing was written (rename it, or convert "
                             "without --shared-runtime)")
    package = folder / RUNTIME_MODULE
    if os.path.lexists(package):
        raise UsageError(f"{package} exists: a package of that name would be imported instead "
                         "of the shared runtime module; nothing was written (move it, or choose "
                         "another output folder)")
    if os.path.lexists(path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                first = f.readline()
        except OSError:
            first = ""
        if not first.startswith(RUNTIME_HEADER):
            raise UsageError(f"{path} exists and was not written by tile2triton; nothing was "
                             "written (move it, or choose another output folder)")
    return path


def runtime_imports(runtime_path: Path, targets: list) -> list:
    """For each target, the module name its translation imports the shared runtime by:
    relative (`._tile2triton_runtime`, `.._tile2triton_runtime`, ...) when the target lies in a
    regular package reaching up to the runtime's folder, so that `import pkg.ops` finds it;
    otherwise the top-level name, found when the runtime's folder is on sys.path."""
    root = Path(os.path.abspath(runtime_path.parent))
    inits = {Path(os.path.abspath(t)) for t in targets
             if t is not None and Path(t).name == "__init__.py"}

    def is_package(folder: Path) -> bool:
        init = folder / "__init__.py"
        return init in inits or init.is_file()

    names = []
    for t in targets:
        name = RUNTIME_MODULE
        if t is not None:
            folder = Path(os.path.abspath(t)).parent
            try:
                depth = len(folder.relative_to(root).parts)
            except ValueError:
                depth = None
            if depth is not None and all(is_package(f) for f in [folder, *list(
                    folder.parents)[:depth]]):
                name = "." * (depth + 1) + RUNTIME_MODULE
        names.append(name)
    return names


def _outcomes(inputs, jobs: int, progress: Progress, shared: list | None = None,
              keep: bool = False):
    """Outcomes in input order, translated in `jobs` processes. `shared`: per input, the name
    its translation imports the shared runtime by (None: no shared runtime)."""
    work = []
    for i, inp in enumerate(inputs):
        name = shared[i] if shared is not None else None
        if inp.path == "-":
            work.append((i, "-", "<stdin>", sys.stdin.buffer.read(), name, keep))
        else:
            work.append((i, inp.path, str(inp.path), None, name, keep))
    if jobs <= 1 or len(work) <= 1:
        for job in work:
            o = translate_one(job)
            progress.update(o.display)
            yield o
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool
    done: dict = {}
    nxt = 0
    # The translator's start-up (imports, pattern discovery, templates) happens once: here,
    # before the workers fork, so that they inherit it (or, where processes are spawned, once
    # per worker in its initializer), never once per file.
    _warm_up()
    # Largest files first, so that a long file does not start last and leave the other
    # workers idle at the end; results still come out in input order.
    order = sorted(work, key=lambda job: -_size(job))
    with ProcessPoolExecutor(max_workers=min(jobs, len(work)), initializer=_warm_up,
                             mp_context=multiprocessing.get_context()) as pool:
        futures = {pool.submit(translate_one, job): job for job in order}
        for fut in as_completed(futures):
            job = futures[fut]
            try:
                o = fut.result()
            except BrokenProcessPool as e:  # a worker died (e.g. a crash in a native parser)
                o = Outcome(job[0], job[1], job[2], problem=internal_diagnostic(job[2], e))
            done[o.index] = o
            progress.update(o.display)
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1


_WARM_KERNEL = """import cuda.tile as ct


@ct.kernel
def warm(x, TILE: ct.Constant[int]):
    ct.store(x, (ct.bid(0),), ct.load(x, (ct.bid(0),), (TILE,)) + 1)
"""
_warmed = False


def _warm_up() -> None:
    """Import the translator, discover the patterns and compile the templates (translating a
    small kernel fills their caches); a no-op the second time in a process."""
    global _warmed
    if not _warmed:
        from ..translate import translate_source
        translate_source(_WARM_KERNEL, "<warm-up>")
        _warmed = True


def _size(job) -> int:
    _, path, _, data = job[:4]
    if data is not None:
        return len(data)
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _write_all(pending, say, verbose):
    """Write every output; a failure is reported and the rest are still written."""
    written, failed = [], []
    for k, (target, data, source, expect) in enumerate(pending):
        try:
            write_atomic(target, data, expect=expect)
        except OSError as e:
            failed.append((str(target), e.strerror or str(e)))
            say(Diagnostic("T2T005", f"cannot write {target}: {e.strerror or e}", path=source,
                           help="check that the output folder is writable and has space; "
                           "the other outputs were written").format())
            continue
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (main): say what is on disk now
            lines = [f"tile2triton: interrupted; {len(written)} file(s) written"
                     + (":" if written else "")]
            lines += [f"  {t}" for t in written]
            lines.append(f"{len(pending) - k} not written (left as they were):")
            lines += [f"  {t}" for t, *_ in pending[k:]]
            say("\n".join(lines))
            raise
        written.append(str(target))
        if verbose > 0:
            say(f"wrote {target}")
    return written, failed


# -- entry point ----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = argparse.ArgumentParser(
        prog="tile2triton", parents=[common],
        description="Translate cuTile Python kernels into Triton, and check translations.",
        epilog="Exit status: 0 success, 1 something needs attention, 2 usage error, "
        "3 internal error.")
    parser.add_argument("--version", action="version", version=f"tile2triton {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module, func in COMMANDS:
        getattr(importlib.import_module(module), func)(sub, common)
    return parser


def main(argv=None) -> int:
    # file names that are not valid UTF-8 (surrogate escapes) are shown escaped, never a crash
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
    parser = build_parser()
    args = parser.parse_args(argv)
    restore_signals = terminate_like_interrupt()
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return status
    except UsageError as e:
        print(f"tile2triton: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Terminated as e:
        return 128 + e.signum
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, and keep Python's own flush at exit
        # from failing again on the closed pipe
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except Exception as e:  # noqa: BLE001 - a bug: one line, not a traceback (-vv shows it)
        if (getattr(args, "verbose", 0) or 0) >= 2:
            import traceback
            traceback.print_exc()
        print(f"tile2triton: internal error: {type(e).__name__}: {e}\n"
              "help: this is a tile2triton bug; please report it (-vv shows the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        restore_signals()
