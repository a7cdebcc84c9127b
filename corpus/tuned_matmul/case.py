import torch

CASES = [
    {"mnk": (70, 90, 50), "dtype": torch.float16},
    {"mnk": (200, 130, 100), "dtype": torch.bfloat16, "cpu": False},
]
OUTPUTS = ("c",)
TOLERANCE = {torch.float16: dict(atol=2e-2, rtol=1e-2), torch.bfloat16: dict(atol=1e-1, rtol=2e-2)}


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = torch.randn(m, k, generator=gen).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    return {"c": args["a"].double().cpu() @ args["b"].double().cpu()}
