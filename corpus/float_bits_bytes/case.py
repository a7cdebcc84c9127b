import torch

CASES = [
    {"n": 1000},
    {"n": 333},
]

OUTPUTS = ("raw", "exponent")


def make_args(case, gen, device):
    n = case["n"]
    # magnitudes over many binades, both signs
    x = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-20, 20, (n,), generator=gen))
    return {"x": x.to(device), "raw": torch.zeros(4 * n, dtype=torch.uint8, device=device),
            "exponent": torch.zeros(n, dtype=torch.int32, device=device)}


def reference(args):
    x = args["x"].cpu()
    bits = x.view(torch.int32).to(torch.int64)
    return {"raw": x.view(torch.uint8), "exponent": ((bits >> 23) & 0xFF) - 127}
