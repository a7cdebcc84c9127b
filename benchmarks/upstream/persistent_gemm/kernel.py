"""Statically persistent GEMM: one block per SM walks the output tiles in steps of
ct.num_blocks(0), in the same grouped order a 1-D grid of tiles would take."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel(occupancy=1)
def gemm_persistent(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt, GROUP: ConstInt):
    m_tiles = ct.cdiv(A.shape[0], TM)
    n_tiles = ct.cdiv(B.shape[1], TN)
    k_tiles = ct.cdiv(A.shape[1], TK)
    per_group = GROUP * n_tiles
    for tile in range(ct.bid(0), m_tiles * n_tiles, ct.num_blocks(0)):
        first_row = (tile // per_group) * GROUP
        rows = min(m_tiles - first_row, GROUP)
        tile_m = first_row + (tile % per_group) % rows
        tile_n = (tile % per_group) // rows
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for kk in range(k_tiles):
            a = ct.load(A, index=(tile_m, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO,
                        latency=4)
            b = ct.load(B, index=(kk, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO,
                        latency=4)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(tile_m, tile_n), tile=acc.astype(C.dtype))


def launch(stream, a, b, c, tiles, sms):
    tm, tn, tk = tiles
    tiles_total = ct.cdiv(c.shape[0], tm) * ct.cdiv(c.shape[1], tn)
    ct.launch(stream, (min(sms, tiles_total),), gemm_persistent, (a, b, c, tm, tn, tk, 8))
