from dataclasses import dataclass

import cuda.tile as ct

from shop.kern import ring_copy


@dataclass
class Config:
    tile: int = 16
    compute_type: ct.DType = None       # names ct only in an annotation


def run(stream, x, out, cfg: Config = Config()):
    with ct.compiler_timeout(30):
        ct.launch(stream, (ct.cdiv(x.shape[0], cfg.tile),), ring_copy, (x, out, cfg.tile))
