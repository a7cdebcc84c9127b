import math

import torch

CASES = [
    {"shape": (50, 200), "dtype": torch.float16},
    {"shape": (70, 150), "dtype": torch.float32},
    {"shape": (20, 300), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 2.0).to(dt)
    bias = (torch.randn(n, generator=gen) * 0.5).to(dt)
    out = torch.empty(m, n, dtype=dt)
    return {"x": x.to(device), "bias": bias.to(device), "out": out.to(device)}


def reference(args):
    h = args["x"].double() + args["bias"].double()
    return {"out": 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))}
