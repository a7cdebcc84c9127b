import torch

CASES = [
    {"batch": 2, "heads": 8, "splits": 3, "d": 32, "dtype": torch.float16},
    {"batch": 1, "heads": 4, "splits": 5, "d": 16, "dtype": torch.float32},
]

# the partials of decode_attention's BENCH sizes: 8192 keys in 16 or 8 chunks
BENCH = [
    {"batch": b, "heads": 32, "splits": s, "d": 128, "dtype": torch.float16}
    for b, s in ((1, 16), (8, 16), (8, 8))
]

OUTPUTS = ("out",)
TOLERANCE = {torch.float16: dict(atol=2e-3, rtol=2e-3), torch.float32: dict(atol=1e-5, rtol=1e-5)}


def make_args(case, gen, device):
    b, h, s, d = case["batch"], case["heads"], case["splits"], case["d"]
    return {"out_partial": torch.randn(b, h, s, d, generator=gen).to(device),
            "lse_partial": (4 * torch.randn(b, h, s, generator=gen)).to(device),
            "out": torch.empty(b, h, d, dtype=case["dtype"], device=device)}


def reference(args):
    lse, part = args["lse_partial"].double(), args["out_partial"].double()
    w = torch.softmax(lse * torch.log(torch.tensor(2.0, dtype=torch.float64)), dim=-1)
    return {"out": (part * w[..., None]).sum(dim=2)}


def work(case):
    b, h, s, d = case["batch"], case["heads"], case["splits"], case["d"]
    return {"bytes": b * h * s * (d + 1) * 4 + b * h * d * torch.empty(0, dtype=case["dtype"]).element_size()}


def bench_reference(case, args):
    return ("copy", work(case)["bytes"])
