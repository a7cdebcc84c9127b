import math

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.function
def scaled_scores(q, k, scale):
    """q @ k^T * scale for one (TQ, D) query tile and one (TK, D) key tile, in float32."""
    s = ct.mma(q, ct.transpose(k), ct.zeros((q.shape[0], k.shape[0]), dtype=ct.float32))
    return s * scale


@ct.function
def online_update(s, m_prev, l_prev):
    """One step of the streaming softmax along the last axis: new running max, the factor
    rescaling what was accumulated, the probabilities and the new running sum."""
    m_new = ct.maximum(m_prev, ct.max(s, axis=-1, keepdims=True))
    alpha = ct.exp(m_prev - m_new)
    p = ct.exp(s - m_new)
    return m_new, alpha, p, l_prev * alpha + ct.sum(p, axis=-1, keepdims=True)


@ct.kernel
def attention_bhsd(q, k, v, out, scale, TQ: ConstInt, TK: ConstInt, D: ConstInt):
    """Attention over (batch, heads, seq, head_dim) tensors; block (qi, b * H + h)."""
    qi = ct.bid(0)
    heads = q.shape[1]
    b = ct.bid(1) // heads
    h = ct.bid(1) % heads
    seq_k = k.shape[2]
    qt = ct.load(q, (b, h, qi, 0), (1, 1, TQ, D), padding_mode=ct.PaddingMode.ZERO)
    qt = qt.reshape((TQ, D))
    m_i = ct.full((TQ, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TQ, 1), dtype=ct.float32)
    acc = ct.zeros((TQ, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq_k, TK)):
        kt = ct.load(k, (b, h, j, 0), (1, 1, TK, D), padding_mode=ct.PaddingMode.ZERO)
        vt = ct.load(v, (b, h, j, 0), (1, 1, TK, D), padding_mode=ct.PaddingMode.ZERO)
        s = scaled_scores(qt, kt.reshape((TK, D)), scale)
        cols = j * TK + ct.arange(TK, dtype=ct.int32)
        s = ct.where(cols[None, :] < seq_k, s, -math.inf)
        m_i, alpha, p, l_i = online_update(s, m_i, l_i)
        acc = ct.mma(p.astype(vt.dtype), vt.reshape((TK, D)), acc * alpha)
    o = (acc / l_i).reshape((1, 1, TQ, D))
    ct.store(out, (b, h, qi, 0), o.astype(out.dtype))


def launch(stream, q, k, v, out):
    batch, heads, seq_q, d = q.shape
    tq, tk = 32, 32
    grid = (ct.cdiv(seq_q, tq), batch * heads, 1)
    ct.launch(stream, grid, attention_bhsd, (q, k, v, out, 1.0 / math.sqrt(d), tq, tk, d))
