"""GPU: host time of one launch through the translation's launcher, against a raw Triton launch
of the same compiled kernel with the same arguments, and against cuTile's ct.launch.

The kernel (benchmarks/suite/vector_add at 4096 elements) takes a few microseconds on the device,
so back-to-back launches are bound by the host: wall time per call over many calls, after a
warm-up, synchronizing once at the end, median of several repeats.
    python3 benchmarks/launch_overhead.py [--json FILE]     (after source .gpu/activate.sh)
"""
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from tile2triton.verify.bench import translate_file  # noqa: E402
from tile2triton.verify.corpus import load_module  # noqa: E402


def per_call_us(fn, calls=2000, repeats=7):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    case = ROOT / "benchmarks" / "suite" / "vector_add"
    tr, _ = translate_file(case / "kernel.py", Path(tempfile.mkdtemp()), "overhead_vector_add")
    n, tile = 4096, 128
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton_cdiv(n, tile), 1, 1)
    stream = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    kern = tr.vector_add
    seen = {}

    class Recorder:  # stands in for the kernel once, to capture the launcher's exact call
        def __getitem__(self, g):
            def call(*args, **kw):
                seen.update(grid=g, args=args, kw=kw)
                return kern[g](*args, **kw)
            return call

    tr.vector_add = Recorder()
    tr.launch_vector_add(None, grid, x, y, out, tile)   # compiles
    tr.vector_add = kern
    torch.cuda.synchronize()
    launch = kern[seen["grid"]]
    r_args, r_kw = seen["args"], seen["kw"]

    def raw():  # the same compiled specialization, launched directly
        launch(*r_args, **r_kw)

    rows = {"raw Triton launch": per_call_us(raw),
            "launcher, stream None": per_call_us(
                lambda: tr.launch_vector_add(None, grid, x, y, out, tile)),
            "launcher, current stream": per_call_us(
                lambda: tr.launch_vector_add(stream, grid, x, y, out, tile))}
    with torch.cuda.stream(side):
        rows["launcher, another stream"] = per_call_us(
            lambda: tr.launch_vector_add(side, grid, x, y, out, tile))
    try:
        import cuda.tile as ct
        orig = load_module(case / "kernel.py", "overhead_vector_add_cutile")
        rows["cuTile ct.launch"] = per_call_us(
            lambda: ct.launch(stream, grid, orig.vector_add, (x, y, out, tile)))
    except Exception as e:  # noqa: BLE001 - the Triton numbers stand without it
        print(f"cuTile launch not measured: {type(e).__name__}: {e}")
    base = rows["raw Triton launch"]
    print("| launch | µs per call | × raw Triton |")
    print("| --- | ---: | ---: |")
    for k, v in rows.items():
        print(f"| {k} | {v:.1f} | {v / base:.2f} |")
    if a.json:
        Path(a.json).write_text(json.dumps({k: dict(us=v, vs_raw=v / base)
                                            for k, v in rows.items()}, indent=1))


def triton_cdiv(a, b):
    return -(-a // b)


if __name__ == "__main__":
    main()
