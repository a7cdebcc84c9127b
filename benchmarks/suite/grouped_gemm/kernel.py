"""Grouped GEMM over lists of arrays: C[g] = A[g] @ B[g] for problems of different sizes.
NUM_SM persistent blocks walk one flat index space of output tiles shared by all groups."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def grouped_gemm(As, Bs, Cs, NUM_SM: ConstInt, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    tile = ct.bid(0)
    first = 0
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        tiles_n = ct.num_tiles(B, 1, (tk, tn))
        count = ct.num_tiles(A, 0, (tm, tk)) * tiles_n
        while tile >= first and tile < first + count:
            local = tile - first
            acc = ct.zeros((tm, tn), dtype=ct.float32)
            for k in range(ct.num_tiles(A, 1, (tm, tk))):
                a = ct.load(A, (local // tiles_n, k), shape=(tm, tk),
                            padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(B, (k, local % tiles_n), shape=(tk, tn),
                            padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, (local // tiles_n, local % tiles_n), tile=ct.astype(acc, C.dtype))
            tile += NUM_SM
        first = first + count


def launch(stream, As, Bs, Cs, tiles):
    tm, tn, tk = tiles
    sms = torch.cuda.get_device_properties(0).multi_processor_count \
        if torch.cuda.is_available() else 4
    ct.launch(stream, (sms, 1, 1), grouped_gemm, (As, Bs, Cs, sms, tm, tn, tk))
