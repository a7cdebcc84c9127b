import torch

CASES = [
    {"n": 1000, "dtype": torch.int32},
    {"n": 333, "dtype": torch.int64},
]

OUTPUTS = ("bucket", "slot", "weight")


def make_args(case, gen, device):
    n, dt = case["n"], case["dtype"]
    keys = torch.randint(-5000, 5000, (n,), generator=gen).to(dt)
    return {"keys": keys.to(device), "bucket": torch.empty(n, dtype=dt, device=device),
            "slot": torch.empty(n, dtype=dt, device=device),
            "weight": torch.empty(n, dtype=torch.float32, device=device)}


def reference(args):
    k = args["keys"].cpu().to(torch.int64)
    b = torch.div(k, 12, rounding_mode="floor")
    s = k - b * 12
    return {"bucket": b, "slot": s, "weight": s.double() * 0.5 + 1}
