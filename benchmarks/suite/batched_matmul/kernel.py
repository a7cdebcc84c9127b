"""Batched C[i] = A[i] @ B[i] with 3-D tiles: every tile keeps a leading batch axis of 1 and
ct.mma multiplies the last two axes. Grid: (batch, M tiles, N tiles)."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def batched_matmul(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    i = ct.bid(0)
    bm = ct.bid(1)
    bn = ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.load(A, index=(i, bm, k), shape=(1, tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(i, k, bn), shape=(1, tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, bm, bn), tile=acc.astype(C.dtype))


def launch(stream, a, b, c, tiles):
    tm, tn, tk = tiles
    nb, m, n = c.shape
    grid = (nb, ct.cdiv(m, tm), ct.cdiv(n, tn))
    ct.launch(stream, grid, batched_matmul, (a, b, c, tm, tn, tk))
