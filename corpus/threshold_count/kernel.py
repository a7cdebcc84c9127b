import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def threshold_kernel(x, clipped, counts, thr, TM: ConstInt, TN: ConstInt):
    """For each row: clipped = where(x > thr, x, thr) and counts[i] = #{j : x[i, j] > thr}.

    The boolean mask is turned into integers with astype before the row sum. Padding the
    loads with -inf means padded lanes are never counted (thr is finite).
    """
    pid = ct.bid(0)
    total = ct.zeros((TM,), dtype=ct.int32)
    for j in range(ct.num_tiles(x, 1, (TM, TN))):
        t = ct.load(x, (pid, j), (TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
        above = t > thr
        ct.store(clipped, (pid, j), ct.where(above, t, thr).astype(clipped.dtype))
        total = total + ct.sum(above.astype(ct.int32), axis=1)
    ct.store(counts, (pid,), total)


def launch(stream, x, clipped, counts, thr):
    tm, tn = 8, 64
    ct.launch(
        stream, (ct.cdiv(x.shape[0], tm),), threshold_kernel, (x, clipped, counts, thr, tm, tn)
    )
