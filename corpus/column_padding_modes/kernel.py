import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def column_stats_kernel(x, col_max, col_min, col_sum, TM: ConstInt, TN: ConstInt):
    """Per-column max, min and sum of a 2-D array; one block per TN columns.

    The rows are walked in TM-high tiles, and the last one usually overhangs the array.
    Each statistic loads the tile with the padding value that is the identity of its
    reduction: -inf for max, +inf for min, 0 for sum, so no explicit masking is needed.
    """
    pid = ct.bid(0)
    run_max = ct.max(ct.load(x, (0, pid), (TM, TN), padding_mode=ct.PaddingMode.NEG_INF), axis=0)
    run_min = ct.min(ct.load(x, (0, pid), (TM, TN), padding_mode=ct.PaddingMode.POS_INF), axis=0)
    run_sum = ct.sum(
        ct.load(x, (0, pid), (TM, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32), axis=0
    )
    for i in range(1, ct.num_tiles(x, 0, (TM, TN))):
        hi = ct.load(x, (i, pid), (TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
        lo = ct.load(x, (i, pid), (TM, TN), padding_mode=ct.PaddingMode.POS_INF)
        zs = ct.load(x, (i, pid), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
        run_max = ct.maximum(run_max, ct.max(hi, axis=0))
        run_min = ct.minimum(run_min, ct.min(lo, axis=0))
        run_sum = run_sum + ct.sum(zs.astype(ct.float32), axis=0)
    ct.store(col_max, (pid,), run_max)
    ct.store(col_min, (pid,), run_min)
    ct.store(col_sum, (pid,), run_sum)


def launch(stream, x, col_max, col_min, col_sum):
    tm, tn = 32, 16
    ct.launch(
        stream,
        (ct.cdiv(x.shape[1], tn),),
        column_stats_kernel,
        (x, col_max, col_min, col_sum, tm, tn),
    )
