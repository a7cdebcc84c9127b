import torch

CASES = [
    {"shape": (9, 1500), "dtype": torch.float32},
    {"shape": (5, 2100), "dtype": torch.float16},
]

BENCH = [
    {"shape": (8192, 4096), "dtype": torch.float16},
    {"shape": (4096, 8192), "dtype": torch.float32},
]

OUTPUTS = ("out", "mean", "rstd")
TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 2.0 + 0.5).to(dt)
    w = (1.0 + 0.3 * torch.randn(n, generator=gen)).to(dt)
    b = (0.2 * torch.randn(n, generator=gen)).to(dt)
    return {"x": x.to(device), "weight": w.to(device), "bias": b.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device),
            "mean": torch.empty(m, dtype=torch.float32, device=device),
            "rstd": torch.empty(m, dtype=torch.float32, device=device), "eps": 1e-5}


def reference(args):
    x = args["x"].double()
    mean = x.mean(dim=1)
    rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + args["eps"])
    out = (x - mean[:, None]) * rstd[:, None] * args["weight"].double() + args["bias"].double()
    return {"out": out, "mean": mean, "rstd": rstd}


def work(case):
    m, n = case["shape"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"bytes": 2 * m * n * size + 8 * m}
