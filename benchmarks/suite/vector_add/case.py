import torch

CASES = [
    {"n": 1000, "tile": 128, "dtype": torch.float32},
    {"n": 5000, "tile": 1024, "dtype": torch.float16},
]

# GPU sizes for tile2triton bench / benchmarks/run_suite.py
BENCH = [
    {"n": 1 << 26, "tile": 128, "dtype": torch.float32},
    {"n": 1 << 26, "tile": 1024, "dtype": torch.float32},
]

OUTPUTS = ("c",)


def make_args(case, gen, device):
    n, dt = case["n"], case["dtype"]
    a = torch.randn(n, generator=gen).to(dt)
    b = torch.randn(n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(n, dtype=dt, device=device),
            "tile": case["tile"]}


def reference(args):
    return {"c": args["a"].double() + args["b"].double()}


def work(case):
    return {"bytes": 3 * case["n"] * torch.empty(0, dtype=case["dtype"]).element_size()}
