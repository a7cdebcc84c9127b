"""The combine step of split-KV decode attention: per (batch, query head), the chunks' partial
outputs weighted by their share of the softmax mass, from the chunks' log-sum-exps (base 2)."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def decode_combine(Out_partial, Lse_partial, Out, SPLITS: ConstInt, D: ConstInt):
    head = ct.bid(0)
    batch = ct.bid(1)
    lse = ct.load(Lse_partial, index=(batch, head, 0), shape=(1, 1, SPLITS),
                  padding_mode=ct.PaddingMode.NEG_INF).reshape((SPLITS, 1))
    part = ct.load(Out_partial, index=(batch, head, 0, 0), shape=(1, 1, SPLITS, D),
                   padding_mode=ct.PaddingMode.ZERO).reshape((SPLITS, D))
    top = ct.max(lse, axis=0, keepdims=True)
    weight = ct.exp2(lse - top)
    out = ct.sum(part * weight, axis=0, keepdims=True) / ct.sum(weight, axis=0, keepdims=True)
    ct.store(Out, index=(batch, head, 0), tile=out.reshape((1, 1, D)).astype(Out.dtype))


def launch(stream, out_partial, lse_partial, out):
    batch, heads, splits, d = out_partial.shape
    tile_splits = 1 << max(splits - 1, 0).bit_length()     # a power of two covering the chunks
    ct.launch(stream, (heads, batch), decode_combine,
              (out_partial, lse_partial, out, tile_splits, d))
