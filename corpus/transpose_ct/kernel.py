import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_kernel(x, out, TM: ConstInt, TN: ConstInt):
    """out = x.T. Block (i, j) reads the (TM, TN) tile (i, j) of x and writes it,
    transposed, as the (TN, TM) tile (j, i) of out."""
    i = ct.bid(0)
    j = ct.bid(1)
    tile = ct.load(x, (i, j), (TM, TN))
    ct.store(out, (j, i), ct.transpose(tile))


def launch(stream, x, out):
    tm, tn = 32, 16  # deliberately not square
    m, n = x.shape
    ct.launch(stream, (ct.cdiv(m, tm), ct.cdiv(n, tn)), transpose_kernel, (x, out, tm, tn))
