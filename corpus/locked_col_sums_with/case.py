import torch

CASES = [
    {"shape": (100, 70), "dtype": torch.float32},
    {"shape": (333, 45), "dtype": torch.float16},
    {"shape": (17, 129), "dtype": torch.float32},
]

OUTPUTS = ("col_sum", "visits")

GROUPS, TM, TN = 4, 16, 32  # as kernel.py's launch chooses them


def make_args(case, gen, device):
    m, n = case["shape"]
    x = torch.randn(m, n, generator=gen).to(case["dtype"])
    bands = -(-n // TN)
    return {
        "x": x.to(device),
        "col_sum": torch.empty(n, dtype=torch.float32, device=device),
        "visits": torch.empty(GROUPS * bands, dtype=torch.int32, device=device),
    }


def reference(args):
    x = args["x"].double()
    m, n = x.shape
    blocks_m, bands = -(-m // TM), -(-n // TN)
    visits = torch.zeros(GROUPS, bands, dtype=torch.long)
    for bm in range(blocks_m):
        visits[bm % GROUPS] += 1
    return {"col_sum": x.sum(dim=0), "visits": visits.reshape(-1).to(x.device)}
