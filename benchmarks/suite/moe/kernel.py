"""Mixture-of-experts expert products: every (token, choice) pair multiplies its token's row by
the weight matrix of the expert the router chose, scaled by the router's weight.

The host sorts the pairs by expert and pads each expert's run to a multiple of TILE_M slots
(padding slots hold the out-of-range pair id `num_pairs`), so every block of TILE_M slots
belongs to one expert, read as a 0-d tile. Token rows are gathered, the results scattered back
to pair order; out-of-range ids read zeros and write nothing.
"""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def moe_expert_matmul(X, W, Y, slot_pair, block_expert, pair_weight,
                      TOPK: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt, TILE_K: ConstInt):
    blk_m = ct.bid(0)
    blk_n = ct.bid(1)
    zero = ct.PaddingMode.ZERO
    d_model = X.shape[1]

    expert = ct.load(block_expert, index=blk_m, shape=())
    slots = blk_m * TILE_M + ct.arange(TILE_M, dtype=ct.int32)
    pairs = ct.gather(slot_pair, slots)
    tokens = pairs // TOPK

    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for kk in range(ct.cdiv(d_model, TILE_K)):
        cols = kk * TILE_K + ct.arange(TILE_K, dtype=ct.int32)
        x = ct.gather(X, (tokens[:, None], cols[None, :]))
        w = ct.load(W, index=(expert, kk, blk_n), shape=(1, TILE_K, TILE_N), padding_mode=zero)
        acc = ct.mma(x, ct.reshape(w, (TILE_K, TILE_N)), acc)

    scale = ct.gather(pair_weight, pairs)
    out_cols = blk_n * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
    result = ct.astype(acc * scale[:, None], Y.dtype)
    ct.scatter(Y, (pairs[:, None], out_cols[None, :]), result)


def launch(stream, x, w, y, slot_pair, block_expert, pair_weight, topk, tiles):
    tile_m, tile_n, tile_k = tiles
    grid = (block_expert.shape[0], ct.cdiv(w.shape[2], tile_n), 1)
    ct.launch(stream, grid, moe_expert_matmul,
              (x, w, y, slot_pair, block_expert, pair_weight, topk, tile_m, tile_n, tile_k))
