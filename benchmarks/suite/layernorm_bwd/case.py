import torch

CASES = [
    {"shape": (70, 1500), "dtype": torch.float32},
    {"shape": (33, 1100), "dtype": torch.float16},
]

BENCH = [{"shape": (8192, 4096), "dtype": torch.float16}]

OUTPUTS = ("dx", "dweight", "dbias")
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=2e-2), torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 2.0 + 0.5)
    mean = x.mean(dim=1)
    rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + 1e-5)
    w = 1.0 + 0.3 * torch.randn(n, generator=gen)
    dy = torch.randn(m, n, generator=gen)
    return {"dy": dy.to(dt).to(device), "x": x.to(dt).to(device), "weight": w.to(dt).to(device),
            "mean": mean.float().to(device), "rstd": rstd.float().to(device),
            "dx": torch.empty(m, n, dtype=dt, device=device),
            "dweight": torch.empty(n, dtype=dt, device=device),
            "dbias": torch.empty(n, dtype=dt, device=device)}


def reference(args):
    x, dy, w = args["x"].double(), args["dy"].double(), args["weight"].double()
    mean, rstd = args["mean"].double()[:, None], args["rstd"].double()[:, None]
    n = x.shape[1]
    xhat = (x - mean) * rstd
    wdy = w * dy
    c1 = (xhat * wdy).sum(dim=1, keepdim=True) / n
    c2 = wdy.sum(dim=1, keepdim=True) / n
    return {"dx": (wdy - (xhat * c1 + c2)) * rstd, "dweight": (dy * xhat).sum(dim=0),
            "dbias": dy.sum(dim=0)}


def work(case):
    m, n = case["shape"]
    return {"bytes": 3 * m * n * torch.empty(0, dtype=case["dtype"]).element_size()}
