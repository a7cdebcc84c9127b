import torch

CASES = [
    {"shape": (30, 300), "eps": 1e-5, "dtype": torch.float32},
    {"shape": (17, 1000), "eps": 1e-6, "dtype": torch.float16},
    {"shape": (8, 777), "eps": 1e-5, "dtype": torch.bfloat16, "cpu": False},
]

# GPU benchmark sizes (tile2triton.verify.gpu_corpus --bench); never run on CPU
BENCH = [{"shape": (8192, 4096), "eps": 1e-5, "dtype": torch.float16}]

OUTPUTS = ("out", "mean", "rstd")


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 2.0 + 0.5).to(dt)
    weight = (1.0 + 0.3 * torch.randn(n, generator=gen)).to(dt)
    bias = (0.2 * torch.randn(n, generator=gen)).to(dt)
    return {
        "x": x.to(device), "weight": weight.to(device), "bias": bias.to(device),
        "out": torch.empty(m, n, dtype=dt, device=device),
        "mean": torch.empty(m, dtype=torch.float32, device=device),
        "rstd": torch.empty(m, dtype=torch.float32, device=device),
        "eps": case["eps"],
    }


def reference(args):
    x = args["x"].double()
    mean = x.mean(dim=1)
    var = x.var(dim=1, unbiased=False)
    rstd = 1.0 / torch.sqrt(var + args["eps"])
    out = (x - mean[:, None]) * rstd[:, None] * args["weight"].double() + args["bias"].double()
    return {"out": out, "mean": mean, "rstd": rstd}
