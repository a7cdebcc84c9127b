import torch

# Kernels that are not at module level: one returned by a factory (closure constants `tile_n`,
# `alpha`, a local padding alias), one defined inside the host function (closure `limit`, `block`).
CASES = [
    {"shape": (50, 70), "dtype": torch.float32},
    {"shape": (33, 129), "dtype": torch.float16},
    {"shape": (40, 100), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out", "clipped")


def make_args(case, gen, device):
    m, n = case["shape"]
    dt = case["dtype"]
    x = (torch.randn(m, n, generator=gen) * 1.5).to(dt)
    y = (torch.randn(m, n, generator=gen) * 1.5).to(dt)
    return {"x": x.to(device), "y": y.to(device),
            "out": torch.empty(m, n, dtype=dt, device=device),
            "clipped": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    out = args["x"].double() + 0.5 * args["y"].double()
    # the clip kernel reads `out` as stored (rounded to the dtype)
    stored = out.to(args["out"].dtype).double()
    return {"out": out, "clipped": stored.clamp(-1.25, 1.25)}
