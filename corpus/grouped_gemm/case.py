import torch

# (m, n, k) per group; none a multiple of the 32x32x32 tiles
CASES = [
    {"groups": [(45, 70, 33), (100, 20, 50), (17, 33, 90)], "dtype": torch.float16},
    {"groups": [(64, 40, 70), (30, 90, 20)], "dtype": torch.float32},
    {"groups": [(50, 50, 50), (70, 30, 40)], "dtype": torch.bfloat16, "cpu": False},
]
OUTPUTS = ("Cs",)
TOLERANCE = {torch.float32: dict(atol=1e-4, rtol=1e-4)}


def make_args(case, gen, device):
    dt = case["dtype"]
    As = [torch.randn(m, k, generator=gen).to(dt).to(device) for m, n, k in case["groups"]]
    Bs = [torch.randn(k, n, generator=gen).to(dt).to(device) for m, n, k in case["groups"]]
    Cs = [torch.empty(m, n, dtype=dt, device=device) for m, n, k in case["groups"]]
    return {"As": As, "Bs": Bs, "Cs": Cs}


def reference(args):
    return {"Cs": [a.double().cpu() @ b.double().cpu() for a, b in zip(args["As"], args["Bs"])]}
