import torch

CASES = [
    {"shape": (100, 90), "dtype": torch.float32},
    {"shape": (257, 33), "dtype": torch.float16},
    {"shape": (31, 150), "dtype": torch.float32},
]

OUTPUTS = ("col_sum", "col_absmax", "col_min")


def make_args(case, gen, device):
    m, n = case["shape"]
    x = torch.randn(m, n, generator=gen).to(case["dtype"])
    mag = torch.randint(0, 1 << 12, (m, n), generator=gen, dtype=torch.int32)
    q = torch.where(torch.rand(m, n, generator=gen) < 0.5, mag, -mag)
    return {
        "x": x.to(device),
        "q": q.to(device),
        "col_sum": torch.empty(n, dtype=torch.float32, device=device),
        "col_absmax": torch.empty(n, dtype=torch.int32, device=device),
        "col_min": torch.empty(n, dtype=torch.int32, device=device),
    }


def reference(args):
    x, q = args["x"].double(), args["q"].long()
    return {"col_sum": x.sum(dim=0), "col_absmax": q.abs().amax(dim=0), "col_min": q.amin(dim=0)}
