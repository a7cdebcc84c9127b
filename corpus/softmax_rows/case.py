import torch

CASES = [
    {"shape": (37, 100), "dtype": torch.float32},
    {"shape": (50, 250), "dtype": torch.float16},
    {"shape": (20, 600), "dtype": torch.bfloat16, "cpu": False},
]

# GPU benchmark sizes (tile2triton.verify.gpu_corpus --bench); never run on CPU
BENCH = [{"shape": (8192, 4096), "dtype": torch.float16}]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    # Wide spread and an offset so the max subtraction matters.
    x = (torch.randn(m, n, generator=gen) * 3.0 + 5.0).to(dt)
    out = torch.empty(m, n, dtype=dt)
    return {"x": x.to(device), "out": out.to(device)}


def reference(args):
    return {"out": torch.softmax(args["x"].double(), dim=1)}
