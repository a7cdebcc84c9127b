import torch

CASES = [
    {"shape": (100, 70), "shape3": (3, 40, 50), "dtype": torch.float32},
    {"shape": (37, 129), "shape3": (2, 65, 17), "dtype": torch.float16},
    {"shape": (60, 90), "shape3": (4, 20, 33), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out", "out3")


def make_args(case, gen, device):
    (m, n), (b, m3, n3), dt = case["shape"], case["shape3"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    x3 = torch.randn(b, m3, n3, generator=gen).to(dt)
    return {
        "x": x.to(device), "out": torch.empty(n, m, dtype=dt, device=device),
        "x3": x3.to(device), "out3": torch.empty(b, n3, m3, dtype=dt, device=device),
    }


def reference(args):
    return {
        "out": args["x"].double().t().contiguous(),
        "out3": args["x3"].double().transpose(1, 2).contiguous(),
    }
