"""Scale the rows of a matrix, but only the first `n_valid` of them: blocks past the end return
early, and a loop over column tiles stops early once it leaves the row's live length."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def scale_live_rows(x, lengths, out, n_valid, scale, TN: ConstInt):
    row = ct.bid(0)
    if row >= n_valid:
        return  # rows past n_valid keep their old contents
    length = ct.load(lengths, (row,), ())
    for j in range(ct.num_tiles(x, 1, (1, TN))):
        if j * TN >= length:
            return
        v = ct.load(x, (row, j), (1, TN), padding_mode=ct.PaddingMode.ZERO)
        cols = ct.arange(TN, dtype=ct.int32)[None, :] + j * TN
        v = ct.where(cols < length, v * scale, 0.0)
        ct.store(out, (row, j), v.astype(out.dtype))


def launch(stream, x, lengths, out, n_valid, scale):
    ct.launch(stream, (x.shape[0],), scale_live_rows, (x, lengths, out, n_valid, scale, 16))
