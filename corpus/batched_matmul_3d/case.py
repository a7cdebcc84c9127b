import torch

# (batch, M, N, K)
CASES = [
    {"bmnk": (3, 50, 40, 70), "dtype": torch.float16},
    {"bmnk": (2, 33, 65, 20), "dtype": torch.float32},
    {"bmnk": (2, 40, 30, 90), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("c",)

TOLERANCE = {
    torch.float16: dict(atol=2e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=1e-1, rtol=2e-2),
}


def make_args(case, gen, device):
    (nb, m, n, k), dt = case["bmnk"], case["dtype"]
    a = torch.randn(nb, m, k, generator=gen).to(dt)
    b = torch.randn(nb, k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device),
            "c": torch.empty(nb, m, n, dtype=dt, device=device)}


def reference(args):
    return {"c": torch.bmm(args["a"].double(), args["b"].double())}
