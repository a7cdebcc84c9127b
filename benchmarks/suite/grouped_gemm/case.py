import torch

CASES = [
    {"problems": ((40, 50, 30), (70, 20, 45), (33, 64, 16)), "tiles": (32, 32, 16),
     "dtype": torch.float16},
    {"problems": ((20, 30, 40), (50, 10, 33)), "tiles": (16, 32, 16), "dtype": torch.float32},
]

BENCH = [
    {"problems": tuple((m, n, k) for m, n, k in ((4096, 4096, 4096), (2048, 4096, 2048),
                                                  (4096, 2048, 1024), (1024, 4096, 4096),
                                                  (2048, 2048, 2048), (3072, 1024, 4096),
                                                  (1024, 1024, 8192), (4096, 1024, 2048))),
     "tiles": (128, 128, 64), "dtype": torch.float16},
]

OUTPUTS = ("Cs",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2)}


def make_args(case, gen, device):
    dt = case["dtype"]
    As = [torch.randn(m, k, generator=gen).to(dt).to(device) for m, n, k in case["problems"]]
    Bs = [torch.randn(k, n, generator=gen).to(dt).to(device) for m, n, k in case["problems"]]
    Cs = [torch.empty(m, n, dtype=dt, device=device) for m, n, k in case["problems"]]
    return {"As": As, "Bs": Bs, "Cs": Cs, "tiles": case["tiles"]}


def reference(args):
    return {"Cs": [a.double() @ b.double() for a, b in zip(args["As"], args["Bs"])]}


def work(case):
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": sum(2 * m * n * k for m, n, k in case["problems"]),
            "bytes": sum((m * k + k * n + m * n) * size for m, n, k in case["problems"])}


def bench_reference(case, args):
    # torch has no grouped GEMM: one torch.matmul per problem, back to back
    return ("matmuls", list(zip(args["As"], args["Bs"])))
