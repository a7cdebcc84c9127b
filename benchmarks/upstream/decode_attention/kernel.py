"""Decode attention over a long KV cache, split along the keys (flash-decoding), with grouped
query heads: each block takes one KV head, the GROUP query heads that share it, and one chunk of
keys; it writes the chunk's normalized partial output and its log-sum-exp (base 2). The
decode_combine kernel merges the chunks."""
import math

import cuda.tile as ct

ConstInt = ct.Constant[int]
LOG2E = 1.4426950408889634


@ct.kernel(occupancy=4)
def decode_split_kv(Q, K, V, Out_partial, Lse_partial, sm_scale: float,
                    KEYS_PER_SPLIT: ConstInt, GROUP: ConstInt, TILE_N: ConstInt, D: ConstInt):
    split = ct.bid(0)
    kv_head = ct.bid(1)
    batch = ct.bid(2)
    n_keys = K.shape[2]
    # the group's query heads are consecutive: tile `kv_head` of GROUP heads
    q = ct.load(Q, index=(batch, kv_head, 0), shape=(1, GROUP, D)).reshape((GROUP, D))
    scale = sm_scale * LOG2E
    m_i = ct.full((GROUP, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((GROUP, 1), dtype=ct.float32)
    acc = ct.zeros((GROUP, D), dtype=ct.float32)
    tiles = KEYS_PER_SPLIT // TILE_N
    lane = ct.arange(TILE_N, dtype=ct.int32)
    # the last chunk may hold fewer tiles (no tile lies wholly past the keys)
    for j in range(split * tiles, min(split * tiles + tiles, ct.cdiv(n_keys, TILE_N))):
        kt = ct.load(K, index=(batch, kv_head, 0, j), shape=(1, 1, D, TILE_N),
                     order=(0, 1, 3, 2), padding_mode=ct.PaddingMode.ZERO,
                     latency=2).reshape((D, TILE_N))
        s = ct.mma(q, kt, ct.zeros((GROUP, TILE_N), dtype=ct.float32)) * scale
        s = ct.where((j * TILE_N + lane)[None, :] < n_keys, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(batch, kv_head, j, 0), shape=(1, 1, TILE_N, D),
                    padding_mode=ct.PaddingMode.ZERO, latency=4).reshape((TILE_N, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(Out_partial, index=(batch, kv_head, split, 0),
             tile=(acc / l_i).reshape((1, GROUP, 1, D)))
    ct.store(Lse_partial, index=(batch, kv_head, split),
             tile=(m_i + ct.log2(l_i)).reshape((1, GROUP, 1)))


def launch(stream, q, k, v, out_partial, lse_partial, keys_per_split, tile_n):
    batch, kv_heads, n_keys, d = k.shape
    group = q.shape[1] // kv_heads
    splits = ct.cdiv(n_keys, keys_per_split)
    ct.launch(stream, (splits, kv_heads, batch), decode_split_kv,
              (q, k, v, out_partial, lse_partial, 1.0 / math.sqrt(d), keys_per_split, group,
               tile_n, d))
