import torch

# BENCH: the tile shapes and hints such libraries tune over; `tuned.py` finds cuTile's choice
TILES = [(64, 256, 64), (128, 256, 64), (256, 128, 64), (256, 256, 64)]

CASES = [
    {"mnk": (100, 90, 70), "tiles": (32, 64, 32), "hints": {}, "dtype": torch.float16},
    {"mnk": (70, 130, 50), "tiles": (64, 32, 16), "hints": {"num_ctas": 1, "occupancy": 2},
     "dtype": torch.float16},
]

BENCH = [
    {"mnk": mnk, "tiles": tiles, "hints": {"num_ctas": 2, "occupancy": 1}, "dtype": dt}
    for mnk, dt in (((4096, 4096, 4096), torch.float16), ((8192, 8192, 8192), torch.bfloat16))
    for tiles in TILES
]

OUTPUTS = ("c",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2), torch.bfloat16: dict(atol=2e-1, rtol=2e-2)}


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = (torch.randn(m, k, generator=gen) / k ** 0.5).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(m, n, dtype=dt, device=device),
            "tiles": case["tiles"], "hints": dict(case["hints"])}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}


def work(case):
    m, n, k = case["mnk"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": 2 * m * n * k, "bytes": (m * k + k * n + m * n) * size}


def bench_reference(case, args):
    return ("matmul", (args["a"], args["b"]))
