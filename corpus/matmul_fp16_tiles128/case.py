import torch

# (M, N, K): none of them a multiple of the tiles.
# 128x128x64 tiles (the launch configuration matters most at this size: see docs)
CASES = [
    {"mnk": (200, 150, 130), "dtype": torch.float16},
    {"mnk": (300, 260, 200), "dtype": torch.bfloat16, "cpu": False},
]

# GPU benchmark sizes (tile2triton.verify.gpu_corpus --bench); never run on CPU
BENCH = [{"mnk": (4096, 4096, 4096), "dtype": torch.float16}]

OUTPUTS = ("c",)

# Each output element is a float32 sum of up to 150 products rounded once to half
# precision; outputs are of order sqrt(K) ~ 10, so allow a few half-precision ulps.
TOLERANCE = {
    torch.float16: dict(atol=3e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=1e-1, rtol=2e-2),
}


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = torch.randn(m, k, generator=gen).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}
