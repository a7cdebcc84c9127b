"""Grouped GEMM: C[g] = A[g] @ B[g] for a list of problems of different sizes, scheduled by a
persistent `while` loop over one flat tile index space shared by all groups."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def grouped_gemm(As, Bs, Cs, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    tile = ct.bid(0)
    step = ct.num_blocks(0)
    first = 0  # flat index of the first tile of group g
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        tiles_m = ct.cdiv(A.shape[0], TM)
        tiles_n = ct.cdiv(B.shape[1], TN)
        last = first + tiles_m * tiles_n
        while tile < last:
            local = tile - first
            bm = local // tiles_n
            bn = local % tiles_n
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for k in range(ct.cdiv(A.shape[1], TK)):
                a = ct.load(A, (bm, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(B, (k, bn), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, (bm, bn), acc.astype(C.dtype))
            tile += step
        first = last


def launch(stream, As, Bs, Cs):
    tm, tn, tk = 32, 32, 32
    ct.launch(stream, (6,), grouped_gemm, (As, Bs, Cs, tm, tn, tk))
