import torch

CASES = [
    {"shape": (13, 300), "dtype": torch.float32},
    {"shape": (7, 1000), "dtype": torch.float16},
]

BENCH = [
    {"shape": (8192, 4096), "dtype": torch.float16},
    {"shape": (16384, 2048), "dtype": torch.float32},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 2.0).to(dt)
    w = (1.0 + 0.3 * torch.randn(n, generator=gen)).to(dt)
    return {"x": x.to(device), "weight": w.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device), "eps": 1e-6}


def reference(args):
    x = args["x"].double()
    rstd = 1.0 / torch.sqrt((x * x).mean(dim=1, keepdim=True) + args["eps"])
    return {"out": x * rstd * args["weight"].double()}


def work(case):
    m, n = case["shape"]
    return {"bytes": 2 * m * n * torch.empty(0, dtype=case["dtype"]).element_size()}
