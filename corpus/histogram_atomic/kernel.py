import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def histogram_kernel(x, hist, lo, hi, TILE: ConstInt):
    """hist[b] += number of x in [lo + b * w, lo + (b + 1) * w), with w = (hi - lo) / nbins.

    Each block bins TILE values and adds them with one atomic per value. Values outside
    [lo, hi), and the NaN padding past the end of x, get bin -1: atomics treat negative
    indices as out of bounds and leave memory alone. Counting needs no ordering with other
    memory operations, hence the relaxed atomics.
    """
    nbins = hist.shape[0]
    v = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.NAN)
    inside = (v >= lo) & (v < hi)
    pos = ct.floor((v - lo) / (hi - lo) * nbins)
    bins = ct.where(inside, pos, -1.0).astype(ct.int32)
    ones = ct.ones((TILE,), dtype=hist.dtype)
    ct.atomic_add(hist, bins, ones, memory_order=ct.MemoryOrder.RELAXED)


def launch(stream, x, hist, lo, hi):
    tile = 128
    hist.zero_()
    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), histogram_kernel, (x, hist, lo, hi, tile))
