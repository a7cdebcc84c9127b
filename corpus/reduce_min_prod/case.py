import torch

CASES = [
    {"shape": (50, 100), "dtype": torch.float32},
    {"shape": (30, 200), "dtype": torch.float16},
    {"shape": (18, 150), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("row_min", "row_prod")

TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=2e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    # Values near 1 keep the row products in a sane range.
    x = (1.0 + 0.02 * torch.randn(m, n, generator=gen)).to(dt)
    return {"x": x.to(device),
            "row_min": torch.empty(m, dtype=dt, device=device),
            "row_prod": torch.empty(m, dtype=torch.float32, device=device)}


def reference(args):
    x = args["x"].double()
    return {"row_min": x.min(dim=1).values, "row_prod": x.prod(dim=1)}
