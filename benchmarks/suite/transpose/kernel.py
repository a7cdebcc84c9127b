"""out = x.T, one (TM, TN) tile per block, written to the mirrored tile position."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_kernel(x, out, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    tile = ct.load(x, index=(bm, bn), shape=(TM, TN))
    ct.store(out, index=(bn, bm), tile=ct.transpose(tile))


def launch(stream, x, out):
    tm, tn = 64, 64
    m, n = x.shape
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(stream, grid, transpose_kernel, (x, out, tm, tn))
