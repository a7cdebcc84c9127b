import torch

CASES = [
    {"m": 1000, "dtype": torch.float32},
    {"m": 77, "dtype": torch.float16},
]

OUTPUTS = ("out",)

SCALE = (0.5, -1.25, 2.0, 0.75)


def make_args(case, gen, device):
    m, dt = case["m"], case["dtype"]
    x = (torch.randn(m, 4, generator=gen) * 2.0 + 0.5).to(dt)
    out = torch.empty(m, 4, dtype=dt)
    return {"x": x.to(device), "out": out.to(device)}


def reference(args):
    x = args["x"].double()
    m = x.shape[0]
    block = torch.arange(m, dtype=torch.float64) // 64  # the row's block index (TM = 64)
    shift = torch.stack([block * 0.5, torch.ones(m), torch.full((m,), -2.0),
                         torch.full((m,), 0.25)], dim=1).double()
    scale = torch.tensor(SCALE, dtype=torch.float64)
    return {"out": x * scale + shift * 0.5}
