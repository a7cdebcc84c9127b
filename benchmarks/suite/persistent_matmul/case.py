import torch

FP16_TILES = (128, 128, 64)
FP32_TILES = (128, 128, 32)

CASES = [
    {"mnk": (100, 170, 90), "tiles": (32, 32, 32), "dtype": torch.float16},
    {"mnk": (65, 33, 50), "tiles": (32, 32, 16), "dtype": torch.float32},
]

BENCH = [
    {"mnk": mnk, "tiles": FP16_TILES if dt == torch.float16 else FP32_TILES, "dtype": dt}
    for dt in (torch.float16, torch.float32)
    for mnk in ((4096, 4096, 4096), (8192, 8192, 8192))
]

OUTPUTS = ("c",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2),
             torch.float32: dict(atol=5e-2, rtol=1e-2)}   # tf32 products


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = torch.randn(m, k, generator=gen).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(m, n, dtype=dt, device=device),
            "tiles": case["tiles"]}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}


def work(case):
    m, n, k = case["mnk"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": 2 * m * n * k, "bytes": (m * k + k * n + m * n) * size}


def bench_reference(case, args):
    return ("matmul", (args["a"], args["b"], case["dtype"] == torch.float32))
