"""Host time per launch: the runtime backend's ct.launch against the static output's launcher
(what `tile2triton convert` writes), for the same kernels and arguments (target: within 1.2x).

    python tools/gpu/runtime_host_time.py OUT.json      (on a GPU; docs/runtime.md)

Each kernel is launched N times in a row per round, timed with perf_counter on the host (the
launches queue on the GPU; the device is synchronized after each round, outside the timing),
the two forms in alternating rounds; the figure is the median round's time per launch."""
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

SOURCE = '''
import tile2triton.cutile as ct


@ct.kernel
def vadd(a, b, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i,), ct.load(a, (i,), (TILE,)) + ct.load(b, (i,), (TILE,)))


@ct.kernel
def mm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, (ct.bid(0), k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, (k, ct.bid(1)), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, (ct.bid(0), ct.bid(1)), ct.astype(acc, C.dtype))
'''


def main(out_path):
    import importlib.util

    import tile2triton.cutile as ct
    from tile2triton.translate import translate_source
    folder = Path(tempfile.mkdtemp())
    src = folder / "host_time_kernels.py"
    src.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("host_time_kernels", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = translate_source(SOURCE.replace("tile2triton.cutile", "cuda.tile"), str(src))
    assert res.ok, [d.format() for d in res.diagnostics()]
    static_path = folder / "host_time_static.py"
    static_path.write_text(res.output)
    spec = importlib.util.spec_from_file_location("host_time_static", static_path)
    static = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(static)
    stream = torch.cuda.current_stream()
    n = 1 << 16
    a, b, o = (torch.randn(n, device="cuda") for _ in range(3))
    A = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    B = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    C = torch.empty(256, 256, device="cuda", dtype=torch.float16)
    cases = {
        "vadd": ((n // 1024,), (a, b, o, 1024), mod.vadd, static.launch_vadd),
        "mm": ((2, 2, 1), (A, B, C, 128, 128, 64), mod.mm, static.launch_mm),
    }
    rows = {}
    for name, (grid, args, kernel, launcher) in cases.items():
        forms = {"runtime": lambda: ct.launch(stream, grid, kernel, args),
                 "static": lambda: launcher(stream, grid, *args)}
        times = {f: [] for f in forms}
        for f in forms.values():
            for _ in range(20):
                f()                       # translate, compile, warm
        torch.cuda.synchronize()
        for _ in range(15):
            for form, f in forms.items():
                start = time.perf_counter()
                for _ in range(500):
                    f()
                times[form].append((time.perf_counter() - start) / 500 * 1e6)
                torch.cuda.synchronize()
        med = {f: statistics.median(t) for f, t in times.items()}
        rows[name] = dict(runtime_us=round(med["runtime"], 2), static_us=round(med["static"], 2),
                          ratio=round(med["runtime"] / med["static"], 3))
        print(name, rows[name])
    torch.testing.assert_close(o, a + b)
    torch.testing.assert_close(C.float(), A.float() @ B.float(), atol=0.5, rtol=0.02)
    Path(out_path).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["ratio"] <= 1.2 for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
