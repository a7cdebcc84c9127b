import torch

# A package case (docs/corpus-format.md): rowscale/launch.py launches the kernel of
# rowscale/kernels.py, which calls the helper of rowscale/helpers.py.
CASES = [
    {"shape": (70, 200), "alpha": 0.75, "dtype": torch.float32},
    {"shape": (33, 129), "alpha": -1.5, "dtype": torch.float16},
    {"shape": (100, 300), "alpha": 2.0, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    y = torch.randn(m, n, generator=gen).to(dt)
    w = (torch.randn(m, generator=gen) * 3.0).to(dt)
    return {"x": x.to(device), "y": y.to(device), "w": w.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device), "alpha": case["alpha"]}


def reference(args):
    x, y, w = args["x"].double(), args["y"].double(), args["w"].double()
    scale = args["alpha"] / (1.0 + w.abs())
    return {"out": x * scale[:, None] + y}
