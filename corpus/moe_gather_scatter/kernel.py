import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def moe_expert_matmul_kernel(x, w, order, offsets, out, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """out[t, :] = x[t, :] @ w[e] for every token t routed to expert e.

    `order` lists the tokens grouped by expert: expert e owns the tokens
    order[offsets[e]:offsets[e + 1]]. Block (e, i, j) gathers the rows of the i-th group
    of TM of those tokens, multiplies them by columns j*TN... of the expert's weight, and
    scatters the result back to the tokens' rows. Lanes past the end of the group get token
    -1: the gathers read zeros for it and the scatter drops it (negative indices are out of
    bounds).
    """
    num_tokens, d_out = out.shape
    num_experts = offsets.shape[0] - 1
    e = ct.bid(0)
    start = ct.gather(offsets, e)
    count = ct.gather(offsets, e + 1) - start
    if ct.bid(1) * TM < count:
        r = ct.bid(1) * TM + ct.arange(TM, dtype=ct.int32)
        routed = (r < count) & (start + r < order.shape[0])
        tok = ct.gather(order, start + r, mask=routed, padding_value=-1)
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.cdiv(x.shape[1], TK)):
            cols = k * TK + ct.arange(TK, dtype=ct.int32)
            a = ct.gather(x, (tok[:, None], cols[None, :]))
            b = ct.load(w, (e, k, ct.bid(2)), (1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b.reshape((TK, TN)), acc)
        cols = ct.bid(2) * TN + ct.arange(TN, dtype=ct.int32)
        ct.scatter(out, (tok[:, None], cols[None, :]), acc)


def launch(stream, x, w, order, offsets, out):
    tm, tn, tk = 16, 16, 16
    experts, _, d_out = w.shape
    grid = (experts, ct.cdiv(x.shape[0], tm), ct.cdiv(d_out, tn))
    ct.launch(stream, grid, moe_expert_matmul_kernel, (x, w, order, offsets, out, tm, tn, tk))
