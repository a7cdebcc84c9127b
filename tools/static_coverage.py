"""Which kernels of a tree can the static artifact serve? (issue 21: what `convert` writes is
what gets verified; no GPU, nothing executed)

    python tools/static_coverage.py [ROOT ...] [--list] [--json FILE]

For every Python file under ROOT (default /tmp/cutile/test) that mentions cuda.tile, every
kernel definition (a function decorated `@ct.kernel`, or handed to `ct.kernel(f, ...)`, at any
depth: module level, in a host function, in a class) is looked up in the file's static
artifact exactly as the checker looks up a launched kernel (`verify.artifacts.module_artifact`
then `ModuleArtifact.find`, with the function's `__qualname__` as Python would spell it). Each
kernel is `served` (the artifact has a translated kernel and launcher for it), `failed` (found,
but its translation failed: grouped by diagnostic code and normalised message) or `absent`
(the artifact has no kernel for it: grouped by the lookup's reason). A kernel launched with
several ranks or constants counts once: this counts definitions, not launches.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from tile2triton.verify.artifacts import module_artifact

DEFAULT_ROOTS = ["/tmp/cutile/test"]


def _is_kernel_expr(node) -> bool:
    """`ct.kernel`, `ct.kernel(...)`, `kernel`, `kernel(...)` (any alias spelled `.kernel`)."""
    if isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Attribute) and node.attr == "kernel") or (
        isinstance(node, ast.Name) and node.id == "kernel")


def kernel_defs(tree):
    """(qualname, name, line) of every kernel definition in the module."""
    handed = set()            # names handed to ct.kernel(f, ...) anywhere in the file
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _is_kernel_expr(n.func) and n.args \
                and isinstance(n.args[0], ast.Name):
            handed.add(n.args[0].id)
    out = []

    def walk(body, prefix):
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + s.name
                is_kernel = any(_is_kernel_expr(d) for d in s.decorator_list) or (
                    s.name in handed and not any(
                        isinstance(d, (ast.Name, ast.Attribute)) and getattr(
                            d, "attr", getattr(d, "id", None)) == "function"
                        for d in s.decorator_list))
                if is_kernel:
                    out.append((qual, s.name, s.lineno))
                walk(s.body, qual + ".<locals>.")
            elif isinstance(s, ast.ClassDef):
                walk(s.body, prefix + s.name + ".")
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(s, field, None)
                    if isinstance(sub, list):
                        walk([x for x in sub if isinstance(x, ast.stmt)] +
                             [y for h in sub if isinstance(h, ast.ExceptHandler)
                              for y in h.body], prefix)
    walk(tree.body, "")
    return out


def _normalise(message: str) -> str:
    m = re.sub(r"`[^`]*`", "`_`", message)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:150]


def measure(roots):
    rows = []
    for root in roots:
        files = sorted(Path(root).rglob("*.py")) if Path(root).is_dir() else [Path(root)]
        for f in files:
            text = f.read_text(encoding="utf-8", errors="replace")
            if "cuda.tile" not in text and "cuda import tile" not in text:
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            defs = kernel_defs(tree)
            if not defs:
                continue
            t0 = time.time()
            try:
                art = module_artifact(str(f))
            except Exception as e:  # noqa: BLE001 - counted as the file's failure
                for qual, name, line in defs:
                    rows.append(dict(file=str(f), kernel=qual, line=line, state="absent",
                                     why=f"translator crashed: {type(e).__name__}"))
                continue
            secs = time.time() - t0
            for qual, name, line in defs:
                func = SimpleNamespace(__qualname__=qual, __name__=name,
                                       __code__=SimpleNamespace(co_firstlineno=line))
                row = dict(file=str(f), kernel=qual, line=line, mode=art.mode,
                           seconds=round(secs, 2))
                if art.text is None:
                    row.update(state="absent", why="the module does not translate: " +
                               _normalise(art.module_diagnostics.split("\n")[0]))
                else:
                    rep, why = art.find(func)
                    if rep is None:
                        row.update(state="absent", why=_normalise(why))
                    elif rep.status != "translated":
                        d = rep.diagnostics[0] if rep.diagnostics else None
                        row.update(state="failed", why=(f"{d.code} {_normalise(d.message)}"
                                                        if d else "no diagnostic"))
                    else:
                        row.update(state="served")
                rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="*", default=DEFAULT_ROOTS)
    ap.add_argument("--list", action="store_true", help="print every kernel not served")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args(argv)
    rows = measure(a.roots)
    states = collections.Counter(r["state"] for r in rows)
    n = len(rows)
    print(f"kernels: {n}; served: {states['served']} "
          f"({100 * states['served'] / max(n, 1):.1f} %); failed: {states['failed']}; "
          f"absent: {states['absent']}")
    why = collections.Counter((r["state"], r["why"]) for r in rows if r["state"] != "served")
    for (state, w), c in why.most_common(a.top):
        print(f"{c:5d}  {state:7s} {w}")
    if a.list:
        for r in rows:
            if r["state"] != "served":
                print(f"{r['file']}:{r['line']}: {r['kernel']}: {r['state']}: {r['why']}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
