import torch

CASES = [
    {"n": 1000, "nbins": 16, "range": (-2.0, 6.0), "dtype": torch.float32,
     "hist_dtype": torch.int32},
    {"n": 777, "nbins": 40, "range": (0.0, 10.0), "dtype": torch.float32,
     "hist_dtype": torch.int64},
    {"n": 3001, "nbins": 7, "range": (-1.0, 1.0), "dtype": torch.float16,
     "hist_dtype": torch.int32},
]

OUTPUTS = ("hist",)


def make_args(case, gen, device):
    n, nbins, (lo, hi) = case["n"], case["nbins"], case["range"]
    width = (hi - lo) / nbins
    # Values well inside their bins (never near an edge, where float32 and float64 could
    # disagree about the bin), a tenth of them outside [lo, hi) on either side.
    k = torch.randint(-max(1, nbins // 10), nbins + max(1, nbins // 10), (n,), generator=gen)
    u = 0.2 + 0.6 * torch.rand(n, generator=gen)
    x = (lo + (k + u) * width).to(case["dtype"])
    return {"x": x.to(device), "hist": torch.empty(nbins, dtype=case["hist_dtype"], device=device),
            "lo": lo, "hi": hi}


def reference(args):
    x, lo, hi = args["x"].double(), args["lo"], args["hi"]
    nbins = args["hist"].shape[0]
    inside = (x >= lo) & (x < hi)
    bins = torch.floor((x[inside] - lo) / (hi - lo) * nbins).long()
    return {"hist": torch.bincount(bins, minlength=nbins)}
