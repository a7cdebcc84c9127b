"""Which Triton product matches cuTile's numerics, for the two samples that fail through the
translation (issue 29): MatMul's fp32 case (tfloat32 operands) and BatchMatMul's fp8 case.

Run on the H200 from the repo root, with cuTile's samples at .cutile/samples:
    python3 tools/gpu/numerics_probe.py --json OUT.json

tf32: cuTile's `astype(ct.tfloat32)` before ct.mma, and cuBLAS at "high" precision, round fp32
operands to tf32; Triton's `input_precision="tf32"` hands fp32 bits to the tensor cores, which
drop the low 13. Variants: raw operands; operands rounded to nearest-even on the host (a copy);
rounded in the kernel (both, or only A with B rounded on the host). Each is compared with
cuTile's result and with torch at the sample's tolerance, and timed at 4096^3.
fp8: `max_num_imprecise_acc` in {0, 32, 64, 128, default}, over a row-major and a K-major B:
which gives cuTile's result (the sample compares with cuBLAS's fp8 product at assert_close's
fp32 tolerance).
"""
import argparse
import importlib.util
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[2]


def load_sample(name):
    path = ROOT / ".cutile" / "samples" / f"{name}.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"sample_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@triton.jit
def _rne_tf32(x):
    bits = x.to(tl.uint32, bitcast=True)
    return ((bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000).to(tl.float32, bitcast=True)


@triton.jit
def mm_kernel(a, b, c, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr,
              IMPRECISE: tl.constexpr, ROUND_A: tl.constexpr, ROUND_B: tl.constexpr):
    pm, pn, pb = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        x = tl.load(a + pb * sab + rm[:, None] * sam + ka[None, :] * sak,
                    mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        y = tl.load(b + pb * sbb + ka[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        if ROUND_A:
            x = _rne_tf32(x)
        if ROUND_B:
            y = _rne_tf32(y)
        if IMPRECISE < 0:
            acc = tl.dot(x, y, acc, input_precision=PREC)
        else:
            acc = tl.dot(x, y, acc, input_precision=PREC, max_num_imprecise_acc=IMPRECISE)
    tl.store(c + pb * scb + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def rne_tf32_host(x):
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0xFFF + ((bits >> 13) & 1)) & -8192).view(torch.float32)


def run_mm(a, b, out_dtype, tiles, prec, imprecise=-1, round_a=False, round_b=False):
    batched = a.dim() == 3
    A, B = (a, b) if batched else (a[None], b[None])
    bs, M, K = A.shape
    N = B.shape[2]
    C = torch.empty((bs, M, N), device=a.device, dtype=out_dtype)
    BM, BN, BK = tiles
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), bs)
    mm_kernel[grid](A, B, C, M, N, K, *A.stride(), *B.stride(), *C.stride(), BM=BM, BN=BN, BK=BK,
                    PREC=prec, IMPRECISE=imprecise, ROUND_A=round_a, ROUND_B=round_b)
    return C if batched else C[0]


def compare(x, ref, atol, rtol):
    d = (x.double() - ref.double()).abs()
    bad = d > atol + rtol * ref.double().abs()
    return dict(max_abs=float(d.max()), frac_bad=float(bad.float().mean()),
                identical=bool(torch.equal(x, ref)))


def tf32_part(res):
    torch.manual_seed(0)
    mm = load_sample("MatMul")
    torch.set_float32_matmul_precision("high")
    atol, rtol = 2e-4, 1e-3
    for (M, K, N) in ((1024, 2048, 1024), (1000, 700, 500)):
        A = torch.randn(M, K, device="cuda")
        B = torch.randn(K, N, device="cuda")
        ref = A @ B
        cut = mm.cutile_matmul(A, B)
        row = dict(cutile_vs_torch=compare(cut, ref, atol, rtol))
        variants = {
            "raw": run_mm(A, B, torch.float32, (32, 32, 32), "tf32"),
            "host_rne": run_mm(rne_tf32_host(A), rne_tf32_host(B), torch.float32, (32, 32, 32),
                               "tf32"),
            "kernel_rne_both": run_mm(A, B, torch.float32, (32, 32, 32), "tf32",
                                      round_a=True, round_b=True),
            "kernel_rne_a_host_b": run_mm(A, rne_tf32_host(B), torch.float32, (32, 32, 32),
                                          "tf32", round_a=True),
            "raw_128": run_mm(A, B, torch.float32, (128, 128, 32), "tf32"),
            "host_rne_128": run_mm(rne_tf32_host(A), rne_tf32_host(B), torch.float32,
                                   (128, 128, 32), "tf32"),
        }
        for name, out in variants.items():
            row[name] = dict(vs_torch=compare(out, ref, atol, rtol),
                             vs_cutile=compare(out, cut, atol, rtol))
        res[f"tf32_{M}x{K}x{N}"] = row
    # speed at 4096^3, 128x128x32 tiles: the cost of each way of rounding
    M = K = N = 4096
    A = torch.randn(M, K, device="cuda")
    B = torch.randn(K, N, device="cuda")
    t = {}
    t["raw"] = triton.testing.do_bench(lambda: run_mm(A, B, torch.float32, (128, 128, 32), "tf32"))
    t["host_rne_both_incl_copies"] = triton.testing.do_bench(
        lambda: run_mm(rne_tf32_host(A), rne_tf32_host(B), torch.float32, (128, 128, 32), "tf32"))
    Br = rne_tf32_host(B)
    t["kernel_rne_a_host_b_prerounded"] = triton.testing.do_bench(
        lambda: run_mm(A, Br, torch.float32, (128, 128, 32), "tf32", round_a=True))
    t["kernel_rne_both"] = triton.testing.do_bench(
        lambda: run_mm(A, B, torch.float32, (128, 128, 32), "tf32", round_a=True, round_b=True))
    t["host_rne_one_copy"] = triton.testing.do_bench(lambda: rne_tf32_host(A))
    t["torch_matmul_tf32"] = triton.testing.do_bench(lambda: A @ B)
    res["tf32_time_ms_4096"] = t


def fp8_part(res):
    torch.manual_seed(0)
    bm = load_sample("BatchMatMul")
    A = torch.randn(4, 512, 256, device="cuda").to(torch.float8_e4m3fn)
    B = torch.randn(4, 256, 1024, device="cuda").to(torch.float8_e4m3fn)
    cut = bm.bmm(A, B, torch.float32)
    ref = bm.torch_batch_matmul_fp8(A, B)
    exact = torch.matmul(A.double(), B.double())
    atol, rtol = 1e-5, 1.3e-6
    row = dict(cutile_vs_cublas=compare(cut, ref, atol, rtol),
               cutile_vs_f64=compare(cut, exact, 2e-4, 0), cublas_vs_f64=compare(ref, exact, 2e-4, 0))
    # Triton multiplies fp8 on wgmma only over a K-major B; over a row-major one it upcasts
    # to fp16 (exact products, fp32 sums), where max_num_imprecise_acc does nothing
    Bk = B.transpose(-1, -2).contiguous().transpose(-1, -2)
    for layout, b in (("rowmajor", B), ("kmajor", Bk)):
        for imp in (0, 32, 64, 128, -1):
            try:
                out = run_mm(A, b, torch.float32, (128, 256, 128), None, imprecise=imp)
                row[f"{layout}_imprecise_{imp}"] = dict(
                    vs_cutile=compare(out, cut, atol, rtol), vs_cublas=compare(out, ref, atol, rtol),
                    vs_f64=compare(out, exact, 2e-4, 0))
            except Exception as e:
                row[f"{layout}_imprecise_{imp}"] = f"{type(e).__name__}: {str(e)[:200]}"
    res["fp8_bmm"] = row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    res = {}
    for part in (tf32_part, fp8_part):
        try:
            part(res)
        except Exception as e:  # a failing part leaves the other's figures
            res[part.__name__ + "_error"] = f"{type(e).__name__}: {e}"
    Path(args.json).write_text(json.dumps(res, indent=1))
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
