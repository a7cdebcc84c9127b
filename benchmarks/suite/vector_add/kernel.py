"""Elementwise c = a + b over 1-D arrays, one tile of TILE elements per block."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def vector_add(a, b, c, TILE: ConstInt):
    bid = ct.bid(0)
    ta = ct.load(a, index=(bid,), shape=(TILE,))
    tb = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=ta + tb)


def launch(stream, a, b, c, tile):
    grid = (ct.cdiv(a.shape[0], tile), 1, 1)
    ct.launch(stream, grid, vector_add, (a, b, c, tile))
