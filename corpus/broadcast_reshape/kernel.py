import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def outer_kernel(u, v, out, TM: ConstInt, TN: ConstInt):
    """out[i, j] = u[i] * v[j] + u[i], building 2-D tiles out of 1-D ones.

    Shows three ways to add an axis / broadcast: indexing with None, ct.expand_dims,
    and an explicit ct.broadcast_to.
    """
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    ut = ct.load(u, (pid_m,), (TM,))
    vt = ct.load(v, (pid_n,), (TN,))
    u_col = ct.broadcast_to(ut[:, None], (TM, TN))  # (TM, 1) -> (TM, TN)
    v_row = ct.expand_dims(vt, 0)  # (1, TN)
    ct.store(out, (pid_m, pid_n), u_col * v_row + u_col)


@ct.kernel
def pool_permute_kernel(x, out, TB: ConstInt, TM: ConstInt, TH: ConstInt):
    """out[h, b, m] = x[b, m, 2h] + x[b, m, 2h + 1].

    Sums adjacent pairs along the last axis by reshaping (TB, TM, 2*TH) into
    (TB, TM, TH, 2) and reducing the new last axis, then moves the pooled axis to
    the front with ct.permute.
    """
    pid_b = ct.bid(0)
    pid_m = ct.bid(1)
    pid_h = ct.bid(2)
    t = ct.load(x, (pid_b, pid_m, pid_h), (TB, TM, 2 * TH))
    pairs = ct.reshape(t, (TB, TM, TH, 2))
    pooled = ct.sum(pairs, axis=3)  # (TB, TM, TH)
    ct.store(out, (pid_h, pid_b, pid_m), ct.permute(pooled, (2, 0, 1)))


def launch(stream, u, v, outer, x, pooled):
    tm, tn = 16, 32
    ct.launch(
        stream,
        (ct.cdiv(u.shape[0], tm), ct.cdiv(v.shape[0], tn)),
        outer_kernel,
        (u, v, outer, tm, tn),
    )
    tb, tm2, th = 2, 8, 16
    nb, m, n = x.shape
    h = n // 2
    ct.launch(
        stream,
        (ct.cdiv(nb, tb), ct.cdiv(m, tm2), ct.cdiv(h, th)),
        pool_permute_kernel,
        (x, pooled, tb, tm2, th),
    )
