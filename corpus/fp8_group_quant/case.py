import torch

# x: (rows, cols) with cols not a multiple of the group (64); scales: (rows, groups).
CASES = [
    {"rows": 7, "cols": 300, "dtype": torch.float32},
    {"rows": 33, "cols": 129, "dtype": torch.float16},
    {"rows": 5, "cols": 1000, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("q", "scales")

GROUP = 64

# q is compared as fp8 (one e4m3 step of its magnitude); scales to float32 rounding
TOLERANCE = {torch.float32: dict(atol=1e-9, rtol=1e-6)}


def make_args(case, gen, device):
    rows, cols, dt = case["rows"], case["cols"], case["dtype"]
    # rows of very different magnitudes, so that every group gets its own scale
    x = torch.randn(rows, cols, generator=gen) * torch.exp(2 * torch.randn(rows, 1, generator=gen))
    groups = -(-cols // GROUP)
    return {
        "x": x.to(dt).to(device),
        "q": torch.empty(rows, cols, dtype=torch.float8_e4m3fn, device=device),
        "scales": torch.empty(rows, groups, dtype=torch.float32, device=device),
    }


def reference(args):
    x = args["x"].double()
    rows, cols = x.shape
    groups = -(-cols // GROUP)
    padded = torch.zeros(rows, groups * GROUP, dtype=torch.float64, device=x.device)
    padded[:, :cols] = x
    g = padded.reshape(rows, groups, GROUP)
    scale = g.abs().amax(dim=-1).clamp_min(1e-10) / 448.0
    q = (g / scale[..., None]).clamp(-448.0, 448.0).reshape(rows, -1)[:, :cols]
    return {"q": q.to(torch.float8_e4m3fn).double(), "scales": scale}
