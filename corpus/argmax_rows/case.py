import torch

CASES = [
    {"shape": (50, 100), "dtype": torch.float32, "index_dtype": torch.int32},
    {"shape": (37, 250), "dtype": torch.float16, "index_dtype": torch.int64},
    {"shape": (30, 129), "dtype": torch.bfloat16, "index_dtype": torch.int32, "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    (m, n), dt = case["shape"], case["dtype"]
    # Small integers (exact in every float dtype) so that rows have many tied maxima.
    x = torch.randint(-20, 8, (m, n), generator=gen).to(dt)
    return {"x": x.to(device), "out": torch.empty(m, dtype=case["index_dtype"], device=device)}


def reference(args):
    x = args["x"].double()
    n = x.shape[1]
    is_max = x == x.max(dim=1, keepdim=True).values
    cols = torch.arange(n, device=x.device).expand_as(x)
    first = torch.where(is_max, cols, torch.full_like(cols, n)).min(dim=1).values
    return {"out": first}
