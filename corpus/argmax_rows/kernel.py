import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def argmax_rows_kernel(x, out, TM: ConstInt, TN: ConstInt):
    """out[i] = index of the largest element of row i (the first one on ties).

    A block owns TM rows and scans the columns in TN-wide chunks, keeping a running
    (best value, best index) pair per row. Padding with -inf keeps the padded lanes
    from ever being selected, and the strict '>' keeps the earlier chunk on ties, which
    together with ct.argmax's smallest-index rule gives the first maximal index overall.
    """
    pid = ct.bid(0)
    first = ct.load(x, (pid, 0), (TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
    best_val = ct.max(first, axis=1, keepdims=True)  # (TM, 1)
    best_idx = ct.argmax(first, axis=1, keepdims=True)  # (TM, 1), int32
    for j in range(1, ct.num_tiles(x, 1, (TM, TN))):
        t = ct.load(x, (pid, j), (TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
        val = ct.max(t, axis=1, keepdims=True)
        idx = ct.argmax(t, axis=1, keepdims=True) + j * TN
        better = val > best_val
        best_val = ct.where(better, val, best_val)
        best_idx = ct.where(better, idx, best_idx)
    ct.store(out, (pid,), best_idx.reshape((TM,)).astype(out.dtype))


def launch(stream, x, out):
    tm, tn = 8, 32
    ct.launch(stream, (ct.cdiv(x.shape[0], tm),), argmax_rows_kernel, (x, out, tm, tn))
