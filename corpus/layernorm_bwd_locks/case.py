import torch

CASES = [
    {"shape": (37, 100), "dtype": torch.float32},
    {"shape": (50, 200), "dtype": torch.float16},
    {"shape": (29, 300), "dtype": torch.bfloat16, "cpu": False},
]
OUTPUTS = ("dx", "dw", "db")
TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=1e-4),
             torch.float16: dict(atol=2e-2, rtol=1e-2),
             torch.bfloat16: dict(atol=1e-1, rtol=5e-2)}


def make_args(case, gen, device):
    m, n = case["shape"]
    dt = case["dtype"]
    x = torch.randn(m, n, generator=gen)
    dy = torch.randn(m, n, generator=gen)
    w = torch.rand(n, generator=gen) + 0.5
    mean = x.mean(dim=1)
    rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + 1e-5)
    args = {"x": x.to(dt), "dy": dy.to(dt), "w": w.to(dt), "mean": mean, "rstd": rstd,
            "dx": torch.empty(m, n, dtype=dt), "dw": torch.empty(n, dtype=torch.float32),
            "db": torch.empty(n, dtype=torch.float32)}
    return {k: v.to(device) for k, v in args.items()}


def reference(args):
    x, dy, w = (args[k].double().cpu() for k in ("x", "dy", "w"))
    mean, rstd = args["mean"].double().cpu(), args["rstd"].double().cpu()
    n = x.shape[1]
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w[None, :] * dy
    c1 = (xhat * wdy).sum(dim=1, keepdim=True) / n
    c2 = wdy.sum(dim=1, keepdim=True) / n
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return {"dx": dx, "dw": (xhat * dy).sum(dim=0), "db": dy.sum(dim=0)}
