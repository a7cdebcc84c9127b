"""GPU: ways to give a tf32 dot a K-major B, and what each costs, by problem size.

Run 13 (docs/gpu-results.md) found that a tf32 matmul over a row-major B (K x N, N contiguous)
runs at 82 TFLOP/s and over a K-major B at 230-307. The reason, read from the compiled code
(`tile2triton inspect --stage ptx`): Hopper's wgmma takes tf32 operands only K-major in shared
memory, so Triton keeps the B tile K-major there and fills it with one 4-byte cp.async per
element (strided by 16 bytes across a warp, bank-conflicted on the shared side) instead of
16-byte copies. The candidates timed here, all with the translation's launch choices for
128x128x32 tiles (4 warps, 3 stages):

  plain        the translation today: tl.dot(a, b) over B as stored
  round_b      B rounded to tf32 in registers (cvt.rna) before the dot: Triton then copies B
               into shared memory with 16-byte cp.async as stored and transposes it on its way
               through registers into the K-major wgmma buffer
  round_ab     both operands rounded in registers (A then feeds wgmma from registers)
  kmajor_copy  the launcher's candidate: a K-major copy of B (rows padded to 32 elements, so
               that every row starts 128-byte aligned), then the plain kernel over it; the copy
               is timed with the kernel
  kmajor_only  the kernel alone over the prepared copy (the bound kmajor_copy approaches)
  copy_only    the copy alone
  torch        torch.matmul with tf32 allowed

    python3 benchmarks/tf32_kmajor.py [--json FILE]     (after source .gpu/activate.sh)

Prints one row per (size, form): ms, TFLOP/s, largest error relative to the largest |C| of a
float64 product (tf32 products: about 1e-3).
"""
import argparse
import json

import torch
import triton
import triton.language as tl


@triton.jit
def _round_tf32(x):
    return tl.inline_asm_elementwise("cvt.rna.tf32.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                     is_pure=True, pack=1)


@triton.jit
def _mm(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,
        TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, FORM: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, TM)
    tiles_n = tl.cdiv(N, TN)
    per_group = 8 * tiles_n          # tiles grouped by 8 along M, as the suite's kernel does
    first_m = (pid // per_group) * 8
    rows = tl.minimum(tiles_m - first_m, 8)
    bm = first_m + pid % rows
    bn = (pid % per_group) // rows
    rm = bm * TM + tl.arange(0, TM)
    rn = bn * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    acc = tl.zeros((TM, TN), tl.float32)
    for k in range(0, tl.cdiv(K, TK)):
        kk = k * TK + rk
        a = tl.load(A + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        if FORM == 1:
            b = _round_tf32(b)
        elif FORM == 2:
            a = _round_tf32(a)
            b = _round_tf32(b)
        acc = tl.dot(a, b, acc, input_precision="tf32")
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def kmajor(b, pad=32):
    """A copy of b (K x N) with the same shape and values, stored K-major: element (k, n) at
    n * ld + k, ld = K rounded up to `pad`."""
    k, n = b.shape
    ld = -(-k // pad) * pad
    buf = torch.empty((n, ld), dtype=b.dtype, device=b.device)
    view = buf[:, :k]
    view.copy_(b.t())
    return view.t()


def run(form, a, b, c, tiles=(128, 128, 32), warps=4, stages=3):
    m, k = a.shape
    n = c.shape[1]
    tm, tn, tk = tiles
    grid = (triton.cdiv(m, tm) * triton.cdiv(n, tn),)
    _mm[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
              c.stride(0), c.stride(1), TM=tm, TN=tn, TK=tk, FORM=form,
              num_warps=warps, num_stages=stages)


SIZES = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
         (8192, 8192, 8192), (3000, 5000, 2900), (4096, 4096, 4088), (256, 4096, 4096),
         (4096, 256, 4096), (128, 8192, 8192)]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--sizes", default="", help="e.g. 4096x4096x4096,512x512x512 (default: all)")
    args = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",") if s] or SIZES
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = True
    rows = []
    print("| m, n, k | form | ms | TFLOP/s | rel err |")
    print("| --- | --- | ---: | ---: | ---: |")
    for m, n, k in sizes:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        ref = (a.double() @ b.double())
        scale = ref.abs().max().item()
        bk = kmajor(b)
        flop = 2 * m * n * k
        c = torch.empty(m, n, device="cuda")
        forms = {
            "torch": lambda: torch.matmul(a, b, out=c),
            "plain": lambda: run(0, a, b, c),
            "round_b": lambda: run(1, a, b, c),
            "round_ab": lambda: run(2, a, b, c),
            "kmajor_copy": lambda: run(0, a, kmajor(b), c),
            "kmajor_only": lambda: run(0, a, bk, c),
            "copy_only": lambda: kmajor(b),
        }
        for name, fn in forms.items():
            row = {"mnk": (m, n, k), "form": name}
            try:
                c.zero_()
                fn()
                torch.cuda.synchronize()
                if name != "copy_only":
                    row["rel_err"] = (c.double() - ref).abs().max().item() / scale
                ms = triton.testing.do_bench(fn, warmup=50, rep=300)
                row.update(ms=ms, tflops=flop / ms / 1e9)
            except Exception as e:  # noqa: BLE001 - a failing form is a result too
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
            rows.append(row)
            if "error" in row:
                print(f"| {m}x{n}x{k} | {name} | error: {row['error']} | | |", flush=True)
            else:
                err = f"{row['rel_err']:.1e}" if "rel_err" in row else ""
                print(f"| {m}x{n}x{k} | {name} | {row['ms']:.4f} | {row['tflops']:.1f} | {err} |",
                      flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
