import torch

CASES = [
    {"shape": (100, 200), "eps": 1e-6, "dtype": torch.float32},
    {"shape": (61, 500), "eps": 1e-5, "dtype": torch.float16},
    {"shape": (30, 300), "eps": 1e-6, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 1.5).to(dt)
    weight = (1.0 + 0.25 * torch.randn(n, generator=gen)).to(dt)
    return {"x": x.to(device), "weight": weight.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device), "eps": case["eps"]}


def reference(args):
    x = args["x"].double()
    rms = torch.sqrt((x * x).mean(dim=1, keepdim=True) + args["eps"])
    return {"out": x / rms * args["weight"].double()}
