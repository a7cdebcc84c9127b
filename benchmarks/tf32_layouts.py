"""GPU: why an fp32 (tf32) matmul translation runs at fp32-FMA speed, and which form of the same
dot reaches the tensor cores. Hopper's wgmma takes tf32 operands only K-major in shared memory;
a row-major B (K x N, N contiguous) is MN-major. Four hand-written forms of one tile loop:

  plain      tl.dot(a, b)                             B as stored (MN-major)
  swapped    tl.dot(b.T, a.T).T                       C^T = B^T A^T: the shared operand is K-major
  b_kmajor   B stored transposed (N x K), tl.dot(a, bt.T)   what a K-major B costs (upper bound)
  torch      torch.matmul with allow_tf32

    python3 benchmarks/tf32_layouts.py [--json FILE]     (after source .gpu/activate.sh)
"""
import argparse
import json

import torch
import triton
import triton.language as tl


@triton.jit
def _mm(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,
        TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, FORM: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, TN)
    bm = pid // tiles_n
    bn = pid % tiles_n
    rm = bm * TM + tl.arange(0, TM)
    rn = bn * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    if FORM == 1:
        acc_t = tl.zeros((TN, TM), tl.float32)
    else:
        acc = tl.zeros((TM, TN), tl.float32)
    for k in range(0, tl.cdiv(K, TK)):
        kk = k * TK + rk
        a = tl.load(A + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        if FORM == 1:
            acc_t = tl.dot(tl.trans(b), tl.trans(a), acc_t, input_precision="tf32")
        else:
            acc = tl.dot(a, b, acc, input_precision="tf32")
    if FORM == 1:
        acc = tl.trans(acc_t)
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(form, a, b, c, tiles, warps, stages):
    m, k = a.shape
    n = c.shape[1]
    tm, tn, tk = tiles
    if form == 2:       # b is stored transposed: (N, K) contiguous; strides as seen from (K, N)
        sbk, sbn = b.stride(1), b.stride(0)
    else:
        sbk, sbn = b.stride(0), b.stride(1)
    grid = (triton.cdiv(m, tm) * triton.cdiv(n, tn),)
    _mm[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), sbk, sbn, c.stride(0), c.stride(1),
              TM=tm, TN=tn, TK=tk, FORM=1 if form == 1 else 0,
              num_warps=warps, num_stages=stages)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    rows = []
    for m, n, k in [(4096, 4096, 4096), (3000, 5000, 2900)]:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        bt = b.t().contiguous()
        torch.backends.cuda.matmul.allow_tf32 = True
        ref = a @ b
        flop = 2 * m * n * k
        ms = triton.testing.do_bench(lambda: a @ b, warmup=50, rep=200)
        rows.append({"mnk": (m, n, k), "form": "torch", "ms": ms, "tflops": flop / ms / 1e9})
        for form, name in [(0, "plain"), (1, "swapped"), (2, "b_kmajor")]:
            for tiles, warps, stages in [((128, 128, 32), 4, 3), ((128, 128, 32), 8, 3),
                                         ((128, 256, 32), 8, 3), ((128, 128, 64), 8, 3)]:
                c = torch.empty(m, n, device="cuda")
                bb = bt if form == 2 else b
                try:
                    run(form, a, bb, c, tiles, warps, stages)
                    err = (c - ref).abs().max().item() / ref.abs().max().item()
                    ms = triton.testing.do_bench(
                        lambda: run(form, a, bb, c, tiles, warps, stages), warmup=50, rep=200)
                    rows.append({"mnk": (m, n, k), "form": name, "tiles": tiles, "warps": warps,
                                 "stages": stages, "ms": ms, "tflops": flop / ms / 1e9,
                                 "rel_err": err})
                except Exception as e:  # an out-of-resources config is a result too
                    rows.append({"mnk": (m, n, k), "form": name, "tiles": tiles, "warps": warps,
                                 "stages": stages, "error": str(e).splitlines()[0][:160]})
                print(rows[-1], flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
