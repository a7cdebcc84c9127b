"""Persistent C = A @ B: as many blocks as the GPU has SMs, each walking the output tiles
bid, bid + num_blocks, ...; tiles ordered in groups of GROUP_M rows for L2 reuse."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def persistent_matmul(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    GROUP_M = 8
    M = A.shape[0]
    N = B.shape[1]
    tiles_m = ct.cdiv(M, tm)
    tiles_n = ct.cdiv(N, tn)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for tile in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        per_group = GROUP_M * tiles_n
        first_m = (tile // per_group) * GROUP_M
        rows = min(tiles_m - first_m, GROUP_M)
        bm = first_m + tile % rows
        bn = (tile % per_group) // rows
        acc = ct.full((tm, tn), 0, dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a.astype(dtype), b.astype(dtype), acc)
        ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))


def launch(stream, a, b, c, tiles):
    tm, tn, tk = tiles
    m, n = c.shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count \
        if torch.cuda.is_available() else 3
    grid = (min(sms, ct.cdiv(m, tm) * ct.cdiv(n, tn)), 1, 1)
    ct.launch(stream, grid, persistent_matmul, (a, b, c, tm, tn, tk))
