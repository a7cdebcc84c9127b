import math

import torch

# q: (batch, heads, seq_q, d); k, v: (batch, heads, seq_k, d). Odd sequence lengths.
CASES = [
    {"b": 2, "h": 3, "sq": 45, "sk": 77, "d": 32, "dtype": torch.float16},
    {"b": 1, "h": 2, "sq": 33, "sk": 51, "d": 64, "dtype": torch.float32},
    {"b": 1, "h": 2, "sq": 40, "sk": 70, "d": 64, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)

TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=2e-4), torch.bfloat16: dict(atol=6e-2, rtol=5e-2)}


def make_args(case, gen, device):
    dt = case["dtype"]
    q = torch.randn(case["b"], case["h"], case["sq"], case["d"], generator=gen).to(dt)
    k = torch.randn(case["b"], case["h"], case["sk"], case["d"], generator=gen).to(dt)
    v = torch.randn(case["b"], case["h"], case["sk"], case["d"], generator=gen).to(dt)
    out = torch.empty(case["b"], case["h"], case["sq"], case["d"], dtype=dt)
    return {"q": q.to(device), "k": k.to(device), "v": v.to(device), "out": out.to(device)}


def reference(args):
    q, k, v = args["q"].double(), args["k"].double(), args["v"].double()
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    return {"out": torch.softmax(scores, dim=-1) @ v}
