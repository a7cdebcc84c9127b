"""Measure how much real cuTile code translates: every kernel of a tree of Python files.

    python tools/translate_upstream.py [ROOT ...] [--top N] [--list CODE] [--json FILE]

Default roots: /tmp/cutile/samples and /tmp/cutile/test (cuTile's upstream samples and test
suite, read-only). For each file the whole module is translated (`translate_source`); each
module-level `@ct.kernel` counts as translated or failed, and the diagnostics of failed kernels
are grouped by code and by message with names, numbers and quoted text normalised, so that the
most frequent causes come first. Kernels defined inside functions are counted separately (they
are not module-level kernels and are not translated by `convert`).

`--each-kernel` measures the idioms inside kernels independently of where they are defined: every
`@ct.kernel` of a file, module-level or nested in a function or class, is translated alone in a
synthetic module made of the file's module-level imports, assignments and non-kernel functions,
the simple assignments and functions of the scopes enclosing it (closure constants and local
helpers), and the kernel itself. Host code is left out, so only kernel-side diagnostics count.

A translated kernel is additionally checked for text that cannot be Triton: the output module
must compile as Python. This is a lower bound on failures (it does not run Triton).
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

import libcst as cst

from tile2triton.translate import translate_source

DEFAULT_ROOTS = ["/tmp/cutile/samples", "/tmp/cutile/test"]


def _normalise(message: str) -> str:
    m = re.sub(r"`[^`]*`", "`_`", message)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m


class _NestedKernels(cst.CSTVisitor):
    """Counts @ct.kernel / @kernel decorated functions that are not at module level."""

    def __init__(self):
        self.depth = 0
        self.nested = 0

    def visit_FunctionDef(self, node):
        if self.depth > 0 and any(_is_kernel_decorator(d) for d in node.decorators):
            self.nested += 1
        self.depth += 1

    def leave_FunctionDef(self, node):
        self.depth -= 1

    def visit_ClassDef(self, node):
        self.depth += 1

    def leave_ClassDef(self, node):
        self.depth -= 1


def _is_kernel_decorator(dec: cst.Decorator) -> bool:
    e = dec.decorator
    if isinstance(e, cst.Call):
        e = e.func
    return (isinstance(e, cst.Attribute) and e.attr.value == "kernel") or (
        isinstance(e, cst.Name) and e.value == "kernel")


def _kernels_alone(module: cst.Module):
    """(name, synthetic module text) for every kernel of the module, see --each-kernel."""
    base = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Import, cst.ImportFrom, cst.Assign, cst.AnnAssign))
                for s in stmt.body):
            base.append(stmt)
        elif isinstance(stmt, cst.FunctionDef) and not any(
                _is_kernel_decorator(d) for d in stmt.decorators):
            base.append(stmt)
    found = []

    def walk(body, scope: list):
        local = [s for s in body if isinstance(s, cst.SimpleStatementLine) and all(
            isinstance(x, (cst.Assign, cst.AnnAssign, cst.Import, cst.ImportFrom))
            for x in s.body)]
        local += [s for s in body if isinstance(s, cst.FunctionDef)
                  and not any(_is_kernel_decorator(d) for d in s.decorators)]
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                if any(_is_kernel_decorator(d) for d in stmt.decorators):
                    found.append((stmt.name.value, scope + local, stmt))
                elif isinstance(stmt.body, cst.IndentedBlock):
                    walk(stmt.body.body, scope + local)
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                walk(stmt.body.body, scope)
            elif isinstance(stmt, (cst.If, cst.With, cst.For, cst.Try)) and isinstance(
                    getattr(stmt, "body", None), cst.IndentedBlock):
                walk(stmt.body.body, scope)

    walk(list(module.body), [])
    for name, scope, kdef in found:
        decorators = [d for d in kdef.decorators if _is_kernel_decorator(d)]
        body = base + [s for s in scope if s not in base] + [kdef.with_changes(
            decorators=decorators)]
        yield name, cst.Module(body=body).code


def measure_each(roots: list[str]) -> dict:
    files = []
    for root in roots:
        p = Path(root)
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    stats = collections.Counter()
    by_code = collections.Counter()
    by_message = collections.Counter()
    examples: dict = {}
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if "cuda.tile" not in text and "cuda import tile" not in text:
            continue
        try:
            module = cst.parse_module(text)
        except Exception:  # noqa: BLE001
            continue
        stats["files"] += 1
        for name, synthetic in _kernels_alone(module):
            res = translate_source(synthetic, str(f))
            reports = [k for k in res.kernels if k.kernel == name]
            stats["kernels"] += 1
            if reports and reports[-1].status == "translated":
                stats["translated"] += 1
                continue
            diags = reports[-1].diagnostics if reports else res.diagnostics()
            for d in diags[:1]:
                key = f"{d.code} {_normalise(d.message)}"
                by_code[d.code] += 1
                by_message[key] += 1
                # line numbers refer to the synthetic module: report the source line instead
                examples.setdefault(key, []).append(
                    f"{f}:{name}: {d.message} | {(d.source_line or '').strip()}")
    return {"stats": dict(stats), "by_code": dict(by_code.most_common()),
            "by_message": dict(by_message.most_common()), "examples": examples}


def measure(roots: list[str]) -> dict:
    files = []
    for root in roots:
        p = Path(root)
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    stats = collections.Counter()
    by_code = collections.Counter()
    by_message = collections.Counter()
    examples: dict = {}
    per_file = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if "cuda.tile" not in text and "cuda import tile" not in text:
            continue
        try:
            nested = _NestedKernels()
            cst.parse_module(text).visit(nested)
            stats["nested_kernels"] += nested.nested
        except Exception:  # noqa: BLE001 - a file libcst cannot parse is reported by translate
            pass
        res = translate_source(text, str(f))
        failed = [k for k in res.kernels if k.status != "translated"]
        stats["files"] += 1
        stats["kernels"] += len(res.kernels)
        stats["translated"] += len(res.kernels) - len(failed)
        if res.kernels and not failed and res.output is not None:
            try:
                compile(res.output, str(f), "exec")
            except SyntaxError as e:
                stats["output_not_python"] += 1
                by_message[f"OUTPUT-SYNTAX {e.msg}"] += 1
        for d in res.diagnostics():
            key = f"{d.code} {_normalise(d.message)}"
            by_code[d.code] += 1
            by_message[key] += 1
            examples.setdefault(key, []).append(f"{d.path}:{d.line}:{d.col}: {d.message}")
        per_file.append({"file": str(f), "kernels": len(res.kernels), "failed": len(failed)})
    return {"stats": dict(stats), "by_code": dict(by_code.most_common()),
            "by_message": dict(by_message.most_common()), "examples": examples,
            "files": per_file}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", default=DEFAULT_ROOTS)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--list", metavar="PREFIX", help="print every occurrence of messages "
                                                    "starting with PREFIX (e.g. T2T107)")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--each-kernel", action="store_true",
                    help="translate every kernel alone, nested ones included")
    args = ap.parse_args(argv)
    r = (measure_each if args.each_kernel else measure)(args.roots)
    s = r["stats"]
    k = s.get("kernels", 0)
    rate = 100.0 * s.get("translated", 0) / k if k else 0.0
    if args.each_kernel:
        print(f"files with cuTile: {s.get('files', 0)}; kernels (module-level and nested): {k}; "
              f"translated alone: {s.get('translated', 0)} ({rate:.1f} %)")
    else:
            print(f"files with cuTile: {s.get('files', 0)}; module-level kernels: {k}; translated: "
              f"{s.get('translated', 0)} ({rate:.1f} %); kernels nested in functions (not "
              f"counted): {s.get('nested_kernels', 0)}")
    print("\nby code:", ", ".join(f"{c} {n}" for c, n in r["by_code"].items()))
    print("\nmost frequent causes:")
    for msg, n in list(r["by_message"].items())[:args.top]:
        print(f"{n:5d}  {msg}")
    if args.list:
        for msg, occ in r["examples"].items():
            if msg.startswith(args.list):
                print(f"\n== {msg}")
                for o in occ:
                    print("   ", o)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
