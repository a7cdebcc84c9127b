import torch

CASES = [
    {"tokens": 100, "experts": 8, "dtype": torch.float32, "id_dtype": torch.int32},
    {"tokens": 77, "experts": 6, "dtype": torch.float16, "id_dtype": torch.int64},
    {"tokens": 45, "experts": 60, "dtype": torch.float32, "id_dtype": torch.int64},
    {"tokens": 129, "experts": 16, "dtype": torch.bfloat16, "id_dtype": torch.int32,
     "cpu": False},
]

OUTPUTS = ("expert", "gate")


def make_args(case, gen, device):
    t, e, dt = case["tokens"], case["experts"], case["dtype"]
    # Logits on a grid of quarters (exact in every float dtype) so that ties happen.
    logits = (torch.randint(-8, 8, (t, e), generator=gen) * 0.25).to(dt)
    return {"logits": logits.to(device),
            "expert": torch.empty(t, dtype=case["id_dtype"], device=device),
            "gate": torch.empty(t, dtype=torch.float32, device=device)}


def reference(args):
    x = args["logits"].double()
    e = x.shape[1]
    is_max = x == x.max(dim=1, keepdim=True).values
    cols = torch.arange(e, device=x.device).expand_as(x)
    first = torch.where(is_max, cols, torch.full_like(cols, e)).min(dim=1).values
    return {"expert": first, "gate": torch.softmax(x, dim=1).max(dim=1).values}
