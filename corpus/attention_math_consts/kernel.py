"""Attention forward with the softmax computed in base 2, as cuTile's own attention sample is
written: module constants computed with `math` (1 / ln 2), `-math.inf` for masked scores, the
padding mode held in a local alias. q, k, v, out are (batch * heads, seq, head_dim)."""

import math

import cuda.tile as ct

LOG2_E = 1.0 / math.log(2)  # exp(x) == exp2(x * LOG2_E)
MASKED = -math.inf

ConstInt = ct.Constant[int]


@ct.kernel
def attention_exp2_kernel(Q, K, V, O, scale, BQ: ConstInt, BK: ConstInt, HD: ConstInt):
    qb = ct.bid(0)
    head = ct.bid(1)
    pad = ct.PaddingMode.ZERO
    n_keys = K.shape[1]
    scale2 = scale * LOG2_E  # folded into the scores once, so the loop uses exp2 only

    q = ct.load(Q, index=(head, qb, 0), shape=(1, BQ, HD), padding_mode=pad).reshape((BQ, HD))
    row_max = ct.full((BQ, 1), MASKED, dtype=ct.float32)
    row_sum = ct.full((BQ, 1), 0.0, dtype=ct.float32)
    acc = ct.full((BQ, HD), 0.0, dtype=ct.float32)

    for kb in range(ct.cdiv(n_keys, BK)):
        k = ct.load(K, index=(head, kb, 0), shape=(1, BK, HD), padding_mode=pad)
        v = ct.load(V, index=(head, kb, 0), shape=(1, BK, HD), padding_mode=pad)
        k = k.reshape((BK, HD))
        v = v.reshape((BK, HD))
        s = ct.mma(q, k.transpose(), ct.full((BQ, BK), 0.0, dtype=ct.float32)) * scale2
        key_pos = kb * BK + ct.arange(BK, dtype=ct.int32)
        s = ct.where(key_pos[None, :] < n_keys, s, MASKED)
        new_max = max(row_max, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp2(s - new_max)
        correction = ct.exp2(row_max - new_max)
        row_sum = row_sum * correction + ct.sum(p, axis=-1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * correction)
        row_max = new_max

    out = (acc / row_sum).reshape((1, BQ, HD)).astype(O.dtype)
    ct.store(O, index=(head, qb, 0), tile=out)


def launch(stream, q, k, v, out):
    heads, seq_q, head_dim = q.shape
    bq, bk = 32, 32
    scale = 1.0 / math.sqrt(head_dim)
    ct.launch(
        stream,
        (ct.cdiv(seq_q, bq), heads, 1),
        attention_exp2_kernel,
        (q, k, v, out, scale, bq, bk, head_dim),
    )
