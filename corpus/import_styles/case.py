import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (45, 250), "dtype": torch.float16},
    {"shape": (70, 40), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)

TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    y = torch.randn(m, n, generator=gen).to(dt)
    return {"x": x.to(device), "y": y.to(device),
            "out": torch.empty(m, dtype=torch.float32, device=device)}


def reference(args):
    return {"out": (args["x"].double() * args["y"].double()).sum(dim=1)}
