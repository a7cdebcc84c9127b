import torch

# x: (batch, seq, heads, head_dim) with odd sequence lengths; cos, sin: (seq, head_dim / 2).
CASES = [
    {"b": 2, "s": 37, "h": 3, "d": 64, "dtype": torch.float32},
    {"b": 1, "s": 1, "h": 4, "d": 32, "dtype": torch.float32},
    {"b": 3, "s": 101, "h": 2, "d": 128, "dtype": torch.float16},
    {"b": 2, "s": 45, "h": 2, "d": 64, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    b, s, h, d, dt = case["b"], case["s"], case["h"], case["d"], case["dtype"]
    x = torch.randn(b, s, h, d, generator=gen).to(dt)
    pos = torch.arange(s, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (-torch.arange(d // 2, dtype=torch.float64) * 2 / d)
    angle = pos * freq + 0.1 * torch.randn(s, d // 2, generator=gen, dtype=torch.float64)
    return {
        "x": x.to(device),
        "cos": torch.cos(angle).float().to(device),
        "sin": torch.sin(angle).float().to(device),
        "out": torch.empty(b, s, h, d, dtype=dt, device=device),
    }


def reference(args):
    x = args["x"].double()
    half = x.shape[-1] // 2
    c = args["cos"].double()[None, :, None, :]
    s = args["sin"].double()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return {"out": torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)}
