import math

import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]

NEG_INF = float("-inf")


@ct.kernel
def flash_attn_fwd_kernel(
    q, k, v, out, sm_scale, TQ: ConstInt, TK: ConstInt, D: ConstInt, CAUSAL: ConstBool
):
    """Flash-attention forward (online softmax) for q, k, v, out of shape (B*H, S, D).

    Block (qi, bh) computes TQ query rows of one (batch, head). It streams over the keys
    in TK-wide tiles, keeping the running row max m_i, the running softmax denominator
    l_i and the unnormalised output acc, all in float32. Scores of keys past the sequence
    end (and, when CAUSAL, of keys after the query) are set to -inf before the softmax.
    """
    qi = ct.bid(0)
    bh = ct.bid(1)
    seq_len = q.shape[1]

    qt = ct.load(q, (bh, qi, 0), (1, TQ, D), padding_mode=ct.PaddingMode.ZERO).reshape((TQ, D))
    q_pos = qi * TQ + ct.arange(TQ, dtype=ct.int32)

    m_i = ct.full((TQ, 1), NEG_INF, dtype=ct.float32)
    l_i = ct.zeros((TQ, 1), dtype=ct.float32)
    acc = ct.zeros((TQ, D), dtype=ct.float32)

    num_kv = ct.cdiv(seq_len, TK)
    if CAUSAL:
        # Key tiles entirely after the last query row of this block are fully masked.
        num_kv = min(num_kv, ct.cdiv((qi + 1) * TQ, TK))

    for j in range(num_kv):
        kt = ct.load(k, (bh, j, 0), (1, TK, D), padding_mode=ct.PaddingMode.ZERO).reshape((TK, D))
        vt = ct.load(v, (bh, j, 0), (1, TK, D), padding_mode=ct.PaddingMode.ZERO).reshape((TK, D))

        s = ct.mma(qt, ct.transpose(kt), ct.zeros((TQ, TK), dtype=ct.float32)) * sm_scale
        k_pos = j * TK + ct.arange(TK, dtype=ct.int32)
        valid = k_pos[None, :] < seq_len  # (1, TK)
        if CAUSAL:
            valid = valid & (k_pos[None, :] <= q_pos[:, None])  # (TQ, TK)
        s = ct.where(valid, s, NEG_INF)

        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        alpha = ct.exp(m_i - m_new)  # rescales what was accumulated so far
        p = ct.exp(s - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(vt.dtype), vt, acc * alpha)
        m_i = m_new

    o = (acc / l_i).reshape((1, TQ, D))
    ct.store(out, (bh, qi, 0), o.astype(out.dtype))


def launch(stream, q, k, v, out, causal):
    bh, seq_len, head_dim = q.shape
    tq, tk = 32, 16
    sm_scale = 1.0 / math.sqrt(head_dim)
    grid = (ct.cdiv(seq_len, tq), bh, 1)
    ct.launch(
        stream, grid, flash_attn_fwd_kernel, (q, k, v, out, sm_scale, tq, tk, head_dim, causal)
    )
