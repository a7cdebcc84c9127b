import cuda.tile as ct

ConstInt = ct.Constant[int]


def put_row(arr, row, pid, t, TILE):
    """Store 1-D tile `t` as chunk `pid` of row `row` of the 2-D array `arr`."""
    ct.store(arr, (row, pid), ct.reshape(t, (1, TILE)))


@ct.kernel
def functional_ops_kernel(a, b, i, j, fres, ires, TILE: ConstInt):
    """Elementwise arithmetic written with the functional ct.* spellings.

    Row r of fres / ires receives the result of the r-th operation on a chunk of the
    1-D inputs. b is positive; a / b is never close to an integer (so floordiv and mod
    are well conditioned).
    """
    pid = ct.bid(0)
    at = ct.load(a, (pid,), (TILE,))
    bt = ct.load(b, (pid,), (TILE,))
    put_row(fres, 0, pid, ct.add(at, bt), TILE)
    put_row(fres, 1, pid, ct.sub(at, bt), TILE)
    put_row(fres, 2, pid, ct.mul(at, bt), TILE)
    put_row(fres, 3, pid, ct.truediv(at, bt), TILE)
    put_row(fres, 4, pid, ct.floordiv(at, bt), TILE)
    put_row(fres, 5, pid, ct.mod(at, bt), TILE)
    put_row(fres, 6, pid, ct.pow(bt, at * 0.25), TILE)
    put_row(fres, 7, pid, ct.minimum(at, bt), TILE)
    put_row(fres, 8, pid, ct.maximum(at, bt), TILE)
    put_row(fres, 9, pid, ct.where(ct.greater(at, bt), at, -bt), TILE)
    put_row(fres, 10, pid, ct.where(ct.equal(ct.floor(at), ct.floor(bt)), at + bt, at - bt), TILE)

    it = ct.load(i, (pid,), (TILE,))
    jt = ct.load(j, (pid,), (TILE,))
    put_row(ires, 0, pid, it & jt, TILE)
    put_row(ires, 1, pid, it | jt, TILE)
    put_row(ires, 2, pid, it ^ jt, TILE)
    put_row(ires, 3, pid, ct.bitwise_xor(ct.bitwise_and(it, jt), ct.bitwise_or(it, 0x0F0F)), TILE)


def launch(stream, a, b, i, j, fres, ires):
    tile = 128
    ct.launch(
        stream, (ct.cdiv(a.shape[0], tile),), functional_ops_kernel, (a, b, i, j, fres, ires, tile)
    )
