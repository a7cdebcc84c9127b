import torch

CASES = [
    {"n": 1000, "dtype": torch.float32},
    {"n": 777, "dtype": torch.float16},
    {"n": 4099, "dtype": torch.bfloat16, "cpu": False},
]

# GPU benchmark sizes (tile2triton.verify.gpu_corpus --bench); never run on CPU
BENCH = [{"n": 1 << 26, "dtype": torch.float32}]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    n, dt = case["n"], case["dtype"]
    a = torch.randn(n, generator=gen).to(dt)
    b = torch.randn(n, generator=gen).to(dt)
    out = torch.empty(n, dtype=dt)
    return {"a": a.to(device), "b": b.to(device), "out": out.to(device)}


def reference(args):
    return {"out": args["a"].double() + args["b"].double()}
