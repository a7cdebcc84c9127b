"""Sliding-window maxima over each row, with overlapping windows described by a tiled view with
traversal steps: window j of a row covers columns [j*STEP, j*STEP + W), for every origin j*STEP
inside the row (`out` has one column per window)."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def window_max(x, out, counts, W: ConstInt, STEP: ConstInt):
    row = ct.bid(0)
    windows = x.tiled_view((1, W), traversal_steps=(1, STEP), padding_mode=ct.PaddingMode.NEG_INF)
    n = windows.num_tiles(1)
    for j in range(n):
        m = ct.max(windows.load((row, j)), axis=1, keepdims=True)
        ct.store(out, (row, j), m)
    ct.store(counts, (row,), n)  # how many windows the view has (checks num_tiles too)


def launch(stream, x, out, counts):
    w, step = 16, 5
    ct.launch(stream, (x.shape[0],), window_max, (x, out, counts, w, step))
