import math

import torch

# 32 query heads sharing 8 KV heads (GQA, groups of 4), head dimension 128
CASES = [
    {"batch": 2, "heads": (8, 2), "keys": 300, "d": 32, "split": 128, "tile_n": 32,
     "dtype": torch.float16},
    {"batch": 1, "heads": (4, 4), "keys": 200, "d": 16, "split": 64, "tile_n": 64,
     "dtype": torch.float16},
]

BENCH = [
    {"batch": b, "heads": (32, 8), "keys": 8192, "d": 128, "split": 512, "tile_n": 64,
     "dtype": torch.float16}
    for b in (1, 8)
] + [{"batch": 8, "heads": (32, 8), "keys": 8192, "d": 128, "split": 1024, "tile_n": 128,
      "dtype": torch.bfloat16}]

OUTPUTS = ("out_partial", "lse_partial")
# the partials are float32; p is rounded to the KV dtype before the second product
TOLERANCE = {torch.float32: dict(atol=2e-3, rtol=2e-3)}


def make_args(case, gen, device):
    b, (hq, hkv), n, d, dt = case["batch"], case["heads"], case["keys"], case["d"], case["dtype"]
    splits = -(-n // case["split"])
    q = torch.randn(b, hq, d, generator=gen).to(dt)
    k = torch.randn(b, hkv, n, d, generator=gen).to(dt)
    v = torch.randn(b, hkv, n, d, generator=gen).to(dt)
    return {"q": q.to(device), "k": k.to(device), "v": v.to(device),
            "out_partial": torch.empty(b, hq, splits, d, device=device),
            "lse_partial": torch.empty(b, hq, splits, device=device),
            "keys_per_split": case["split"], "tile_n": case["tile_n"]}


def reference(args):
    q, k, v = args["q"].double(), args["k"].double(), args["v"].double()
    b, hq, d = q.shape
    hkv, n = k.shape[1], k.shape[2]
    group, chunk = hq // hkv, args["keys_per_split"]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    outs, lses = [], []
    for start in range(0, n, chunk):
        s = torch.einsum("bhd,bhnd->bhn", q, k[:, :, start:start + chunk]) / math.sqrt(d)
        lses.append(torch.logsumexp(s, dim=-1) / math.log(2))
        outs.append(torch.einsum("bhn,bhnd->bhd", s.softmax(-1), v[:, :, start:start + chunk]))
    return {"out_partial": torch.stack(outs, dim=2), "lse_partial": torch.stack(lses, dim=2)}


def work(case):
    b, (hq, hkv), n, d = case["batch"], case["heads"], case["keys"], case["d"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"bytes": 2 * b * hkv * n * d * size + b * hq * d * size}


def bench_reference(case, args):
    return ("copy", work(case)["bytes"])
