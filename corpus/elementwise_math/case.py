import torch

CASES = [
    {"n": 3000, "dtype": torch.float32},
    {"n": 1234, "dtype": torch.float32},
    {"n": 100, "dtype": torch.float32},
]

OUTPUTS = ("out_explog", "out_trig", "out_round", "out_misc")

# Hardware transcendental functions are accurate to a few float32 ulps.
TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=2e-4)}


def make_args(case, gen, device):
    n = case["n"]
    x = torch.rand(n, generator=gen) * 4.0 + 0.05       # in (0.05, 4.05)
    y = torch.randn(n, generator=gen) * 2.0
    args = {"x": x.to(device), "y": y.to(device)}
    for name in OUTPUTS:
        args[name] = torch.empty(n, dtype=torch.float32, device=device)
    return args


def reference(args):
    x, y = args["x"].double(), args["y"].double()
    root = torch.sqrt(y)
    return {
        "out_explog": torch.exp(-x) + torch.log(x) + torch.sqrt(x) + torch.rsqrt(x),
        "out_trig": torch.sin(y) * torch.cos(x) + torch.tanh(y) + torch.atan2(y, x - 1.0),
        "out_round": torch.floor(y) * 10.0 + torch.ceil(x) + torch.abs(y),
        "out_misc": torch.exp2(y) + torch.log2(x) + torch.where(torch.isnan(root), -1.0, root)
        + torch.maximum(x, y) * 0.5 - torch.minimum(x, y) * 0.25,
    }
