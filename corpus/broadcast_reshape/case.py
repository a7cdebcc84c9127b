import torch

# "x" is (B, M, 2H); the last axis is always even.
CASES = [
    {"m": 100, "n": 70, "x": (3, 20, 50), "dtype": torch.float32},
    {"m": 45, "n": 130, "x": (5, 13, 70), "dtype": torch.float16},
    {"m": 60, "n": 50, "x": (3, 10, 98), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("outer", "pooled")


def make_args(case, gen, device):
    m, n, (b, xm, xn), dt = case["m"], case["n"], case["x"], case["dtype"]
    u = torch.randn(m, generator=gen).to(dt)
    v = torch.randn(n, generator=gen).to(dt)
    x = torch.randn(b, xm, xn, generator=gen).to(dt)
    return {"u": u.to(device), "v": v.to(device), "x": x.to(device),
            "outer": torch.empty(m, n, dtype=dt, device=device),
            "pooled": torch.empty(xn // 2, b, xm, dtype=dt, device=device)}


def reference(args):
    u, v, x = args["u"].double(), args["v"].double(), args["x"].double()
    b, m, n = x.shape
    pooled = x.reshape(b, m, n // 2, 2).sum(dim=3).permute(2, 0, 1)
    return {"outer": u[:, None] * v[None, :] + u[:, None], "pooled": pooled.contiguous()}
