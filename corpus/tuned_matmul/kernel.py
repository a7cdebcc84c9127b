"""A matmul whose tile sizes are chosen by ct.tune.exhaustive_search, launched with
architecture-dependent hints (ct.ByTarget) through kernel.replace_hints."""

import cuda.tile as ct
from cuda.tile import ByTarget

ConstInt = ct.Constant[int]


@ct.kernel(num_ctas=ByTarget(sm_100=2, default=1), occupancy=2)
def tiled_matmul(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def tune(stream, a, b, c) -> ct.tune.TuningResult:
    m, n = c.shape
    space = [dict(tm=tm, tn=tn, tk=32) for tm in (32, 64) for tn in (32, 64)]
    return ct.tune.exhaustive_search(
        space,
        stream,
        lambda cfg: (ct.cdiv(m, cfg["tm"]), ct.cdiv(n, cfg["tn"])),
        tiled_matmul,
        lambda cfg: (a, b, c.clone(), cfg["tm"], cfg["tn"], cfg["tk"]),
        lambda cfg: {"occupancy": 1},
        quiet=True,
    )


def launch(stream, a, b, c):
    best = tune(stream, a, b, c).best.config
    kernel = tiled_matmul.replace_hints(occupancy=4)
    m, n = c.shape
    grid = (ct.cdiv(m, best["tm"]), ct.cdiv(n, best["tn"]))
    ct.launch(stream, grid, kernel, (a, b, c, best["tm"], best["tn"], best["tk"]))
