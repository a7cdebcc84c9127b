"""For each row, the column of the first value above a threshold (or -1): a search loop that
stops with `break` and skips empty tiles with `continue`."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def first_match(x, out, threshold, TN: ConstInt):
    row = ct.bid(0)
    found = -1
    for j in range(ct.num_tiles(x, 1, (1, TN))):
        v = ct.load(x, (row, j), (1, TN), padding_mode=ct.PaddingMode.NEG_INF)
        hit = v > threshold
        if ct.max(hit.astype(ct.int32)) == 0:
            continue  # nothing in this tile
        cols = ct.arange(TN, dtype=ct.int32)[None, :] + j * TN
        # smallest matching column: non-matching lanes get a huge value
        found = ct.min(ct.where(hit, cols, 2**30))
        break
    ct.store(out, (row,), found)


def launch(stream, x, out, threshold):
    ct.launch(stream, (x.shape[0],), first_match, (x, out, threshold, 32))
