import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def floor_div_mod_kernel(x, d, q, r, qs, rs, s, TM: ConstInt, TN: ConstInt):
    """Integer floor division and modulo with Python semantics.

    q = x // d and r = x % d elementwise, and qs = x // s, rs = x % s for a runtime
    scalar divisor s. Quotients round toward -inf (not toward zero as in C), and the
    remainder takes the sign of the divisor, so x == q * d + r always holds.
    """
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    xt = ct.load(x, (pid_m, pid_n), (TM, TN))
    # The divisor data has no zeros; the tail lanes are padded with 0 and then replaced
    # by 1 so that no lane ever divides by zero.
    dt = ct.load(d, (pid_m, pid_n), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    dt = ct.where(dt == 0, 1, dt)
    ct.store(q, (pid_m, pid_n), xt // dt)
    ct.store(r, (pid_m, pid_n), xt % dt)
    ct.store(qs, (pid_m, pid_n), xt // s)
    ct.store(rs, (pid_m, pid_n), xt % s)


def launch(stream, x, d, q, r, qs, rs, s):
    tm, tn = 16, 32
    m, n = x.shape
    ct.launch(
        stream,
        (ct.cdiv(m, tm), ct.cdiv(n, tn)),
        floor_div_mod_kernel,
        (x, d, q, r, qs, rs, s, tm, tn),
    )
