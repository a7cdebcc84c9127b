"""The upstream-style kernels at the configuration ct.tune chooses on real cuTile.

For each kernel of benchmarks/upstream/, a `ct.tune.exhaustive_search` over the tile shapes and
hints such libraries search, at their benchmark sizes; then one launch of the configuration it
chose, checked against a float64 torch reference. Under `tile2triton bench --exec` that launch
is the one timed (the candidates the tuner tries are listed, not timed), both sides at cuTile's
choice:

    tile2triton bench --exec "python3 benchmarks/upstream/tuned.py" --variants "num_warps=4,8"
    python3 benchmarks/upstream/tuned.py --small      (CPU: reference interpreter, tiny sizes;
                                                       `tile2triton check --exec` runs it so)
    python3 benchmarks/upstream/tuned.py --only gemm_hints,decode_attention
"""
import argparse
import importlib.util
import math
import sys
from pathlib import Path

import cuda.tile as ct
import torch

HERE = Path(__file__).resolve().parent


def kernels(name):
    """benchmarks/upstream/<name>/kernel.py as a module (its kernels keep their source file)."""
    spec = importlib.util.spec_from_file_location(f"upstream_{name}_kernel", HERE / name / "kernel.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


class Run:
    def __init__(self, small: bool):
        self.small = small
        self.device = "cpu" if small else "cuda"
        self.stream = None if small else torch.cuda.current_stream()
        self.sms = 3 if small else torch.cuda.get_device_properties(0).multi_processor_count
        self.gen = torch.Generator().manual_seed(23)

    def randn(self, *shape, dtype=torch.float32, scale=1.0):
        return (scale * torch.randn(*shape, generator=self.gen)).to(dtype).to(self.device)

    def tune_and_launch(self, label, kernel, space, grid_fn, args_fn, hints_fn=None):
        """The tuner's choice among `space`, launched once on `args_fn(cfg, final=True)`."""
        result = ct.tune.exhaustive_search(space, self.stream, grid_fn, kernel,
                                           lambda cfg: args_fn(cfg, False), hints_fn, quiet=True)
        cfg = result.best.config
        print(f"{label}: ct.tune chose {cfg} of {len(space)}", flush=True)
        chosen = kernel.replace_hints(**hints_fn(cfg)) if hints_fn else kernel
        ct.launch(self.stream, grid_fn(cfg), chosen, args_fn(cfg, True))
        return cfg


def check(label, got, want, tol):
    err = float((got.double() - want).norm() / want.norm())
    print(f"  {label}: relative error against float64 {err:.1e}", flush=True)
    assert err < tol, (label, err)


def gemm_hints(run):
    mod = kernels("gemm_hints")
    if run.small:
        sizes = [((100, 90, 70), torch.float16)]
        space = [dict(tiles=(64, 64, 32), num_ctas=1), dict(tiles=(32, 64, 32), num_ctas=2)]
    else:
        sizes = [((4096, 4096, 4096), torch.float16), ((8192, 8192, 8192), torch.bfloat16)]
        # the four tile shapes on one CTA per block, the two middle ones on 2-CTA clusters too
        space = [dict(tiles=t, num_ctas=1) for t in ((64, 256, 64), (128, 256, 64),
                                                     (256, 128, 64), (256, 256, 64))]
        space += [dict(tiles=t, num_ctas=2) for t in ((128, 256, 64), (256, 128, 64))]
    for (m, n, k), dt in sizes:
        a, b = run.randn(m, k, dtype=dt, scale=k ** -0.5), run.randn(k, n, dtype=dt)
        c = torch.empty(m, n, dtype=dt, device=run.device)
        run.tune_and_launch(
            f"gemm_hints {m}x{n}x{k} {dt}", mod.gemm_grouped, space,
            lambda cfg: (ct.cdiv(m, cfg["tiles"][0]) * ct.cdiv(n, cfg["tiles"][1]),),
            lambda cfg, final: (a, b, c if final else torch.empty_like(c), *cfg["tiles"]),
            lambda cfg: {"num_ctas": cfg["num_ctas"], "occupancy": 1})
        check("gemm_hints", c, a.double() @ b.double(), 2e-2)


def persistent_gemm(run):
    mod = kernels("persistent_gemm")
    if run.small:
        (m, n, k), dt = (130, 100, 70), torch.float16
        space = [(32, 32, 32), (32, 64, 16)]
    else:
        (m, n, k), dt = (4096, 4096, 4096), torch.float16
        space = [(128, 256, 64), (128, 128, 64), (256, 128, 64)]
    a, b = run.randn(m, k, dtype=dt, scale=k ** -0.5), run.randn(k, n, dtype=dt)
    c = torch.empty(m, n, dtype=dt, device=run.device)
    run.tune_and_launch(
        f"persistent_gemm {m}x{n}x{k} {dt}", mod.gemm_persistent, space,
        lambda t: (min(run.sms, ct.cdiv(m, t[0]) * ct.cdiv(n, t[1])),),
        lambda t, final: (a, b, c if final else torch.empty_like(c), *t, 8))
    check("persistent_gemm", c, a.double() @ b.double(), 2e-2)


def decode(run):
    """decode_attention's split-KV kernel, tuned, then the combine kernel on its partials."""
    mod, comb = kernels("decode_attention"), kernels("decode_combine")
    if run.small:
        batch, hq, hkv, n, d = 2, 8, 2, 300, 32
        space = [dict(split=128, tile_n=32), dict(split=64, tile_n=64)]
    else:
        batch, hq, hkv, n, d = 8, 32, 8, 8192, 128
        space = [dict(split=s, tile_n=t) for s in (512, 1024) for t in (64, 128)]
    dt = torch.float16
    q = run.randn(batch, hq, d, dtype=dt)
    k, v = run.randn(batch, hkv, n, d, dtype=dt), run.randn(batch, hkv, n, d, dtype=dt)
    splits = {cfg["split"]: -(-n // cfg["split"]) for cfg in space}
    parts = {s: (torch.empty(batch, hq, splits[s], d, device=run.device),
                 torch.empty(batch, hq, splits[s], device=run.device)) for s in splits}
    cfg = run.tune_and_launch(
        f"decode_attention b={batch} {hq}/{hkv} heads {n} keys d={d}", mod.decode_split_kv, space,
        lambda cfg: (splits[cfg["split"]], hkv, batch),
        lambda cfg, final: (q, k, v, *(parts[cfg["split"]] if final else
                                       (torch.empty_like(x) for x in parts[cfg["split"]])),
                            1.0 / math.sqrt(d), cfg["split"], hq // hkv, cfg["tile_n"], d))
    out_partial, lse_partial = parts[cfg["split"]]
    out = torch.empty(batch, hq, d, dtype=dt, device=run.device)
    tile_splits = 1 << max(splits[cfg["split"]] - 1, 0).bit_length()
    ct.launch(run.stream, (hq, batch), comb.decode_combine,
              (out_partial, lse_partial, out, tile_splits, d))
    kr = k.double().repeat_interleave(hq // hkv, dim=1)
    vr = v.double().repeat_interleave(hq // hkv, dim=1)
    s = torch.einsum("bhd,bhnd->bhn", q.double(), kr) / math.sqrt(d)
    check("decode attention + combine", out, torch.einsum("bhn,bhnd->bhd", s.softmax(-1), vr), 5e-3)


def rmsnorm_persistent(run):
    mod = kernels("rmsnorm_persistent")
    if run.small:
        shapes, space = [((37, 100), torch.float16)], [2, 4]
    else:
        shapes, space = [((16384, 4096), torch.float16), ((16384, 4096), torch.bfloat16)], [1, 2, 4]
    for (m, n), dt in shapes:
        x, w = run.randn(m, n, dtype=dt), (1 + 0.1 * run.randn(n)).to(dt)
        y = torch.empty_like(x)
        tn = 1 << (n - 1).bit_length()
        run.tune_and_launch(
            f"rmsnorm_persistent {m}x{n} {dt}", mod.rmsnorm_persistent, space,
            lambda rows: (min(run.sms, ct.cdiv(m, rows)),),
            lambda rows, final: (x, w, y if final else torch.empty_like(y), 1e-6, rows, tn))
        xd = x.double()
        check("rmsnorm_persistent", y, xd * torch.rsqrt((xd * xd).mean(1, keepdim=True) + 1e-6)
              * w.double(), 1e-2)


PARTS = {"gemm_hints": gemm_hints, "persistent_gemm": persistent_gemm, "decode": decode,
         "rmsnorm_persistent": rmsnorm_persistent}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", action="store_true", help="tiny sizes on the CPU")
    ap.add_argument("--only", default="", help=f"comma-separated subset of {', '.join(PARTS)}")
    a = ap.parse_args(argv)
    run = Run(a.small)
    for name in [n for n in a.only.split(",") if n] or PARTS:
        PARTS[name](run)


if __name__ == "__main__":
    main()
