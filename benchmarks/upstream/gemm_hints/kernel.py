"""GEMM written as cuTile op libraries write it: a 1-D grid walked in groups of 8 tile rows,
operands loaded with `latency=` and `allow_tma=True`, the kernel declared with `num_ctas` and
`occupancy` hints (per architecture) that a tuner replaces per candidate."""
import cuda.tile as ct

GROUP_M = 8


@ct.kernel(num_ctas=ct.ByTarget(sm_90=2, sm_100=2), occupancy=1)
def gemm_grouped(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    m_tiles = ct.cdiv(A.shape[0], TM)
    n_tiles = ct.cdiv(B.shape[1], TN)
    # consecutive blocks sweep GROUP_M tile rows before moving right: operands stay in L2
    tiles_per_group = GROUP_M * n_tiles
    block = ct.bid(0)
    first_row = (block // tiles_per_group) * GROUP_M
    rows_here = min(m_tiles - first_row, GROUP_M)
    tile_m = first_row + (block % tiles_per_group) % rows_here
    tile_n = (block % tiles_per_group) // rows_here

    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for kk in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(tile_m, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO,
                    latency=3, allow_tma=True)
        b = ct.load(B, index=(kk, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO,
                    latency=3, allow_tma=True)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(tile_m, tile_n), tile=acc.astype(C.dtype))


def launch(stream, a, b, c, tiles, hints):
    tm, tn, tk = tiles
    kernel = gemm_grouped.replace_hints(**hints) if hints else gemm_grouped
    grid = (ct.cdiv(c.shape[0], tm) * ct.cdiv(c.shape[1], tn),)
    ct.launch(stream, grid, kernel, (a, b, c, tm, tn, tk))
