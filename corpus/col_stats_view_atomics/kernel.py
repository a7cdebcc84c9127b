"""Column statistics of a tall matrix, combined across blocks with tiled-view atomic stores:
every block reduces its (TM, TN) tile of `x` over the rows and adds the column sums into
`col_sum` (`TiledView.atomic_store_add`), takes the largest absolute value of its tile of
the integer matrix `q` into `col_absmax` (`atomic_store_max`), and its smallest value into
`col_min` (`atomic_store_min`). Blocks of the same column band race on the
same elements; the atomics make the result independent of their order (up to float rounding
of the sums)."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def col_stats(x, q, col_sum, col_absmax, col_min, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    zero = ct.PaddingMode.ZERO
    xt = x.tiled_view((TM, TN), padding_mode=zero).load((bm, bn))
    qt = q.tiled_view((TM, TN), padding_mode=zero).load((bm, bn))

    col_sum.tiled_view((TN,)).atomic_store_add(bn, ct.sum(xt.astype(ct.float32), axis=0))
    col_absmax.tiled_view((TN,)).atomic_store_max(bn, ct.max(ct.abs(qt), axis=0))
    # the padding of q's view is 0, which must not win the minimum: mask it out first
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)[:, None]
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)[None, :]
    live = (rows < q.shape[0]) & (cols < q.shape[1])
    col_min.tiled_view((TN,)).atomic_store_min(bn, ct.min(ct.where(live, qt, 2**31 - 1), axis=0))


def launch(stream, x, q, col_sum, col_absmax, col_min):
    tm, tn = 32, 64
    col_sum.zero_()
    col_absmax.zero_()
    col_min.fill_(2**31 - 1)
    grid = (ct.cdiv(x.shape[0], tm), ct.cdiv(x.shape[1], tn), 1)
    ct.launch(stream, grid, col_stats, (x, q, col_sum, col_absmax, col_min, tm, tn))
