import torch

CASES = [
    {"shape": (37, 100), "dtype": torch.float32},
    {"shape": (20, 700), "dtype": torch.float16},
]

BENCH = [
    {"shape": (8192, 4096), "dtype": torch.float16},
    {"shape": (4096, 8000), "dtype": torch.float32},
]

OUTPUTS = ("out",)
TOLERANCE = {torch.float16: dict(atol=2e-3, rtol=1e-2)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 3.0 + 1.0).to(dt)
    return {"x": x.to(device), "out": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    return {"out": torch.softmax(args["x"].double(), dim=1)}


def work(case):
    m, n = case["shape"]
    return {"bytes": 2 * m * n * torch.empty(0, dtype=case["dtype"]).element_size()}
