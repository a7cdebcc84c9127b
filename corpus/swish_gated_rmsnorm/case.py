import torch

CASES = [
    {"shape": (9, 200), "dtype": torch.float32},
    {"shape": (31, 777), "dtype": torch.float16},
    {"shape": (4, 300), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randn(m, n, generator=gen).to(dt)
    gate = (2 * torch.randn(m, n, generator=gen)).to(dt)
    w = (1 + 0.3 * torch.randn(n, generator=gen)).to(dt)
    return {
        "x": x.to(device),
        "gate": gate.to(device),
        "w": w.to(device),
        "out": torch.empty(m, n, dtype=dt, device=device),
        "eps": 1e-6,
    }


def reference(args):
    x, g, w = args["x"].double(), args["gate"].double(), args["w"].double()
    h = x * g * torch.sigmoid(g)
    return {"out": h * torch.rsqrt((h * h).mean(dim=-1, keepdim=True) + args["eps"]) * w}
