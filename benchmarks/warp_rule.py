"""GPU: how many warps should a kernel that loops over a row in tiles get?

The suite's sweeps (run 23) disagree by dtype for layernorm forward, whose programs walk a row in
1024-wide tiles three times: 8192x4096 fp16 is best at 2 warps (4 is within 3 %), 4096x8192 fp32
at 16 warps (1.7x faster than the launcher's 4). The two configurations differ in dtype, row
length (tiles per row) and row count (programs per SM) at once. This script separates them: the
translation of benchmarks/suite/layernorm_fwd at several shapes of the same element count, both
dtypes, every warp count, each time against a device copy of the same bytes.

    python3 benchmarks/warp_rule.py [--json FILE]     (after source .gpu/activate.sh)
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
sys.path.insert(0, str(ROOT / "benchmarks"))
from memory_bound_forms import _copy_ms, _module  # noqa: E402
from tile2triton.translate import translate_source  # noqa: E402
from tile2triton.verify.bench import with_variant  # noqa: E402

SHAPES = [(2048, 16384), (4096, 8192), (8192, 4096), (16384, 2048), (32768, 1024)]
WARPS = [None, 1, 2, 4, 8, 16]   # None: the launcher's own choice


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    path = ROOT / "benchmarks" / "suite" / "layernorm_fwd" / "kernel.py"
    res = translate_source(path.read_text(), str(path))
    assert res.ok
    tmp = Path(tempfile.mkdtemp())
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    for dt in (torch.float16, torch.float32):
        for m, n in SHAPES:
            x = torch.randn(m, n, device="cuda", dtype=dt)
            w = torch.randn(n, device="cuda", dtype=dt)
            b = torch.randn(n, device="cuda", dtype=dt)
            mean = torch.empty(m, device="cuda", dtype=torch.float32)
            rstd = torch.empty(m, device="cuda", dtype=torch.float32)
            ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
            nbytes = 2 * m * n * x.element_size()
            copy = _copy_ms(nbytes)
            for warps in WARPS:
                # a fresh module per variant: the launcher's direct path caches compiled kernels
                tag = "launcher" if warps is None else f"w{warps}"
                mod = _module(res.output, f"ln_{tag}_{m}_{n}_{str(dt)[6:]}", tmp)
                y = torch.empty_like(x)

                def run(mod=mod, y=y):
                    mod.launch(None, x, w, b, y, mean, rstd, 1e-5)

                opts = {} if warps is None else {"num_warps": warps}
                with with_variant(mod, opts):
                    run()
                    torch.cuda.synchronize()
                    err = (y.float() - ref).abs().max().item()
                    ms = triton.testing.do_bench(run, warmup=50, rep=300)
                rows.append(dict(shape=[m, n], dtype=str(dt), warps=tag, ms=ms,
                                 of_copy=copy / ms, programs_per_sm=m / sms,
                                 tiles_per_row=-(-n // 1024), max_abs_err=err))
                print(json.dumps(rows[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
