import torch

CASES = [
    {"bmnk": (3, 50, 40, 70), "tiles": (16, 32, 32), "dtype": torch.float16},
    {"bmnk": (2, 33, 65, 20), "tiles": (32, 32, 16), "dtype": torch.float32},
]

BENCH = [
    {"bmnk": (8, 2048, 2048, 2048), "tiles": (128, 128, 64), "dtype": torch.float16},
    {"bmnk": (4, 4096, 4096, 2000), "tiles": (128, 128, 64), "dtype": torch.float16},
]

OUTPUTS = ("c",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2)}


def make_args(case, gen, device):
    (nb, m, n, k), dt = case["bmnk"], case["dtype"]
    a = torch.randn(nb, m, k, generator=gen).to(dt)
    b = torch.randn(nb, k, n, generator=gen).to(dt)
    return {"a": a.to(device), "b": b.to(device),
            "c": torch.empty(nb, m, n, dtype=dt, device=device), "tiles": case["tiles"]}


def reference(args):
    return {"c": torch.bmm(args["a"].double(), args["b"].double())}


def work(case):
    nb, m, n, k = case["bmnk"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": 2 * nb * m * n * k, "bytes": nb * (m * k + k * n + m * n) * size}


def bench_reference(case, args):
    return ("matmul", (args["a"], args["b"], case["dtype"] == torch.float32))
