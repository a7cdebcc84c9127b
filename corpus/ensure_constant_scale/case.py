import torch

CASES = [
    {"n": 1000, "shift": 4, "dtype": torch.float32},
    {"n": 333, "shift": 1, "dtype": torch.float32},
    {"n": 517, "shift": 3, "dtype": torch.float16},
]

OUTPUTS = ("y",)


def make_args(case, gen, device):
    x = torch.randn(case["n"], generator=gen, dtype=torch.float64).to(case["dtype"])
    return {"x": x.to(device), "y": torch.empty_like(x, device=device), "shift": case["shift"]}


def reference(args):
    x, shift = args["x"].double(), args["shift"]
    y = x * 2.0**shift
    if shift > 2:
        y = y - torch.where(x > 0, 1.0, -1.0).double()
    return {"y": y}
