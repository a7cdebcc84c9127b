import torch

CASES = [
    {"tokens": 50, "experts": 4, "d_in": 40, "d_out": 24, "dtype": torch.float32},
    {"tokens": 37, "experts": 6, "d_in": 33, "d_out": 20, "dtype": torch.float32},
    {"tokens": 64, "experts": 3, "d_in": 64, "d_out": 40, "dtype": torch.float16},
]

OUTPUTS = ("out",)  # float32 for every input dtype (the accumulator's)

# float16 inputs, float32 accumulation: only the output rounding differs from float64
TOLERANCE = {torch.float32: dict(atol=2e-4, rtol=1e-4)}


def make_args(case, gen, device):
    t, e, d_in, d_out = case["tokens"], case["experts"], case["d_in"], case["d_out"]
    x = torch.randn(t, d_in, generator=gen).to(case["dtype"])
    w = (torch.randn(e, d_in, d_out, generator=gen) / d_in ** 0.5).to(case["dtype"])
    # Top-1 routing: every token goes to one expert; some experts get no tokens.
    expert = torch.randint(0, e - 1, (t,), generator=gen)
    order = torch.argsort(expert, stable=True).to(torch.int32)
    counts = torch.bincount(expert, minlength=e)
    offsets = torch.zeros(e + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0)
    return {"x": x.to(device), "w": w.to(device), "order": order.to(device),
            "offsets": offsets.to(device),
            "out": torch.empty(t, d_out, dtype=torch.float32, device=device)}


def reference(args):
    x, w = args["x"].double(), args["w"].double()
    order, offsets = args["order"].long(), args["offsets"].long()
    out = torch.empty(x.shape[0], w.shape[2], dtype=torch.float64)
    for e in range(w.shape[0]):
        toks = order[offsets[e]:offsets[e + 1]]
        out[toks] = x[toks] @ w[e]
    return {"out": out}
