import math

import torch

CASES = [
    {"shape": (3, 70, 32), "causal": False, "tiles": (32, 16), "dtype": torch.float16},
    {"shape": (2, 45, 16), "causal": True, "tiles": (16, 16), "dtype": torch.float32},
]

BENCH = [
    {"shape": (32, 4096, 64), "causal": causal, "tiles": (128, 64), "dtype": torch.float16}
    for causal in (False, True)
]

OUTPUTS = ("out",)
TOLERANCE = {torch.float16: dict(atol=5e-3, rtol=1e-2), torch.float32: dict(atol=1e-3, rtol=1e-3)}


def make_args(case, gen, device):
    (h, s, d), dt = case["shape"], case["dtype"]
    q, k, v = (torch.randn(h, s, d, generator=gen).to(dt).to(device) for _ in range(3))
    return {"q": q, "k": k, "v": v, "out": torch.empty(h, s, d, dtype=dt, device=device),
            "causal": case["causal"], "tiles": case["tiles"]}


def reference(args):
    q, k, v = (args[n].double() for n in "qkv")
    s = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    if args["causal"]:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return {"out": torch.softmax(s, dim=-1) @ v}


def work(case):
    h, s, d = case["shape"]
    flops = 4 * h * s * s * d
    return {"flops": flops // 2 if case["causal"] else flops,
            "bytes": 4 * h * s * d * torch.empty(0, dtype=case["dtype"]).element_size()}


def bench_reference(case, args):
    q, k, v = (args[n][None] for n in "qkv")   # (1, heads, seq, d)

    def sdpa():
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=args["causal"])
    return ("call", ("torch sdpa", sdpa))
