import cuda.tile as ct
import numpy as np

BUCKET = 12
OFFSET = None  # an optional shift, decided when the module is written


@ct.kernel
def bucket_kernel(keys, bucket, slot, weight, TILE: ct.Constant[int]):
    """Split signed keys into (bucket, slot) with floor semantics, and weight each key by
    its slot: weight = slot * 0.5 + 1 (a float32 constant written as numpy spells it)."""
    i = ct.bid(0)
    k = ct.load(keys, (i,), (TILE,))
    if OFFSET is not None:
        k = k + OFFSET
    b, s = divmod(k, BUCKET)
    ct.store(bucket, (i,), b)
    ct.store(slot, (i,), s)
    half = ct.full((TILE,), np.float32(0.5), np.float32)
    ct.store(weight, (i,), s.astype(ct.float32) * half + np.float32(1))


def launch(stream, keys, bucket, slot, weight):
    tile = 128
    ct.launch(
        stream, (ct.cdiv(keys.shape[0], tile),), bucket_kernel, (keys, bucket, slot, weight, tile)
    )
