"""Command line: `tile2triton convert PATH... [-o OUT]` (and `check`, see verify/).

Exit status: 0 every kernel translated, 1 some kernel needs attention, 2 usage error.
Outputs are written atomically (temp file + rename); a file with a failed kernel is not written,
and `convert -o` never writes over an input.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path

from .diagnostics import UsageError
from .translate import ModuleResult, translate_source


def iter_inputs(paths: list[str]):
    """(input path, path relative to its root) for every .py file named or under a folder."""
    for p in paths:
        if p == "-":
            yield "-", Path("stdin.py")
            continue
        path = Path(p)
        if path.is_dir():
            for f in sorted(path.rglob("*.py")):
                if any(part.startswith(".") or part == "__pycache__"
                       for part in f.relative_to(path).parts):
                    continue
                yield f, f.relative_to(path)
        elif path.is_file():
            yield path, Path(path.name)
        else:
            raise UsageError(f"no such file or directory: {p}")


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _records(result: ModuleResult) -> list[dict]:
    out = []
    for k in result.kernels:
        out.append({"file": result.path, "kernel": k.kernel, "line": k.line, "status": k.status,
                    "diagnostics": [d.as_json() for d in k.diagnostics]})
    if result.module_diagnostics:
        out.append({"file": result.path, "kernel": None, "line": 0, "status": "failed",
                    "diagnostics": [d.as_json() for d in result.module_diagnostics]})
    return out


def cmd_convert(args) -> int:
    inputs = list(iter_inputs(args.paths))
    if not inputs:
        raise UsageError("no Python files found in the given paths")
    out = Path(args.output) if args.output else None
    single_file_out = out is not None and len(inputs) == 1 and out.suffix == ".py"
    if out is None and not args.in_place and not args.check and len(inputs) > 1 \
            and not args.diff:
        raise UsageError("several inputs need -o OUT (a folder), --in-place, --diff or --check")
    resolved_inputs = {Path(p).resolve() for p, _ in inputs if p != "-"}
    records, n_kernels, n_files, n_bad = [], 0, 0, 0
    pending = []
    for path, rel in inputs:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        result = translate_source(text, str(path) if path != "-" else "<stdin>")
        records.extend(_records(result))
        if result.has_cutile:
            n_files += 1
        n_kernels += sum(1 for k in result.kernels if k.status == "translated")
        bad = sum(1 for k in result.kernels if k.status == "failed") + (
            1 if result.module_diagnostics else 0)
        n_bad += bad
        for d in result.diagnostics():
            print(d.format(), file=sys.stderr)
            print(file=sys.stderr)
        if not result.ok:
            continue
        if args.check:
            if result.has_cutile:
                print(f"{path}: needs converting", file=sys.stderr)
            continue
        if args.diff:
            diff = difflib.unified_diff(text.splitlines(True), result.output.splitlines(True),
                                        f"a/{rel}", f"b/{rel}")
            sys.stdout.writelines(diff)
            continue
        if args.in_place:
            if path != "-" and result.has_cutile:
                pending.append((Path(path), result.output))
            elif path == "-":
                sys.stdout.write(result.output)
            continue
        if out is None:
            sys.stdout.write(result.output)
            continue
        target = out if single_file_out else out / rel
        if target.resolve() in resolved_inputs:
            raise UsageError(f"refusing to overwrite input {path} (use --in-place to rewrite "
                             "files where they are)")
        pending.append((target, result.output))
    for target, text in pending:
        write_atomic(target, text)
    if args.json:
        write_atomic(Path(args.json), json.dumps({"kernels": records}, indent=2) + "\n")
    summary = (f"Translated {n_kernels} kernel{'s' if n_kernels != 1 else ''} in {n_files} "
               f"file{'s' if n_files != 1 else ''}; {n_bad} need{'s' if n_bad == 1 else ''} "
               "attention")
    print(summary, file=sys.stderr)
    if args.check and n_files:
        return 1
    return 1 if n_bad else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tile2triton", description="Translate cuTile Python kernels into Triton.")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="translate files or folders",
                          description="Translate cuTile kernels in files or folders to Triton.")
    conv.add_argument("paths", nargs="+", help="files, folders, or - for stdin")
    conv.add_argument("-o", "--output", help="output file (one input) or folder (mirrors inputs)")
    conv.add_argument("--in-place", action="store_true",
                      help="rewrite files where they are (codemod mode)")
    conv.add_argument("--diff", action="store_true", help="print a unified diff, write nothing")
    conv.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 if some file still has cuTile kernels")
    conv.add_argument("--json", metavar="FILE", help="write one record per kernel to FILE")
    conv.set_defaults(func=cmd_convert)
    try:
        from .verify.cli import add_check_command
        add_check_command(sub)
    except ImportError:  # the checker needs torch; conversion does not
        pass
    from .verify.bench import add_bench_command  # imports torch only when run
    add_bench_command(sub)
    from .verify.inspection import add_inspect_command
    add_inspect_command(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UsageError as e:
        print(f"tile2triton: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
