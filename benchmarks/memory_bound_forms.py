"""GPU: which forms of the memory-bound suite kernels reach copy bandwidth?

The suite measured (run 16) layernorm forward at 75 % (fp16) and 48 % (fp32) of a copy of its
useful bytes, and vector add with 128-wide tiles at 60 % (cuTile 60 % too). This script times
variants of the translation against a device copy of the same bytes, in one run:

layernorm forward (the translation of benchmarks/suite/layernorm_fwd, three passes over a row):
  base            the translation as emitted
  keep_x          the first two passes load X with eviction_policy="evict_last" (X is read
                  again), the last pass with "evict_first"
  stages3         every tile loop pipelined: `tl.range(..., num_stages=3)`
  keep_x_stages3  both
  warps=N         the translation with N warps

vector add, 128-wide tiles (hand-written Triton with the translation's structure):
  tile128         one 128-wide tile per program (what cuTile and the translation launch)
  coarsen_C       C consecutive blocks per program, a `tl.static_range(C)` loop over them
  tile1024        the same work with 1024-wide tiles (the upper bound)

fp16 matmul, 128x128x64 tiles (hand-written Triton, tiles grouped by 8 along M as in the suite):
  ptr             pointer loads with masks (the translation's form)
  tma             host-built TMA descriptors (triton.tools.tensor_descriptor), zero fill by TMA
  tma_persistent  the same, as a persistent kernel over SM-count programs (`flatten=True`)
at 4096^3 and K = 4088, beside torch.matmul and the translation of benchmarks/suite/matmul and
benchmarks/suite/persistent_matmul.

    python3 benchmarks/memory_bound_forms.py [--json FILE]     (after source .gpu/activate.sh)
"""
import argparse
import importlib.util
import json
import re
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from tile2triton.translate import translate_source  # noqa: E402


def _module(text: str, name: str, tmp: Path):
    path = tmp / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _copy_ms(nbytes: int) -> float:
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return triton.testing.do_bench(lambda: dst.copy_(src), warmup=50, rep=300)


def layernorm_variants(text: str) -> dict:
    """Source variants of the layernorm translation (see the module docstring)."""
    out = {"base": text}
    loads = [m.start() for m in re.finditer(r"tl\.load\(\s*X_ptr", text)]
    assert len(loads) == 3, len(loads)

    def hint(src, policies):
        # insert `eviction_policy=...` as the first keyword of each X load, last one first
        for pos, pol in sorted(zip(loads, policies), reverse=True):
            close = src.index("mask=", pos)
            src = src[:close] + f'eviction_policy="{pol}", ' + src[close:]
        return src

    keep = hint(text, ["evict_last", "evict_last", "evict_first"])
    out["keep_x"] = keep
    staged = re.sub(r"for j in range\(n_tiles\):", "for j in tl.range(n_tiles, num_stages=3):",
                    text)
    out["stages3"] = staged
    out["keep_x_stages3"] = re.sub(r"for j in range\(n_tiles\):",
                                   "for j in tl.range(n_tiles, num_stages=3):", keep)
    return out


def bench_layernorm(tmp: Path, rows: list):
    path = ROOT / "benchmarks" / "suite" / "layernorm_fwd" / "kernel.py"
    res = translate_source(path.read_text(), str(path))
    assert res.ok
    variants = layernorm_variants(res.output)
    for (m, n), dt in (((8192, 4096), torch.float16), ((4096, 8192), torch.float32)):
        x = torch.randn(m, n, device="cuda", dtype=dt)
        w = torch.randn(n, device="cuda", dtype=dt)
        b = torch.randn(n, device="cuda", dtype=dt)
        mean = torch.empty(m, device="cuda", dtype=torch.float32)
        rstd = torch.empty(m, device="cuda", dtype=torch.float32)
        ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
        nbytes = 2 * m * n * x.element_size()
        copy = _copy_ms(nbytes)
        forms = [(k, v, None) for k, v in variants.items()]
        forms += [(f"warps={w_}", variants["base"], w_) for w_ in (1, 2, 8)]
        for name, src, warps in forms:
            mod = _module(src, f"ln_{name.replace('=', '')}_{dt}".replace(".", "_"), tmp)
            y = torch.empty_like(x)
            if warps is None:
                def run(mod=mod, y=y):
                    mod.launch(None, x, w, b, y, mean, rstd, 1e-5)
            else:
                run = _with_warps(mod, x, w, b, y, mean, rstd, m, warps)
            run()
            torch.cuda.synchronize()
            err = (y.float() - ref).abs().max().item()
            ms = triton.testing.do_bench(run, warmup=50, rep=300)
            rows.append(dict(kernel="layernorm_fwd", config=f"{m}x{n} {dt}", form=name, ms=ms,
                             gbs=nbytes / ms / 1e6, of_copy=copy / ms, max_abs_err=err))
            print(rows[-1], flush=True)


def _with_warps(mod, x, w, b, y, mean, rstd, m, warps):
    """Call the translated kernel directly with the launcher's arguments and `warps` warps."""
    import inspect
    src = inspect.getsource(mod.launch_layernorm_fwd)
    assert "num_warps=num_warps" in src
    kern = mod.layernorm_fwd
    args = []
    for a in (x, w, b, y, mean, rstd):
        args += [a, *a.shape, *a.stride()]
    args += [1e-5, 1024]
    names = ("X", "W", "B", "Y", "Mean", "Rstd")
    consts = {f"{n}_div": mod._multiples(a.shape, a.stride())
              for n, a in zip(names, (x, w, b, y, mean, rstd))}
    consts["USE_INT64"] = False

    def run():
        kern[(m, 1, 1)](*args, **consts, num_warps=warps, num_stages=2)
    return run


@triton.jit
def _vadd_tile(a, b, c, n, TILE: tl.constexpr, C: tl.constexpr):
    pid = tl.program_id(0)
    for i in tl.static_range(C):
        offs = (pid * C + i) * TILE + tl.arange(0, TILE)
        mask = offs < n
        tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)


def bench_vector_add(rows: list):
    n = 1 << 26
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    nbytes = 3 * n * 4
    copy = _copy_ms(2 * n * 4) * 1.5       # a copy moves 2 of the 3 arrays' bytes
    for name, tile, coarsen, warps in (("tile128", 128, 1, 1), ("tile128_w4", 128, 1, 4),
                                       ("coarsen_2", 128, 2, 1), ("coarsen_4", 128, 4, 1),
                                       ("coarsen_8", 128, 8, 1), ("coarsen_8_w2", 128, 8, 2),
                                       ("tile1024", 1024, 1, 4)):
        grid = (triton.cdiv(n, tile * coarsen),)

        def run():
            _vadd_tile[grid](a, b, c, n, TILE=tile, C=coarsen, num_warps=warps)
        run()
        torch.cuda.synchronize()
        assert torch.equal(c, a + b)
        ms = triton.testing.do_bench(run, warmup=50, rep=300)
        rows.append(dict(kernel="vector_add", config="2^26 fp32", form=name, ms=ms,
                         gbs=nbytes / ms / 1e6, of_copy=copy / ms))
        print(rows[-1], flush=True)


@triton.jit
def _mm_ptr(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first = pid // per_group * GROUP
    rows = min(tiles_m - first, GROUP)
    bm = first + pid % rows
    bn = pid % per_group // rows
    om = bm * BM + tl.arange(0, BM)
    on = bn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        ok = k * BK + tl.arange(0, BK)
        x = tl.load(a + om[:, None] * sam + ok[None, :] * sak,
                    mask=(om[:, None] < M) & (ok[None, :] < K), other=0.0)
        y = tl.load(b + ok[:, None] * sbk + on[None, :] * sbn,
                    mask=(ok[:, None] < K) & (on[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + om[:, None] * scm + on[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(om[:, None] < M) & (on[None, :] < N))


@triton.jit
def _mm_tma(a_desc, b_desc, c_desc, M, N, K,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first = pid // per_group * GROUP
    rows = min(tiles_m - first, GROUP)
    bm = first + pid % rows
    bn = pid % per_group // rows
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([bm * BM, k * BK]), b_desc.load([k * BK, bn * BN]), acc)
    c_desc.store([bm * BM, bn * BN], acc.to(c_desc.dtype))


@triton.jit
def _mm_tma_persistent(a_desc, b_desc, c_desc, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       GROUP: tl.constexpr, FLATTEN: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, tl.num_programs(0),
                         flatten=FLATTEN):
        first = tile // per_group * GROUP
        rows = min(tiles_m - first, GROUP)
        bm = first + tile % rows
        bn = tile % per_group // rows
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([bm * BM, k * BK]), b_desc.load([k * BK, bn * BN]), acc)
        c_desc.store([bm * BM, bn * BN], acc.to(c_desc.dtype))


def bench_matmul(tmp: Path, rows: list):
    from triton.tools.tensor_descriptor import TensorDescriptor
    from tile2triton.verify.bench import translate_file
    plain, _ = translate_file(ROOT / "benchmarks" / "suite" / "matmul" / "kernel.py", tmp,
                              "forms_mm")
    pers, _ = translate_file(ROOT / "benchmarks" / "suite" / "persistent_matmul" / "kernel.py",
                             tmp, "forms_pmm")
    bm, bn, bk = 128, 128, 64
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for m, n, k in ((4096, 4096, 4096), (4096, 4096, 4088), (8192, 8192, 8192)):
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        ref = (a.float() @ b.float())
        tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
        ad = TensorDescriptor.from_tensor(a, [bm, bk])
        bd = TensorDescriptor.from_tensor(b, [bk, bn])
        cd = TensorDescriptor.from_tensor(c, [bm, bn])
        forms = {
            "torch.matmul": lambda: torch.matmul(a, b, out=c),
            "translation": lambda: plain.launch(None, a, b, c, (bm, bn, bk)),
            "translation_persistent": lambda: pers.launch(None, a, b, c, (bm, bn, bk)),
            "ptr": lambda: _mm_ptr[(tiles,)](a, b, c, m, n, k, *a.stride(), *b.stride(),
                                             *c.stride(), BM=bm, BN=bn, BK=bk, GROUP=8,
                                             num_warps=8, num_stages=3),
            "tma": lambda: _mm_tma[(tiles,)](ad, bd, cd, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8,
                                             num_warps=8, num_stages=3),
            "tma_w4_s4": lambda: _mm_tma[(tiles,)](ad, bd, cd, m, n, k, BM=bm, BN=bn, BK=bk,
                                                   GROUP=8, num_warps=4, num_stages=4),
        }
        for flat in (False, True):
            for warps, stages in ((8, 3), (8, 4), (4, 4)):
                forms[f"tma_persistent_flat{int(flat)}_w{warps}_s{stages}"] = (
                    lambda flat=flat, warps=warps, stages=stages: _mm_tma_persistent[
                        (min(sms, tiles),)](ad, bd, cd, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8,
                                            FLATTEN=flat, num_warps=warps, num_stages=stages))
        for name, run in forms.items():
            try:
                c.zero_()
                run()
                torch.cuda.synchronize()
                err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                ms = triton.testing.do_bench(run, warmup=50, rep=300)
            except Exception as e:          # a form that does not compile is a finding too
                rows.append(dict(kernel="matmul_fp16", config=f"{m}x{n}x{k}", form=name,
                                 error=f"{type(e).__name__}: {str(e)[:300]}"))
                print(rows[-1], flush=True)
                continue
            rows.append(dict(kernel="matmul_fp16", config=f"{m}x{n}x{k}", form=name, ms=ms,
                             tflops=2 * m * n * k / ms / 1e9, rel_err=err))
            print(rows[-1], flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    rows = []
    bench_vector_add(rows)
    bench_layernorm(tmp, rows)
    bench_matmul(tmp, rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
