import torch

CASES = [
    {"shape": (45, 300), "start": 37, "length": 201, "dtype": torch.float32},
    {"shape": (70, 130), "start": 5, "length": 99, "dtype": torch.float16},
    {"shape": (33, 500), "start": 100, "length": 333, "dtype": torch.bfloat16, "cpu": False},
]
OUTPUTS = ("out",)
TOLERANCE = {torch.float16: dict(atol=5e-2, rtol=1e-2), torch.bfloat16: dict(atol=2e-1, rtol=2e-2)}


def make_args(case, gen, device):
    m, n = case["shape"]
    x = torch.randn(m, n, generator=gen).to(case["dtype"])
    out = torch.empty(m, 1, dtype=case["dtype"])
    return {"x": x.to(device), "out": out.to(device), "start": case["start"],
            "length": case["length"]}


def reference(args):
    s, n = args["start"], args["length"]
    return {"out": args["x"].double().cpu()[:, s:s + n].sum(dim=1, keepdim=True)}
