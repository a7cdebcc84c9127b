import torch

CASES = [
    {"shape": (100, 300), "dtype": torch.float32},
    {"shape": (77, 130), "dtype": torch.float16},
    {"shape": (45, 200), "dtype": torch.bfloat16, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    shape, dt = case["shape"], case["dtype"]
    a = torch.randn(shape, generator=gen).to(dt)
    b = (torch.rand(shape, generator=gen) * 4 - 2).to(dt)
    out = torch.empty(shape, dtype=dt)
    return {"a": a.to(device), "b": b.to(device), "out": out.to(device)}


def reference(args):
    return {"out": args["a"].double() + args["b"].double()}
