import torch

CASES = [
    {"shape": (50, 70), "s": -7, "dtype": torch.int32},
    {"shape": (33, 129), "s": 5, "dtype": torch.int32},
    {"shape": (40, 45), "s": -3, "dtype": torch.int64},
]

OUTPUTS = ("q", "r", "qs", "rs")


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    x = torch.randint(-1000, 1000, (m, n), generator=gen, dtype=dt)
    d = torch.randint(-20, 20, (m, n), generator=gen, dtype=dt)
    d = torch.where(d == 0, torch.full_like(d, -9), d)   # no division by zero
    args = {"x": x.to(device), "d": d.to(device), "s": case["s"]}
    for name in OUTPUTS:
        args[name] = torch.empty(m, n, dtype=dt, device=device)
    return args


def reference(args):
    x, d, s = args["x"].long(), args["d"].long(), args["s"]
    return {
        "q": torch.div(x, d, rounding_mode="floor"),
        "r": torch.remainder(x, d),
        "qs": torch.div(x, s, rounding_mode="floor"),
        "rs": torch.remainder(x, s),
    }
