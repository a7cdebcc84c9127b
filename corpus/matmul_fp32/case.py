import torch

CASES = [
    {"mnk": (100, 90, 130), "dtype": torch.float32},
    {"mnk": (33, 150, 141), "dtype": torch.float32},
    {"mnk": (70, 45, 99), "dtype": torch.float32},
]

# GPU timing sizes (`tile2triton bench`): an fp32 product on CUDA cores, for the launcher's
# ptxas level (docs/performance.md)
BENCH = [{"mnk": (2048, 2048, 2048), "dtype": torch.float32},
         {"mnk": (4096, 4096, 4096), "dtype": torch.float32}]

OUTPUTS = ("c",)

# Tight on purpose: float32 accumulation of float32 products stays far below this,
# while TF32 operands (10-bit mantissa) miss it by an order of magnitude.
TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=1e-4)}


def make_args(case, gen, device):
    m, n, k = case["mnk"]
    a = torch.randn(m, k, generator=gen)
    b = torch.randn(k, n, generator=gen)
    return {"a": a.to(device), "b": b.to(device),
            "c": torch.empty(m, n, dtype=torch.float32, device=device)}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}
