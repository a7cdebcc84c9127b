import torch

CASES = [
    {"tokens": 100, "vocab": 50, "dim": 72, "dtype": torch.float32, "id_dtype": torch.int64},
    {"tokens": 37, "vocab": 1000, "dim": 40, "dtype": torch.float16, "id_dtype": torch.int32},
    {"tokens": 61, "vocab": 300, "dim": 96, "dtype": torch.bfloat16, "id_dtype": torch.int64,
     "cpu": False},
]

OUTPUTS = ("out",)


def make_args(case, gen, device):
    t, v, d, dt = case["tokens"], case["vocab"], case["dim"], case["dtype"]
    table = torch.randn(v, d, generator=gen).to(dt)
    # Mostly valid ids, some padding ids (-1) and some past the vocabulary.
    ids = torch.randint(-1, v + 3, (t,), generator=gen).to(case["id_dtype"])
    return {"table": table.to(device), "ids": ids.to(device),
            "out": torch.empty(t, d, dtype=dt, device=device)}


def reference(args):
    table, ids = args["table"].double(), args["ids"].long()
    known = (ids >= 0) & (ids < table.shape[0])
    rows = table[ids.clamp(0, table.shape[0] - 1)]
    return {"out": torch.where(known[:, None], rows, torch.zeros_like(rows))}
