import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def top1_router_kernel(logits, expert, gate, TT: ConstInt, TE: ConstInt):
    """Top-1 mixture-of-experts routing of TT tokens per block.

    expert[t] = the expert with the largest logit (the first one on ties), and
    gate[t] = its softmax probability, 1 / sum_e exp(logits[t, e] - max_e logits[t, e]).
    TE covers all experts; padding with -inf keeps the padded experts out of the max and
    adds exp(-inf) = 0 to the sum.
    """
    pid = ct.bid(0)
    scores = ct.load(logits, (pid, 0), (TT, TE), padding_mode=ct.PaddingMode.NEG_INF)
    scores = scores.astype(ct.float32)
    best = ct.argmax(scores, axis=1)
    top = ct.max(scores, axis=1, keepdims=True)
    denom = ct.sum(ct.exp(scores - top), axis=1)
    ct.store(expert, (pid,), best.astype(expert.dtype))
    ct.store(gate, (pid,), (1.0 / denom).astype(gate.dtype))


def launch(stream, logits, expert, gate):
    tokens, experts = logits.shape
    tt = 16
    te = 1 << max(experts - 1, 0).bit_length()  # the next power of two
    ct.launch(stream, (ct.cdiv(tokens, tt),), top1_router_kernel, (logits, expert, gate, tt, te))
