"""GPU: which form of the fp16 matmul translation beats cuTile at cuTile's own tile?

Times, in one alternating-rounds comparison per problem (so every form shares cuTile's
measurement), the translation of benchmarks/suite/matmul as the launcher runs it, the same with
other warps / stages, and these forms of it:
  * `tma_store`: the output tile written through a TMA descriptor (`C_desc.store`) instead of a
    masked pointer store, where the launcher can build one (otherwise the pointer store);
  * `no_flatten`: the persistent walk over blocks (coarsen.py) without `flatten=`, so Triton
    pipelines only the loop over K;
  * `every_sm`: one program per SM. The translation runs as many programs as the walk needs at
    its number of rounds (`_walk_programs`: 8192^3 at 128x128 tiles is 4096 blocks, 32 rounds
    on 132 SMs, which 128 programs also finish in 32), so that no SM runs a round of its own
    at the end; run 40 measured that form (then called `balanced`) against this one;
  * `two_per_sm`: twice as many programs as SMs at 3 stages (2 x 96 KB of shared memory), so
    one program's epilogue overlaps the other's main loop.
Each form's output is compared with cuTile's (fp16 products of the same tiles: equal).

GPU run 32 ran an earlier version of this script (commit 9da65e0) on the translation from before
the persistent walk, with the walk written in by hand: one block per program 1.00-1.01x cuTile,
walked 1.04-1.07x; that measurement is why the translator now walks blocks.

    python3 benchmarks/gemm_forms.py [--json FILE] [--rounds N]   (after source .gpu/activate.sh)
"""
import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from memory_bound_forms import _module  # noqa: E402
from tile2triton.translate import translate_source  # noqa: E402
from tile2triton.verify.bench import time_alternating, with_variant  # noqa: E402

PROBLEMS = [("matmul", 4096, 4096, 4096), ("matmul", 8192, 8192, 8192),
            ("matmul", 4096, 4096, 4088)]
TILES = (128, 128, 64)
OPTIONS = {"": {}, "w4s5": {"num_warps": 4, "num_stages": 5},
           "w4s3": {"num_warps": 4, "num_stages": 3}, "w8s4": {"num_warps": 8, "num_stages": 4}}
_STORE = re.compile(r"(?P<ind> +)tl\.store\(\n\s+C_ptr \+ offs_C0\[:, None\] \* C_stride0 \+ "
                    r"offs_C1\[None, :\] \* C_stride1,\n\s+(?P<val>[^\n]+),\n\s+mask=mask_C,\n\s+\)")


def tma_store(text: str) -> str:
    """The translation with its output tile written through a TMA descriptor of C."""
    def store(m):
        ind, val = m["ind"], m["val"]
        return (f"{ind}if C_desc is not None:\n{ind}    C_desc.store([bm * tm, bn * tn], {val})\n"
                f"{ind}else:\n" + "\n".join("    " + line for line in m[0].splitlines()))
    text, n = _STORE.subn(store, text)
    assert n == 1, n
    # C's descriptor follows B's, in the kernel's parameters and in the launcher's arguments
    text, n = re.subn(r"\n( +)B_desc,\n", r"\n\1B_desc,\n\1C_desc,\n", text, count=2)
    assert n == 2, n
    text = text.replace("    B_desc = _tma_descriptor(B, (tk, tn))\n",
                        "    B_desc = _tma_descriptor(B, (tk, tn))\n"
                        "    C_desc = _tma_descriptor(C, (tm, tn))\n", 1)
    return text


_GRID = "        grid = (_walk_programs(grid_x, A),)\n"
_SMS = "torch.cuda.get_device_properties(A.device).multi_processor_count"


def every_sm(text: str) -> str:
    """The walk on one program per SM (the translator's form until run 40)."""
    assert _GRID in text
    return text.replace(_GRID, f"        grid = (min(grid_x, {_SMS}),)\n", 1)


def two_per_sm(text: str) -> str:
    assert _GRID in text
    return text.replace(_GRID, f"        grid = (min(grid_x, 2 * {_SMS}),)\n", 1)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--forms", help="comma-separated forms to time (default: all)")
    ap.add_argument("--options", help="comma-separated OPTIONS keys (default: all; '' is the "
                    "launcher's own choice, written 'launcher')")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    rows = []
    for case, m, n, k in PROBLEMS:
        path = ROOT / "benchmarks" / "suite" / case / "kernel.py"
        res = translate_source(path.read_text(), str(path))
        assert res.ok
        original = _module(path.read_text(), f"orig_{case}", tmp)
        assert "flatten=FLATTEN" in res.output
        texts = {"translation": res.output, "tma_store": tma_store(res.output),
                 "no_flatten": res.output.replace("flatten=FLATTEN", "flatten=False"),
                 "every_sm": every_sm(res.output), "two_per_sm": two_per_sm(res.output)}
        if args.forms:
            texts = {f: t for f, t in texts.items() if f in args.forms.split(",")}
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        outs = {"cutile": torch.empty(m, n, device="cuda", dtype=torch.float16)}
        fns = {"cutile": lambda: original.launch(torch.cuda.current_stream(), a, b,
                                                 outs["cutile"], TILES)}
        for form, text in texts.items():
            for oname, opts in OPTIONS.items():
                if args.options and (oname or "launcher") not in args.options.split(","):
                    continue
                name = form + ("/" + oname if oname else "")
                # a module per form and options, its kernels replaced for good (the launcher's
                # cache of compiled kernels is per module)
                mod = _module(text, f"{form}_{oname}_{case}", tmp)
                with_variant(mod, opts).__enter__()
                out = outs[name] = torch.empty(m, n, device="cuda", dtype=torch.float16)
                fns[name] = (lambda mod=mod, out=out:
                             mod.launch(torch.cuda.current_stream(), a, b, out, TILES))
        for name in list(fns):
            try:
                fns[name]()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - a form Triton rejects is a finding too
                rows.append(dict(case=case, mnk=[m, n, k], form=name,
                                 error=f"{type(e).__name__}: {e}"[:400]))
                print(json.dumps(rows[-1]), flush=True)
                del fns[name]
        times = time_alternating(fns, rounds=args.rounds)
        base = times["cutile"]["ms"]
        for name, t in times.items():
            same = bool(torch.equal(outs[name], outs["cutile"]))
            rows.append(dict(case=case, mnk=[m, n, k], form=name, ms=t["ms"], iqr_ms=t["iqr_ms"],
                             ratio=base / t["ms"], tflops=2 * m * n * k / t["ms"] / 1e9,
                             equal_to_cutile=same))
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
