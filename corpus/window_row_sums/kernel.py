"""Row sums over a column window x[:, start:start + length], written with an array slice and
tiled views instead of explicit ct.load / ct.store calls."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def window_row_sums(x, out, start, length, TM: ConstInt, TN: ConstInt):
    window = x.slice(axis=1, start=start, stop=start + length)
    tiles = window.tiled_view((TM, TN), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.zeros((TM, 1), dtype=ct.float32)
    for j in range(tiles.num_tiles(1)):
        t = tiles.load((ct.bid(0), j))
        acc += ct.sum(t.astype(ct.float32), axis=1, keepdims=True)
    sums = out.tiled_view((TM, 1))
    sums.store((ct.bid(0), 0), acc.astype(out.dtype))


def launch(stream, x, out, start, length):
    tm, tn = 16, 32
    ct.launch(stream, (ct.cdiv(x.shape[0], tm),), window_row_sums, (x, out, start, length, tm, tn))
