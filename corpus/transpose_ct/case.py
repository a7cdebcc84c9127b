import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (65, 33), "dtype": torch.int32},
    {"shape": (90, 50), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    if dt.is_floating_point:
        x = torch.randn(m, n, generator=gen).to(dt)
    else:
        x = torch.randint(-1000, 1000, (m, n), generator=gen, dtype=dt)
    return {"x": x.to(device), "out": torch.empty(n, m, dtype=dt, device=device)}


def reference(args):
    return {"out": args["x"].double().t().contiguous()}
