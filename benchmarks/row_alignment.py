"""GPU: does an fp16 matmul over A with rows that do not start 128-byte aligned (K = 4088: a
row is 8176 bytes) lose its speed to the alignment, or to the ragged K?

The suite measures the translation at 4096x4096x4088 fp16 at 0.82x cuTile, against 1.04x at
4096^3 (GPU run 16). Timed here, the translation of benchmarks/suite/matmul (128x128x64 tiles):

  k4096          A contiguous, K = 4096 (the baseline)
  k4088          A contiguous, K = 4088 (rows 16-byte aligned only)
  k4088_padded   the same A values in a buffer whose rows are 4096 elements apart (every row
                 128-byte aligned), K = 4088
  pad_copy       making that padded copy (what a launcher would pay per call)

    python3 benchmarks/row_alignment.py [--json FILE]     (after source .gpu/activate.sh)
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from tile2triton.verify.bench import translate_file  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    tr, _ = translate_file(ROOT / "benchmarks" / "suite" / "matmul" / "kernel.py",
                           Path(tempfile.mkdtemp()), "row_alignment")
    torch.manual_seed(0)
    m = n = 4096
    tiles = (128, 128, 64)
    rows = []

    def run(a, b, c):
        tr.launch(None, a, b, c, tiles)

    b_full = torch.randn(4096, n, device="cuda", dtype=torch.float16)
    for name, k, padded in (("k4096", 4096, False), ("k4088", 4088, False),
                            ("k4088_padded", 4088, True)):
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        if padded:
            buf = torch.empty(m, 4096, device="cuda", dtype=torch.float16)
            buf[:, :k] = a
            a = buf[:, :k]
        b = b_full[:k]
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        run(a, b, c)
        torch.cuda.synchronize()
        err = ((c.double() - a.double() @ b.double()).abs().max() /
               (a.double() @ b.double()).abs().max()).item()
        ms = triton.testing.do_bench(lambda: run(a, b, c), warmup=50, rep=300)
        rows.append(dict(form=name, ms=ms, tflops=2 * m * n * k / ms / 1e9, rel_err=err,
                         a_stride=a.stride(0)))
    a = torch.randn(m, 4088, device="cuda", dtype=torch.float16)
    buf = torch.empty(m, 4096, device="cuda", dtype=torch.float16)

    def pad_copy():
        buf[:, :4088].copy_(a)

    rows.append(dict(form="pad_copy", ms=triton.testing.do_bench(pad_copy, warmup=50, rep=300)))
    print("| form | A row stride | ms | TFLOP/s | rel err |\n| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['form']} | {r.get('a_stride', '')} | {r['ms']:.4f} | "
              f"{r.get('tflops', 0):.1f} | {r.get('rel_err', 0):.1e} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
