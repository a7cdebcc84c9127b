import torch

# tokens, model dim, hidden dim, experts
CASES = [
    {"t": 37, "d": 50, "h": 70, "e": 4, "dtype": torch.float32},
    {"t": 90, "d": 64, "h": 45, "e": 3, "dtype": torch.float16},
]

OUTPUTS = ("y",)
TOLERANCE = {torch.float32: dict(atol=1e-3, rtol=1e-3)}

TILE_T = 16  # must match kernel.launch


def make_args(case, gen, device):
    t, d, h, e, dt = case["t"], case["d"], case["h"], case["e"], case["dtype"]
    x = torch.randn(t, d, generator=gen).to(dt)
    w = (torch.randn(e, d, h, generator=gen) / d ** 0.5).to(dt)
    gate = (torch.rand(e, 1, generator=gen) + 0.5).to(torch.float32)
    expert_of = torch.randint(0, e, (t,), generator=gen)
    row_token, block_expert = [], []
    for ex in range(e):
        ids = (expert_of == ex).nonzero().flatten().tolist()
        if not ids:
            continue
        pad = (-len(ids)) % TILE_T
        row_token += ids + [t] * pad                      # t is out of range: a padding row
        block_expert += [ex] * ((len(ids) + pad) // TILE_T)
    return {"x": x.to(device), "w": w.to(device),
            "y": torch.empty(t, h, dtype=dt, device=device),
            "row_token": torch.tensor(row_token, dtype=torch.int32, device=device),
            "block_expert": torch.tensor(block_expert, dtype=torch.int32, device=device),
            "gate": gate.to(device)}


def reference(args):
    x, w, gate = args["x"].double(), args["w"].double(), args["gate"].double()
    t = x.shape[0]
    out = torch.empty(t, w.shape[2], dtype=torch.float64, device=x.device)
    rows = args["row_token"].long()
    experts = args["block_expert"].long().repeat_interleave(TILE_T)
    for r, ex in zip(rows.tolist(), experts.tolist()):
        if r < t:
            out[r] = (x[r] @ w[ex]) * gate[ex, 0]
    return {"y": out}
