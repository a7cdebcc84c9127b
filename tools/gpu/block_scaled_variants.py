"""Issue 21 item 2 on the GPU: cuTile's samples/BlockScaledMatMul.py, converted, launched with
its scales of rank 2 (logical) and rank 4 (swizzled) in all four combinations; each result is
compared with a float64 reference at the sample's own tolerances. The converted module is
imported from argv[1]; one JSON line per combination on stdout, exit 1 if any fails."""
import json
import sys

import torch

sys.path.insert(0, sys.argv[1])
import BlockScaledMatMul as sample  # noqa: E402  (the converted module)

torch.manual_seed(0)
M, N, K, block = 512, 512, 768, 32
A, A_scale = sample.block_quantize(torch.rand((M, K), device="cuda"), block)
B, B_scale = sample.block_quantize(torch.rand((N, K), device="cuda"), block)
B, B_scale = B.T, B_scale.T
scales = {("A", 2): A_scale, ("A", 4): sample.swizzle_32_4_4(A_scale),
          ("B", 2): B_scale, ("B", 4): sample.swizzle_32_4_4(B_scale.T.contiguous())}
ref = ((A.double() * torch.repeat_interleave(A_scale.double(), block, dim=1))
       @ (B.double() * torch.repeat_interleave(B_scale.double(), block, dim=0)))
failed = 0
for ra, rb in ((2, 2), (4, 4), (2, 4), (4, 2)):
    rec = {"A_scale_rank": ra, "B_scale_rank": rb}
    try:
        got = sample.cutile_block_scaled_matmul(A, scales["A", ra], B, scales["B", rb])
        torch.cuda.synchronize()
        err = (got.double() - ref).abs()
        rec.update(max_abs=float(err.max()), ok=bool(torch.allclose(
            got.double(), ref, atol=1e-4, rtol=1e-3)))
    except Exception as e:  # noqa: BLE001 - recorded, the next combination runs
        rec.update(ok=False, error=f"{type(e).__name__}: {e}"[:500])
    failed += not rec["ok"]
    print(json.dumps(rec), flush=True)
sys.exit(1 if failed else 0)
