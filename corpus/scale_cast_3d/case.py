import torch

# The input is always float32; "dtype" is the output dtype.
CASES = [
    {"shape": (5, 30, 70), "alpha": 1.75, "beta": -0.5, "dtype": torch.float16},
    {"shape": (3, 17, 100), "alpha": -0.3, "beta": 0.0, "dtype": torch.float32},
    {"shape": (3, 25, 50), "alpha": 0.8, "beta": 1.5, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    shape = case["shape"]
    x = torch.randn(shape, generator=gen) * 3.0
    return {"x": x.to(device), "out": torch.empty(shape, dtype=case["dtype"], device=device),
            "alpha": case["alpha"], "beta": case["beta"]}


def reference(args):
    return {"out": args["x"].double() * args["alpha"] + args["beta"]}
