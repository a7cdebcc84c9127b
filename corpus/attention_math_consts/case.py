import math

import torch

# q is (batch * heads, seq_q, head_dim); k and v are (batch * heads, seq_k, head_dim)
CASES = [
    {"bh": 3, "sq": 70, "sk": 45, "d": 32, "dtype": torch.float16},
    {"bh": 2, "sq": 33, "sk": 100, "d": 64, "dtype": torch.float32},
]

OUTPUTS = ("out",)
TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=2e-4)}


def make_args(case, gen, device):
    dt = case["dtype"]
    q = torch.randn(case["bh"], case["sq"], case["d"], generator=gen).to(dt)
    k = torch.randn(case["bh"], case["sk"], case["d"], generator=gen).to(dt)
    v = torch.randn(case["bh"], case["sk"], case["d"], generator=gen).to(dt)
    return {"q": q.to(device), "k": k.to(device), "v": v.to(device),
            "out": torch.empty_like(q, device=device)}


def reference(args):
    q, k, v = args["q"].double(), args["k"].double(), args["v"].double()
    scores = (q @ k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    return {"out": torch.softmax(scores, dim=-1) @ v}
