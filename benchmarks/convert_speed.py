"""How fast `convert` is (CPU).

    python benchmarks/convert_speed.py                      one ~1,000-line module, in-process
    python benchmarks/convert_speed.py --tree DIR --jobs 1 2   a folder through the CLI

Without --tree: builds one module from the corpus kernels (each copy renamed so names stay
unique) until it has at least 1,000 lines, then times translate_source over several runs and
prints the median.

With --tree: where the time of `tile2triton convert DIR --check -q -j N` goes. Start-up (the
interpreter and the CLI, `--version`; then importing the translator and translating one small
kernel, which discovers the patterns and compiles the templates), then every file translated
once in-process (total, median, largest: a batch cannot finish before its longest file), then
the CLI itself for each N, several runs each: wall time and files/s, and the CPU seconds of all
its processes (user + system, from the OS). On a machine shared with other work the wall times
depend on the load (printed with them); CPU seconds do not, and the ideal wall time of N jobs
is about start-up + max(CPU / N, longest file).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
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


WARM = ("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, T: ct.Constant[int]):\n"
        "    ct.store(x, (ct.bid(0),), ct.load(x, (ct.bid(0),), (T,)))\n")


def _cpu_of_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(cmd, env) -> tuple:
    """(wall s, CPU s of the command and its children, exit status)."""
    cpu0, t0 = _cpu_of_children(), time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, _cpu_of_children() - cpu0, p.returncode


def tree(root: Path, jobs: list, runs: int) -> None:
    files = sorted(p for p in root.rglob("*.py") if p.is_file())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    env.pop("TRITON_INTERPRET", None)
    cli = [sys.executable, "-m", "tile2triton"]
    print(f"{root}: {len(files)} files; {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    w, c, _ = min(_timed(cli + ["--version"], env) for _ in range(3))
    print(f"start-up, `tile2triton --version`: {w:.2f} s wall, {c:.2f} s CPU")
    probe = ("import time; t0 = time.process_time(); "
             "from tile2triton.translate import translate_source; t1 = time.process_time(); "
             f"translate_source({WARM!r}, 'w.py'); t2 = time.process_time(); "
             "print(t1 - t0, t2 - t1)")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True).stdout.split()
    print(f"start-up, importing the translator: {float(out[0]):.2f} s CPU; first translation "
          f"(pattern discovery, templates): {float(out[1]):.2f} s CPU")
    translate = translate_source
    per_file = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        a = time.process_time()
        try:
            translate(text, str(f))
        except Exception:  # noqa: BLE001 - a crash counts as its time; the CLI reports it
            pass
        per_file.append((time.process_time() - a, f))
    per_file.sort(reverse=True)
    total = sum(t for t, _ in per_file)
    print(f"per file, in-process (CPU): total {total:.1f} s, median "
          f"{statistics.median(t for t, _ in per_file) * 1000:.0f} ms, largest "
          f"{per_file[0][0]:.2f} s ({per_file[0][1].name})")
    for n in jobs:
        results = [_timed(cli + ["convert", str(root), "--check", "-q", "-j", str(n)], env)
                   for _ in range(runs)]
        failed = sorted({r[2] for r in results} - {0, 1})   # 1: files to convert or refused
        if failed:   # a usage or internal error: its time would be no measurement of convert
            sys.exit(f"-j {n}: `tile2triton convert {root} --check -q -j {n}` exited "
                     f"{failed[0]}; no time reported")
        walls = sorted(r[0] for r in results)
        cpus = sorted(r[1] for r in results)
        wall = statistics.median(walls)
        print(f"-j {n}: wall {wall:.1f} s (runs {', '.join(f'{x:.1f}' for x in walls)}), "
              f"{len(files) / wall:.1f} files/s; CPU {statistics.median(cpus):.1f} s; "
              f"load average now {os.getloadavg()[0]:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, help="a folder to convert through the CLI")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=3)
    opts = ap.parse_args()
    if opts.tree:
        tree(opts.tree, opts.jobs, opts.runs)
        return
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
