"""Mixture-of-experts up-projection over tokens grouped by expert.

The host sorts the token rows by expert and pads every expert's group to a multiple of TILE_T
rows (padding rows hold an out-of-range token id), so each block of TILE_T sorted rows belongs to
one expert. Each block reads its expert id as a 0-d tile, gathers its token rows, multiplies by
that expert's weight matrix and scatters the rows back to token order.
"""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def expert_up_kernel(
    X, W, Y, row_token, block_expert, gate, TILE_T: ConstInt, TILE_H: ConstInt, TILE_D: ConstInt
):
    blk = ct.bid(0)
    col = ct.bid(1)
    zero = ct.PaddingMode.ZERO
    d_model = X.shape[1]

    # one expert per block of sorted rows: a single element, read as a 0-d tile
    expert = ct.load(block_expert, index=blk, shape=())
    # the expert's gate scale, another 0-d load (2-D array, one element)
    scale = ct.load(gate, index=(expert, 0), shape=())

    rows = blk * TILE_T + ct.arange(TILE_T, dtype=ct.int32)
    tokens = ct.gather(row_token, rows)  # padding rows: out-of-range ids
    acc = ct.zeros((TILE_T, TILE_H), dtype=ct.float32)
    for kk in range(ct.cdiv(d_model, TILE_D)):
        cols = kk * TILE_D + ct.arange(TILE_D, dtype=ct.int32)
        x = ct.gather(X, (tokens[:, None], cols[None, :]))  # out-of-range rows read 0
        w = ct.load(W, index=(expert, kk, col), shape=(1, TILE_D, TILE_H), padding_mode=zero)
        acc = ct.mma(x, w.reshape((TILE_D, TILE_H)), acc)

    out_cols = col * TILE_H + ct.arange(TILE_H, dtype=ct.int32)
    result = (acc * scale).astype(Y.dtype)
    ct.scatter(Y, (tokens[:, None], out_cols[None, :]), result)  # padding rows are dropped


def launch(stream, x, w, y, row_token, block_expert, gate):
    tile_t, tile_h, tile_d = 16, 32, 32
    hidden = w.shape[2]
    grid = (block_expert.shape[0], ct.cdiv(hidden, tile_h), 1)
    ct.launch(
        stream,
        grid,
        expert_up_kernel,
        (x, w, y, row_token, block_expert, gate, tile_t, tile_h, tile_d),
    )
