"""Undefined names in what `convert` writes, judged by ruff (F821), not by tile2triton's own
check: every folder given is converted into a temporary folder (`convert DIR -o TMP`), then
each written module's undefined names are compared with its input's. A name the input already
left undefined (a star import, a pytest fixture) is not the translation's doing.

    python tools/written_names.py /tmp/cutile-python/samples /tmp/cutile-python/test

Prints, per folder, the files written, then each written file with names its input did not
leave undefined, and the count. Needs ruff on PATH.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path


def undefined(paths: list[Path], root: Path) -> dict:
    """relative path -> set of F821 names, for the .py files under `root` among `paths`."""
    out: dict = defaultdict(set)
    if not paths:
        return out
    run = subprocess.run(["ruff", "check", "--isolated", "--no-cache", "--select", "F821",
                          "--output-format", "json", *map(str, paths)],
                         capture_output=True, text=True)
    for item in json.loads(run.stdout or "[]"):
        name = item["message"].split("`")[1]
        out[str(Path(item["filename"]).resolve().relative_to(root.resolve()))].add(name)
    return out


def main(argv: list[str]) -> int:
    bad_total = 0
    for folder in map(Path, argv):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / folder.name
            run = subprocess.run([sys.executable, "-m", "tile2triton", "convert", str(folder),
                                  "-o", str(out)], capture_output=True, text=True)
            summary = run.stderr.strip().splitlines()[-1:] or [""]
            written = sorted(p for p in out.rglob("*.py"))
            rel = [p.relative_to(out) for p in written]
            before = undefined([folder / r for r in rel], folder)
            after = undefined(written, out)
            bad = {r: sorted(after[r] - before[r]) for r in map(str, rel)
                   if after[r] - before[r]}
            print(f"{folder}: {summary[0]}")
            for r, names in sorted(bad.items()):
                print(f"  {r}: {', '.join(names)}")
            print(f"  {len(bad)} of {len(written)} written files have names their input "
                  "did not leave undefined")
            bad_total += len(bad)
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
