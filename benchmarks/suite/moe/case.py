import torch

CASES = [
    {"tokens": 45, "topk": 2, "experts": 3, "d_model": 70, "hidden": 50, "tiles": (16, 32, 32),
     "dtype": torch.float16},
    {"tokens": 30, "topk": 1, "experts": 4, "d_model": 40, "hidden": 33, "tiles": (16, 16, 16),
     "dtype": torch.float32},
]

BENCH = [
    {"tokens": 8192, "topk": 2, "experts": 8, "d_model": 4096, "hidden": 2048,
     "tiles": (128, 128, 64), "dtype": torch.float16},
]

OUTPUTS = ("y",)
TOLERANCE = {torch.float16: dict(atol=3e-2, rtol=1e-2),
             torch.float32: dict(atol=5e-2, rtol=1e-2)}   # fp32 products may use tf32


def _route(case, gen):
    """Router choices and weights, and the expert-sorted, TILE_M-padded slot layout."""
    t, k, e, tile_m = case["tokens"], case["topk"], case["experts"], case["tiles"][0]
    choice = torch.stack([torch.randperm(e, generator=gen)[:k] for _ in range(t)])   # (t, k)
    weight = torch.rand(t, k, generator=gen) + 0.5
    flat = choice.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=e).tolist()
    slots, experts, start = [], [], 0
    for ex, cnt in enumerate(counts):
        run = order[start:start + cnt].tolist()
        start += cnt
        blocks = -(-cnt // tile_m)
        slots += run + [t * k] * (blocks * tile_m - cnt)
        experts += [ex] * blocks
    return (choice, weight, torch.tensor(slots, dtype=torch.int32),
            torch.tensor(experts, dtype=torch.int32))


def make_args(case, gen, device):
    dt = case["dtype"]
    t, k, e = case["tokens"], case["topk"], case["experts"]
    choice, weight, slots, experts = _route(case, gen)
    x = torch.randn(t, case["d_model"], generator=gen).to(dt)
    w = (torch.randn(e, case["d_model"], case["hidden"], generator=gen)
         / case["d_model"] ** 0.5).to(dt)
    return {"x": x.to(device), "w": w.to(device),
            "y": torch.empty(t * k, case["hidden"], dtype=dt, device=device),
            "slot_pair": slots.to(device), "block_expert": experts.to(device),
            "pair_weight": weight.reshape(-1).to(device), "topk": k, "tiles": case["tiles"]}


def reference(args):
    k = args["topk"]
    x, w = args["x"].double().cpu(), args["w"].double().cpu()
    # each pair's expert, read back from the slot layout: slot s belongs to block s // TILE_M
    slots = args["slot_pair"].long().cpu()
    pairs = args["pair_weight"].numel()
    real = slots < pairs
    choice = torch.empty(pairs, dtype=torch.long)
    block_of_slot = torch.arange(slots.numel()) // args["tiles"][0]
    choice[slots[real]] = args["block_expert"].long().cpu()[block_of_slot[real]]
    tok = torch.arange(pairs) // k
    y = torch.einsum("pd,pdh->ph", x[tok], w[choice])
    return {"y": y * args["pair_weight"].double().cpu()[:, None]}


def work(case):
    pairs = case["tokens"] * case["topk"]
    size = torch.empty(0, dtype=case["dtype"]).element_size()
    return {"flops": 2 * pairs * case["d_model"] * case["hidden"],
            "bytes": (case["tokens"] * case["d_model"] + pairs * case["hidden"]
                      + case["experts"] * case["d_model"] * case["hidden"]) * size}


def bench_reference(case, args):
    # a dense product of the same size: every pair's row times one expert's weights
    x = args["x"].repeat_interleave(args["topk"], dim=0)
    return ("matmul", (x, args["w"][0], case["dtype"] == torch.float32))
