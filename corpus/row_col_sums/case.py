import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (45, 300), "dtype": torch.float16},
    {"shape": (60, 90), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("row_sums", "col_sums")

# Sums are accumulated in float32 and always written as float32.
TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) + 0.25).to(dt)
    return {
        "x": x.to(device),
        "row_sums": torch.empty(m, 1, dtype=torch.float32, device=device),
        "col_sums": torch.empty(1, n, dtype=torch.float32, device=device),
    }


def reference(args):
    x = args["x"].double()
    return {"row_sums": x.sum(dim=1, keepdim=True), "col_sums": x.sum(dim=0, keepdim=True)}
