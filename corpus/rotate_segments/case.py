import torch

TILE = 256

CASES = [
    {"n": 1000, "shift": 3, "rounds": 5, "dtype": torch.float32},
    {"n": 700, "shift": 101, "rounds": 3, "dtype": torch.float16},
    {"n": 257, "shift": 1, "rounds": 4, "dtype": torch.int32},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    n, dt = case["n"], case["dtype"]
    if dt.is_floating_point:
        x = torch.randn(n, generator=gen).to(dt)
    else:
        x = torch.randint(-1000, 1000, (n,), generator=gen).to(dt)
    return {"x": x.to(device), "out": torch.empty(n, dtype=dt, device=device),
            "shift": case["shift"], "rounds": case["rounds"]}


def reference(args):
    x = args["x"].double().cpu()
    out = x.clone()
    total = args["shift"] * args["rounds"]
    for start in range(0, x.shape[0], TILE):
        seg = x[start:start + TILE]
        out[start:start + TILE] = torch.roll(seg, -(total % seg.shape[0]))
    return {"out": out}
