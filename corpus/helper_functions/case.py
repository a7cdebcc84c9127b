import torch

CASES = [
    {"shape": (40, 300), "dtype": torch.float16},
    {"shape": (100, 90), "dtype": torch.float32},
    {"shape": (25, 500), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    gate = (torch.randn(m, n, generator=gen) * 2.0).to(dt)
    up = torch.randn(m, n, generator=gen).to(dt)
    return {"gate": gate.to(device), "up": up.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    g, u = args["gate"].double(), args["up"].double()
    return {"out": g * torch.sigmoid(g) * u}
