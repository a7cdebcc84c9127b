"""C = A @ B on a 1-D grid of output tiles, grouped along M so that consecutive blocks share
tiles of B in L2; float32 inputs go through tf32 (cuTile's idiom for the tensor cores)."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


def grouped_tile(M, N, tm, tn, GROUP_M, bid):
    """(row, column) of output tile `bid` when tiles are ordered in groups of GROUP_M rows."""
    tiles_m = ct.cdiv(M, tm)
    tiles_n = ct.cdiv(N, tn)
    per_group = GROUP_M * tiles_n
    first_m = (bid // per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    return first_m + bid % rows, (bid % per_group) // rows


@ct.kernel
def matmul_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    bm, bn = grouped_tile(A.shape[0], B.shape[1], tm, tn, 8, ct.bid(0))
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.astype(dtype), b.astype(dtype), acc)
    ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))


def launch(stream, a, b, c, tiles):
    tm, tn, tk = tiles
    m, n = c.shape
    grid = (ct.cdiv(m, tm) * ct.cdiv(n, tn), 1, 1)
    ct.launch(stream, grid, matmul_kernel, (a, b, c, tm, tn, tk))
