import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_load_f_kernel(x, out, TN: ConstInt, TM: ConstInt):
    """out (N, M) = x (M, N).T, transposing in the load itself.

    order="F" reverses the array axes before tiling, so x is seen as an (N, M) array:
    tile (i, j) of shape (TN, TM) holds x[j*TM + b, i*TN + a] at position [a, b],
    which is exactly tile (i, j) of out.
    """
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, (i, j), (TN, TM), order="F")
    ct.store(out, (i, j), t)


@ct.kernel
def transpose_store_kernel(x, out, TM: ConstInt, TN: ConstInt):
    """Batched transpose out (B, N, M) = x (B, M, N).transpose(1, 2), transposing in the store.

    The tile is read in x's natural layout, and order=(0, 2, 1) makes the store see out as
    a (B, M, N) array, so the same tile index is used for both.
    """
    i = ct.bid(0)
    j = ct.bid(1)
    b = ct.bid(2)
    t = ct.load(x, (b, i, j), (1, TM, TN))
    ct.store(out, (b, i, j), t, order=(0, 2, 1))


def launch(stream, x, out, x3, out3):
    tm, tn = 16, 32
    m, n = x.shape
    ct.launch(stream, (ct.cdiv(n, tn), ct.cdiv(m, tm)), transpose_load_f_kernel, (x, out, tn, tm))
    bsz, m3, n3 = x3.shape
    ct.launch(
        stream, (ct.cdiv(m3, tm), ct.cdiv(n3, tn), bsz), transpose_store_kernel, (x3, out3, tm, tn)
    )
