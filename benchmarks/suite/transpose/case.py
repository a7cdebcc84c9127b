import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (130, 257), "dtype": torch.float16},
]

BENCH = [
    {"shape": (8192, 8192), "dtype": torch.float32},
    {"shape": (8192, 8192), "dtype": torch.float16},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    return {"x": x.to(device), "out": torch.empty(n, m, dtype=dt, device=device)}


def reference(args):
    return {"out": args["x"].double().T}


def work(case):
    m, n = case["shape"]
    return {"bytes": 2 * m * n * torch.empty(0, dtype=case["dtype"]).element_size()}
