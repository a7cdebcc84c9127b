import torch

CASES = [
    {"shape": (37, 53), "n": 1000},
    {"shape": (16, 9), "n": 333},
]

OUTPUTS = ("cells", "last_writer")
TILE = 64


def make_args(case, gen, device):
    (m, n), k = case["shape"], case["n"]
    offsets = torch.randint(0, m * n, (k,), generator=gen, dtype=torch.int64)
    values = torch.randn(k, generator=gen)
    cells = torch.empty(m, n)                       # written by the kernels
    last = torch.empty(m, n, dtype=torch.int32)
    return {"cells": cells.to(device), "last_writer": last.to(device),
            "offsets": offsets.to(device), "values": values.to(device)}


def reference(args):
    shape = args["cells"].shape
    offs, vals = args["offsets"].cpu(), args["values"].double().cpu()
    cells = torch.zeros(shape, dtype=torch.float64).reshape(-1)
    cells.index_add_(0, offs, vals)
    last = torch.full((cells.numel(),), -1, dtype=torch.int64)
    block = torch.arange(offs.numel()) // TILE
    last.scatter_reduce_(0, offs, block, reduce="amax")
    return {"cells": cells.reshape(shape), "last_writer": last.reshape(shape)}
