import torch

CASES = [
    {"mnk": (70, 150, 100), "dtype": torch.float16},
    {"mnk": (129, 65, 47), "dtype": torch.float16},
    {"mnk": (70, 150, 100), "dtype": torch.float32},
    {"mnk": (33, 97, 130), "dtype": torch.float32},
]

# on the GPU: the fp16 specialization must run as an fp16 tensor-core product (not tf32)
BENCH = [{"mnk": (4096, 4096, 4096), "dtype": torch.float16},
         {"mnk": (4096, 4096, 4096), "dtype": torch.float32}]

OUTPUTS = ("y",)

# fp32 inputs go through tf32 (10-bit mantissas, relative error up to 2**-11 per operand);
# fp16 inputs multiply exactly in an fp32 accumulator and round once when stored.
TOLERANCE = {torch.float32: dict(atol=5e-2, rtol=1e-2),
             torch.float16: dict(atol=2e-2, rtol=2e-2)}


def make_args(case, gen, device):
    m, n, k = case["mnk"]
    dt = case["dtype"]
    x = torch.randn(m, k, generator=gen).to(dt)
    w = torch.randn(k, n, generator=gen).to(dt)
    return {"x": x.to(device), "w": w.to(device),
            "y": torch.empty(m, n, dtype=dt, device=device)}


def reference(args):
    return {"y": args["x"].double() @ args["w"].double()}
