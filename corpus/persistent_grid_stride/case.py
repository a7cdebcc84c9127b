import torch

CASES = [
    {"shape": (100, 70), "alpha": 0.75, "dtype": torch.float32},
    {"shape": (37, 200), "alpha": -1.5, "dtype": torch.float16},
    {"shape": (50, 90), "alpha": 0.5, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    y = torch.randn(m, n, generator=gen).to(dt)
    return {"x": x.to(device), "y": y.to(device), "out": torch.empty(m, n, dtype=dt, device=device),
            "alpha": case["alpha"]}


def reference(args):
    return {"out": args["alpha"] * args["x"].double() + args["y"].double()}
