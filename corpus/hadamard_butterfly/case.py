import torch

CASES = [
    {"rows": 37, "n": 64, "dtype": torch.float32},
    {"rows": 20, "n": 256, "dtype": torch.float32},
    {"rows": 13, "n": 32, "dtype": torch.float16},
    {"rows": 50, "n": 128, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def _hadamard(n):
    h = torch.ones(1, 1, dtype=torch.float64)
    while h.shape[0] < n:
        h = torch.cat((torch.cat((h, h), 1), torch.cat((h, -h), 1)), 0)
    return h


def make_args(case, gen, device):
    rows, n, dt = case["rows"], case["n"], case["dtype"]
    x = torch.randn(rows, n, generator=gen).to(dt)
    return {"x": x.to(device), "out": torch.empty(rows, n, dtype=dt, device=device)}


def reference(args):
    x = args["x"].double()
    n = x.shape[1]
    return {"out": x @ _hadamard(n).T / n ** 0.5}
