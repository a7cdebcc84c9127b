"""Row softmax: one row per block, the whole row in one tile (TILE_N = next power of 2)."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def softmax_kernel(x, out, TILE_N: ConstInt):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N),
                padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    t = t - ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t)
    y = e / ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(row, 0), tile=y.astype(out.dtype))


def next_power_of_2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def launch(stream, x, out):
    m, n = x.shape
    ct.launch(stream, (m, 1, 1), softmax_kernel, (x, out, next_power_of_2(n)))
