import torch

# fp32 output: partial products are added in fp32 (C is the accumulator)
CASES = [
    {"mnk": (70, 50, 300), "dtype": torch.float16},
    {"mnk": (33, 90, 200), "dtype": torch.float32},
]
OUTPUTS = ("c",)
TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = torch.randn(m, k, generator=gen).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    c = torch.empty(m, n, dtype=torch.float32)
    return {"a": a.to(device), "b": b.to(device), "c": c.to(device)}


def reference(args):
    return {"c": args["a"].double().cpu() @ args["b"].double().cpu()}
