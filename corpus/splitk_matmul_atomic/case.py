import torch

CASES = [
    {"mnk": (40, 50, 300), "dtype": torch.float32},
    {"mnk": (33, 20, 141), "dtype": torch.float16},
    {"mnk": (17, 65, 40), "dtype": torch.float32},
]

OUTPUTS = ("c",)  # float32 (the atomic accumulator) for every input dtype

# Partial sums arrive in any order: float32 rounding of a K-long dot product.
TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    m, n, k = case["mnk"]
    a = torch.randn(m, k, generator=gen).to(case["dtype"])
    b = torch.randn(k, n, generator=gen).to(case["dtype"])
    return {"a": a.to(device), "b": b.to(device),
            "c": torch.empty(m, n, dtype=torch.float32, device=device)}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}
