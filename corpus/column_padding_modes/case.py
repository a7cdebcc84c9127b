import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (20, 45), "dtype": torch.float16},
    {"shape": (50, 60), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("col_max", "col_min", "col_sum")

TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    # All-negative and all-positive columns exist, so a zero pad would corrupt max or min.
    x = (torch.randn(m, n, generator=gen) + 4.0 * torch.randn(1, n, generator=gen)).to(dt)
    return {"x": x.to(device),
            "col_max": torch.empty(n, dtype=dt, device=device),
            "col_min": torch.empty(n, dtype=dt, device=device),
            "col_sum": torch.empty(n, dtype=torch.float32, device=device)}


def reference(args):
    x = args["x"].double()
    return {"col_max": x.max(dim=0).values, "col_min": x.min(dim=0).values, "col_sum": x.sum(dim=0)}
