import torch

CASES = [
    {"shape": (37, 100), "rows": 4, "sms": 3, "dtype": torch.float16},
    {"shape": (20, 64), "rows": 8, "sms": 2, "dtype": torch.float32},
]


def _sms():
    return torch.cuda.get_device_properties(0).multi_processor_count \
        if torch.cuda.is_available() else 132


BENCH = [
    {"shape": (16384, 4096), "rows": 2, "sms": "device", "dtype": torch.float16},
    {"shape": (16384, 4096), "rows": 2, "sms": "device", "dtype": torch.bfloat16},
    {"shape": (32768, 2048), "rows": 4, "sms": "device", "dtype": torch.bfloat16},
]

OUTPUTS = ("y",)
TOLERANCE = {torch.float16: dict(atol=4e-3, rtol=4e-3), torch.bfloat16: dict(atol=3e-2, rtol=2e-2),
             torch.float32: dict(atol=1e-5, rtol=1e-5)}


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    sms = _sms() if case["sms"] == "device" else case["sms"]
    return {"x": torch.randn(m, n, generator=gen).to(dt).to(device),
            "w": (1 + 0.1 * torch.randn(n, generator=gen)).to(dt).to(device),
            "y": torch.empty(m, n, dtype=dt, device=device), "eps": 1e-6,
            "rows_per_tile": case["rows"], "sms": sms}


def reference(args):
    x, w = args["x"].double(), args["w"].double()
    return {"y": x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + args["eps"]) * w}


def work(case):
    m, n = case["shape"]
    return {"bytes": 2 * m * n * torch.empty(0, dtype=case["dtype"]).element_size()}
