"""GPU: host time of one launch through the translation's launcher, against a raw Triton launch
of the same compiled kernel with the same arguments, and against cuTile's ct.launch; then the
cost per launch when launches are captured in a CUDA graph and replayed (both sides).

The kernels (benchmarks/suite/vector_add at 4096 elements, benchmarks/suite/matmul at 256^3
fp16) take a few microseconds on the device, so back-to-back launches are bound by the host:
wall time per call over many calls, after a warm-up, synchronizing once at the end, median of
several repeats. The launcher's first call goes through Triton's dispatch; the timed ones take
its direct path (`_launch_known`).
    python3 benchmarks/launch_overhead.py [--json FILE] [--profile FILE]
(after source .gpu/activate.sh). --profile writes where the launcher's host time goes: cProfile
of 20000 direct-path calls of each launcher on the current stream, functions by their own time.
"""
import argparse
import contextlib
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


def per_call_us(rows, calls=2000, repeats=9):
    """Host time per call of each row (name -> (fn, context it runs in)): every row timed in each
    of `repeats` rounds, the order rotating, median per row. Rows measured one after another
    drifted with the machine (GPU runs 42-43: the same launcher 0.72x and 1.11x raw Triton);
    interleaved, the ratios share that drift."""
    for fn, ctx in rows.values():
        with ctx():
            for _ in range(200):
                fn()
    torch.cuda.synchronize()
    out = {name: [] for name in rows}
    names = list(rows)
    for r in range(repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn, ctx = rows[name]
            with ctx():
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn()
                torch.cuda.synchronize()
            out[name].append((time.perf_counter() - t0) * 1e6 / calls)
    return {name: statistics.median(v) for name, v in out.items()}


def measure(case_name, kernel_name, launch_args, grid, cutile_args, profile=None):
    """Rows for one kernel: raw Triton launch of the launcher's exact call, the launcher with
    stream None / the current stream / another stream, cuTile's ct.launch."""
    # a case of benchmarks/suite, or a path under benchmarks/ ("upstream/decode_combine")
    case = ROOT / "benchmarks" / (case_name if "/" in case_name else f"suite/{case_name}")
    case_name = case.name
    tr, _ = translate_file(case / "kernel.py", Path(tempfile.mkdtemp()), f"overhead_{case_name}")
    stream = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    kern = getattr(tr, kernel_name)
    launcher = getattr(tr, f"launch_{kernel_name}")
    seen = {}

    class Recorder:  # stands in for the kernel once, to capture the launcher's exact call
        def __getitem__(self, g):
            def call(*args, **kw):
                seen.update(grid=g, args=args, kw=kw)
                return kern[g](*args, **kw)
            return call

    setattr(tr, kernel_name, Recorder())
    launcher(None, grid, *launch_args)   # compiles
    setattr(tr, kernel_name, kern)
    torch.cuda.synchronize()
    launch = kern[seen["grid"]]
    r_args, r_kw = seen["args"], seen["kw"]

    def raw():  # the same compiled specialization, launched directly
        launch(*r_args, **r_kw)

    if profile:
        import cProfile
        import io
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20000):
            launcher(stream, grid, *launch_args)
        prof.disable()
        torch.cuda.synchronize()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(30)
        with open(profile, "a") as f:
            f.write(f"== {case_name}\n{text.getvalue()}")
    here = contextlib.nullcontext
    rows = {"raw Triton launch": (raw, here),
            "launcher, stream None": (lambda: launcher(None, grid, *launch_args), here),
            "launcher, current stream": (lambda: launcher(stream, grid, *launch_args), here),
            "launcher, another stream": (lambda: launcher(side, grid, *launch_args),
                                         lambda: torch.cuda.stream(side))}
    graphed = {}
    try:
        import cuda.tile as ct
        orig = load_module(case / "kernel.py", f"overhead_{case_name}_cutile")
        ct_kernel = getattr(orig, kernel_name)
        rows["cuTile ct.launch"] = (lambda: ct.launch(stream, grid, ct_kernel, cutile_args), here)
        graphed["cuTile ct.launch in a CUDA graph"] = lambda: ct.launch(
            torch.cuda.current_stream(), grid, ct_kernel, cutile_args)
    except Exception as e:  # noqa: BLE001 - the Triton numbers stand without it
        print(f"cuTile launch not measured: {type(e).__name__}: {e}")
    # Decode loops replay captured launches: the host then pays once per graph, not per launch
    graphed["launcher in a CUDA graph"] = lambda: launcher(None, grid, *launch_args)
    for name, call in graphed.items():
        try:
            rows[name] = (captured(call), here)
        except Exception as e:  # noqa: BLE001 - capture is measured where it works
            print(f"{name}: not measured: {type(e).__name__}: {e}")
    rows = per_call_us(rows)
    for name in graphed:
        if name in rows:
            rows[name] /= GRAPH_LAUNCHES
    return rows


GRAPH_LAUNCHES = 50


def captured(call):
    """`call` run GRAPH_LAUNCHES times in one CUDA graph (after a warm-up outside it): the
    returned function replays the graph, so its time over GRAPH_LAUNCHES is a launch's cost."""
    call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_LAUNCHES):
            call()
    return graph.replay


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--profile")
    a = ap.parse_args(argv)
    n, tile = 4096, 128
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    results = {"vector_add": measure("vector_add", "vector_add", (x, y, out, tile),
                                     (triton_cdiv(n, tile), 1, 1), (x, y, out, tile),
                                     a.profile)}
    # a 2-D kernel with constexpr tiles: 256^3 fp16, 4 blocks of 128x128
    m = 256
    A, B = (torch.randn(m, m, device="cuda", dtype=torch.float16) for _ in range(2))
    C = torch.empty(m, m, device="cuda", dtype=torch.float16)
    results["matmul"] = measure("matmul", "matmul_kernel", (A, B, C, 128, 128, 64),
                                (4, 1, 1), (A, B, C, 128, 128, 64), a.profile)
    # the combine step of split-KV decode attention (benchmarks/upstream): a decode-time kernel
    # of a few microseconds, 8 x 32 heads of 16 partials of 128, where the host time decides
    b, h, s, d = 8, 32, 16, 128
    part = torch.randn(b, h, s, d, device="cuda")
    lse = torch.randn(b, h, s, device="cuda")
    o = torch.empty(b, h, d, device="cuda", dtype=torch.float16)
    results["decode_combine"] = measure("upstream/decode_combine", "decode_combine",
                                        (part, lse, o, s, d), (h, b, 1), (part, lse, o, s, d),
                                        a.profile)
    for name, rows in results.items():
        base = rows["raw Triton launch"]
        ct_us = rows.get("cuTile ct.launch")
        print(f"\n{name}\n| launch | µs per call | × raw Triton | × ct.launch |")
        print("| --- | ---: | ---: | ---: |")
        for k, v in rows.items():
            print(f"| {k} | {v:.1f} | {v / base:.2f} | "
                  f"{f'{v / ct_us:.2f}' if ct_us else '—'} |")
    if a.json:
        Path(a.json).write_text(json.dumps(
            {name: {k: dict(us=v, vs_raw=v / rows["raw Triton launch"],
                            vs_ct_launch=(v / rows["cuTile ct.launch"]
                                          if "cuTile ct.launch" in rows else None))
                    for k, v in rows.items()}
             for name, rows in results.items()}, indent=1))


def triton_cdiv(a, b):
    return -(-a // b)


if __name__ == "__main__":
    main()
