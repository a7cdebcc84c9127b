import torch

CASES = [
    {"shape": (37, 100), "dtype": torch.float32},
    {"shape": (130, 70), "dtype": torch.float16},
    {"shape": (9, 200), "dtype": torch.bfloat16},
]

OUTPUTS = ("y", "z")


def make_args(case, gen, device):
    m, n = case["shape"]
    x = torch.randn(m, n, generator=gen).to(case["dtype"])
    perm = torch.randperm(m, generator=gen).to(torch.int32)
    scale = 0.5 + torch.rand(m, generator=gen)
    return {
        "x": x.to(device),
        "perm": perm.to(device),
        "scale": scale.to(device),
        "y": torch.empty_like(x, device=device),
        "z": torch.empty_like(x, device=device),
    }


def reference(args):
    x, perm = args["x"].double(), args["perm"].long()
    y = x[perm] * args["scale"].double()[:, None]
    z = torch.empty_like(x)
    z[perm] = x
    return {"y": y, "z": z}
