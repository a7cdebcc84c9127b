import torch

CASES = [
    {"mnk": (100, 90, 130), "dtype": torch.float32},
    {"mnk": (45, 120, 67), "dtype": torch.float32},
    {"mnk": (140, 35, 150), "dtype": torch.float32},
]

OUTPUTS = ("c",)

# TF32 rounds each operand to a 10-bit mantissa (relative error up to 2**-11 per operand).
# With |C| ~ sqrt(K) ~ 12 the absolute error stays well under these bounds.
TOLERANCE = {torch.float32: dict(atol=5e-2, rtol=1e-2)}


def make_args(case, gen, device):
    m, n, k = case["mnk"]
    a = torch.randn(m, k, generator=gen)
    b = torch.randn(k, n, generator=gen)
    return {"a": a.to(device), "b": b.to(device),
            "c": torch.empty(m, n, dtype=torch.float32, device=device)}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}
