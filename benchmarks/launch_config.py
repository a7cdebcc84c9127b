"""GPU: how the launcher's num_warps / num_stages choice compares with the alternatives, for the
translated 128x128x64 fp16 matmul (corpus/matmul_fp16_tiles128) at 4096^3, as a ratio to
real cuTile in one run.
    python3 benchmarks/launch_config.py        (on the H200, after source .gpu/activate.sh)
"""
import sys
from pathlib import Path

import torch
import triton.testing

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from tile2triton.verify.corpus import load_module  # noqa: E402

case = ROOT / "corpus" / "matmul_fp16_tiles128"
original = load_module(case / "kernel.py", "orig")
translated = load_module(case / "expected.py", "trans")
M = N = K = 4096
g = torch.Generator().manual_seed(0)
a = torch.randn(M, K, generator=g).half().cuda()
b = torch.randn(K, N, generator=g).half().cuda()
c = torch.empty(M, N, dtype=torch.float16, device="cuda")
stream = torch.cuda.current_stream()
ref = (a.float() @ b.float())


def bench(fn):
    return triton.testing.do_bench(fn, warmup=100, rep=500, return_mode="median")


t_cutile = min(bench(lambda: original.launch(stream, a, b, c)) for _ in range(2))
grid = (triton.cdiv(M, 128), triton.cdiv(N, 128), 1)
kern = translated.matmul_kernel
rows = []
for warps, stages in [(4, 3), (4, 4), (8, 3), (8, 4)]:
    def run():
        kern[grid](a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), c, *c.shape,
                   *c.stride(), 128, 128, 64,
                   a_div=translated._multiples(a.shape, a.stride()),
                   b_div=translated._multiples(b.shape, b.stride()),
                   c_div=translated._multiples(c.shape, c.stride()),
                   USE_INT64=False, num_warps=warps,
                   num_stages=stages)
    run()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    rows.append((warps, stages, bench(run), err))
t_launcher = bench(lambda: translated.launch(stream, a, b, c))
print(f"cuTile: {t_cutile:.4f} ms; translation through its launcher: {t_launcher:.4f} ms "
      f"(ratio {t_cutile / t_launcher:.3f})")
print("| num_warps | num_stages | ms | speed ratio cuTile/Triton | rel. error |")
print("| --- | --- | --- | --- | --- |")
for w, s, t, e in rows:
    print(f"| {w} | {s} | {t:.4f} | {t_cutile / t:.3f} | {e:.1e} |")
