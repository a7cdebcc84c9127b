import math

import torch

# q, k, v are (batch * heads, seq_len, head_dim).
CASES = [
    {"bh": 3, "seq": 77, "d": 32, "causal": False, "dtype": torch.float16},
    {"bh": 2, "seq": 100, "d": 64, "causal": True, "dtype": torch.float16},
    {"bh": 2, "seq": 50, "d": 64, "causal": False, "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)

TOLERANCE = {torch.bfloat16: dict(atol=6e-2, rtol=5e-2)}


def make_args(case, gen, device):
    shape, dt = (case["bh"], case["seq"], case["d"]), case["dtype"]
    q = torch.randn(shape, generator=gen).to(dt)
    k = torch.randn(shape, generator=gen).to(dt)
    v = torch.randn(shape, generator=gen).to(dt)
    return {"q": q.to(device), "k": k.to(device), "v": v.to(device),
            "out": torch.empty(shape, dtype=dt, device=device), "causal": case["causal"]}


def reference(args):
    q, k, v = args["q"].double(), args["k"].double(), args["v"].double()
    seq, d = q.shape[1], q.shape[2]
    scores = (q @ k.transpose(1, 2)) / math.sqrt(d)
    if args["causal"]:
        mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    return {"out": torch.softmax(scores, dim=-1) @ v}
