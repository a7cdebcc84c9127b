"""A matmul in the style cuTile's own samples use: a local alias of the padding mode and the
operand dtype chosen from the input dtype (tf32 tensor cores for fp32 inputs, the inputs' own
dtype otherwise). Both are compile-time Python inside the kernel."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def gemm_select_kernel(X, W, Y, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    row_block = ct.bid(0)
    col_block = ct.bid(1)
    pad = ct.PaddingMode.ZERO  # an alias: only the translation-time value matters
    # fp32 inputs multiply on tf32 tensor cores; fp16/bf16 inputs keep their dtype
    compute = ct.tfloat32 if X.dtype == ct.float32 else X.dtype
    k_steps = ct.num_tiles(X, axis=1, shape=(BM, BK))
    total = ct.full((BM, BN), 0.0, dtype=ct.float32)
    for kk in range(k_steps):
        x = ct.load(X, index=(row_block, kk), shape=(BM, BK), padding_mode=pad)
        w = ct.load(W, index=(kk, col_block), shape=(BK, BN), padding_mode=pad)
        total = ct.mma(x.astype(compute), w.astype(compute), total)
    ct.store(Y, index=(row_block, col_block), tile=total.astype(Y.dtype))


def launch(stream, x, w, y):
    bm, bn, bk = 32, 64, 32
    m, n = y.shape
    ct.launch(
        stream, (ct.cdiv(m, bm), ct.cdiv(n, bn), 1), gemm_select_kernel, (x, w, y, bm, bn, bk)
    )
