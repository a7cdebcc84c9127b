"""Lines of `tile2triton convert`'s default output over lines of its input, per folder:
every .py file under each folder that mentions cuda.tile, translated with translate_source
(corpus goldens and case files left out), lines summed; files that do not translate are counted
apart. docs/generated-code.md reports the figures.

    python tools/size_ratio.py /tmp/cutile-python/samples /tmp/cutile-python/test/kernels
"""
import sys
from pathlib import Path

from tile2triton import translate_source


def measure(root: Path):
    lines_in = lines_out = files = failed = 0
    for path in sorted(root.rglob("*.py")):
        if path.name in ("case.py", "expected.py") or "expected" in path.parts \
                or path.name.startswith("_t2t"):
            continue
        text = path.read_text()
        if "cuda.tile" not in text:
            continue
        result = translate_source(text, str(path))
        if not result.ok or result.output is None:
            failed += 1
            continue
        lines_in += len(text.splitlines())
        lines_out += len(result.output.splitlines())
        files += 1
    return files, lines_in, lines_out, failed


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        files, n, m, failed = measure(Path(arg))
        print(f"{arg}: {files} files, {n} -> {m} lines, ratio {m / max(n, 1):.2f} "
              f"({failed} not translated)")
