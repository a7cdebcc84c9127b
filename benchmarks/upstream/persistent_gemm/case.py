import torch

CASES = [
    {"mnk": (130, 100, 70), "tiles": (32, 32, 32), "sms": 3, "dtype": torch.float16},
    {"mnk": (64, 200, 40), "tiles": (32, 64, 16), "sms": 5, "dtype": torch.float16},
]


def _sms():
    return torch.cuda.get_device_properties(0).multi_processor_count \
        if torch.cuda.is_available() else 132


BENCH = [
    {"mnk": (4096, 4096, 4096), "tiles": (128, 256, 64), "sms": "device", "dtype": torch.float16},
    {"mnk": (4096, 4096, 4096), "tiles": (128, 128, 64), "sms": "device", "dtype": torch.float16},
    {"mnk": (8192, 8192, 8192), "tiles": (128, 256, 64), "sms": "device", "dtype": torch.bfloat16},
]

OUTPUTS = ("c",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2), torch.bfloat16: dict(atol=2e-1, rtol=2e-2)}


def make_args(case, gen, device):
    (m, n, k), dt = case["mnk"], case["dtype"]
    a = (torch.randn(m, k, generator=gen) / k ** 0.5).to(dt)
    b = torch.randn(k, n, generator=gen).to(dt)
    sms = _sms() if case["sms"] == "device" else case["sms"]
    return {"a": a.to(device), "b": b.to(device), "c": torch.empty(m, n, dtype=dt, device=device),
            "tiles": case["tiles"], "sms": sms}


def reference(args):
    return {"c": args["a"].double() @ args["b"].double()}


def work(case):
    m, n, k = case["mnk"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": 2 * m * n * k, "bytes": (m * k + k * n + m * n) * size}


def bench_reference(case, args):
    return ("matmul", (args["a"], args["b"]))
