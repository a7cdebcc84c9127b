"""Attention forward (online softmax), q, k, v, out of shape (batch*heads, seq, D).

Block (q tile, head) streams over key tiles keeping the running row maximum, the running
denominator and the unnormalised output in float32; causal blocks stop at the diagonal."""
import math

import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
NEG_INF = float("-inf")


@ct.kernel
def attention_fwd(Q, K, V, Out, qk_scale, TQ: ConstInt, TK: ConstInt, D: ConstInt,
                  CAUSAL: ConstBool):
    qb = ct.bid(0)
    head = ct.bid(1)
    seq = Q.shape[1]
    q = ct.load(Q, index=(head, qb, 0), shape=(1, TQ, D),
                padding_mode=ct.PaddingMode.ZERO).reshape((TQ, D))
    rows = qb * TQ + ct.arange(TQ, dtype=ct.int32)
    m = ct.full((TQ, 1), NEG_INF, dtype=ct.float32)
    denom = ct.zeros((TQ, 1), dtype=ct.float32)
    acc = ct.zeros((TQ, D), dtype=ct.float32)
    n_kv = ct.cdiv(seq, TK)
    if CAUSAL:
        n_kv = min(n_kv, ct.cdiv((qb + 1) * TQ, TK))
    for j in range(n_kv):
        k = ct.load(K, index=(head, j, 0), shape=(1, TK, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TK, D))
        v = ct.load(V, index=(head, j, 0), shape=(1, TK, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TK, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((TQ, TK), dtype=ct.float32)) * qk_scale
        cols = j * TK + ct.arange(TK, dtype=ct.int32)
        keep = cols[None, :] < seq
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        s = ct.where(keep, s, NEG_INF)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        scale = ct.exp2(m - m_new)
        p = ct.exp2(s - m_new)
        denom = denom * scale + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), v, acc * scale)
        m = m_new
    out = (acc / denom).reshape((1, TQ, D))
    ct.store(Out, index=(head, qb, 0), tile=out.astype(Out.dtype))


def launch(stream, q, k, v, out, causal, tiles):
    heads, seq, d = q.shape
    tq, tk = tiles
    # scores in log2 units: exp2(x * log2(e) / sqrt(d)) = exp(x / sqrt(d))
    qk_scale = 1.4426950408889634 / math.sqrt(d)
    grid = (ct.cdiv(seq, tq), heads, 1)
    ct.launch(stream, grid, attention_fwd, (q, k, v, out, qk_scale, tq, tk, d, causal))
