import torch

CASES = [
    {"n": 1000, "dtype": torch.float32},
    {"n": 333, "dtype": torch.float32},
    {"n": 2050, "dtype": torch.float32},
]

OUTPUTS = ("fres", "ires")

N_FLOAT_OPS = 11
N_INT_OPS = 4


def make_args(case, gen, device):
    n = case["n"]
    b = 0.5 + 1.5 * torch.rand(n, generator=gen)                 # in [0.5, 2)
    # a = b * (k + f) with integer k and f in [0.1, 0.9]: a / b stays away from integers.
    k = torch.randint(-6, 6, (n,), generator=gen).float()
    f = 0.1 + 0.8 * torch.rand(n, generator=gen)
    a = b * (k + f)
    i = torch.randint(-2**20, 2**20, (n,), generator=gen, dtype=torch.int32)
    j = torch.randint(-2**20, 2**20, (n,), generator=gen, dtype=torch.int32)
    return {"a": a.to(device), "b": b.to(device), "i": i.to(device), "j": j.to(device),
            "fres": torch.empty(N_FLOAT_OPS, n, dtype=torch.float32, device=device),
            "ires": torch.empty(N_INT_OPS, n, dtype=torch.int32, device=device)}


def reference(args):
    a, b = args["a"].double(), args["b"].double()
    i, j = args["i"].long(), args["j"].long()
    fres = torch.stack([
        a + b,
        a - b,
        a * b,
        a / b,
        torch.floor(a / b),
        torch.remainder(a, b),
        torch.pow(b, a * 0.25),
        torch.minimum(a, b),
        torch.maximum(a, b),
        torch.where(a > b, a, -b),
        torch.where(torch.floor(a) == torch.floor(b), a + b, a - b),
    ])
    ires = torch.stack([i & j, i | j, i ^ j, (i & j) ^ (i | 0x0F0F)])
    return {"fres": fres, "ires": ires}
