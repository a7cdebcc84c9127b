import torch

# Thresholds are exactly representable in every dtype used here.
CASES = [
    {"shape": (50, 150), "thr": 0.5, "dtype": torch.float32},
    {"shape": (33, 300), "thr": -0.25, "dtype": torch.float16},
    {"shape": (20, 100), "thr": 0.0, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("clipped", "counts")


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    return {"x": x.to(device), "clipped": torch.empty(m, n, dtype=dt, device=device),
            "counts": torch.empty(m, dtype=torch.int32, device=device), "thr": case["thr"]}


def reference(args):
    x, thr = args["x"].double(), args["thr"]
    above = x > thr
    return {"clipped": torch.where(above, x, torch.full_like(x, thr)),
            "counts": above.sum(dim=1)}
