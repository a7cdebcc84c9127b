"""How long converting a ~1,000-line cuTile module takes (CPU, end to end in-process).

Builds one module from the corpus kernels (each copy renamed so names stay unique) until it has
at least 1,000 lines, then times translate_source over several runs and prints the median.
    python benchmarks/convert_speed.py
"""
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tile2triton import translate_source  # noqa: E402


def build_module(min_lines=1000) -> str:
    parts = ["import cuda.tile as ct", "import torch", "ConstInt = ct.Constant[int]", ""]
    copy = 0
    while sum(p.count("\n") + 1 for p in parts) < min_lines:
        for path in sorted((ROOT / "corpus").glob("*/kernel.py")):
            text = path.read_text()
            if "from cuda.tile import" in text:
                continue
            body = "\n".join(l for l in text.splitlines() if not l.startswith(("import ", "from ")))
            names = re.findall(r"^def (\w+)", body, re.M)
            for n in names:
                body = re.sub(rf"(?<![.\w]){n}\b", f"{n}_{copy}", body)
            for n in re.findall(r"^(\w+) = ", body, re.M):
                body = re.sub(rf"(?<![.\w]){n}\b", f"{n}_{copy}", body)
            parts.append(body)
            copy += 1
    return "\n".join(parts)


def main():
    src = build_module()
    lines = src.count("\n") + 1
    translate_source(src, "warmup.py")  # imports, pattern discovery, template compilation
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        result = translate_source(src, "big.py")
        times.append(time.perf_counter() - t0)
    assert result.ok, [d.format() for d in result.diagnostics()][:3]
    print(f"{lines} lines, {len(result.kernels)} kernels: median {statistics.median(times)*1000:.0f} ms "
          f"(min {min(times)*1000:.0f} ms, max {max(times)*1000:.0f} ms over {len(times)} runs)")


if __name__ == "__main__":
    main()
