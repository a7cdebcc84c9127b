import cuda.tile as ct
from cuda.tile import bid, load, store

# Module-level constants used inside the kernel.
PAD = ct.PaddingMode.ZERO
ConstInt = ct.Constant[int]


@ct.kernel
def row_dot_kernel(x, y, out, TM: ConstInt, TN: ConstInt):
    """out[i] = sum_j x[i, j] * y[i, j] (a batch of row-wise dot products), in float32.

    Written with names imported straight from cuda.tile and a module-level padding
    constant: zero padding makes the column tail contribute nothing to the sum.
    """
    pid = bid(0)
    acc = ct.zeros((TM,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, 1, (TM, TN))):
        xt = load(x, (pid, j), (TM, TN), padding_mode=PAD).astype(ct.float32)
        yt = load(y, (pid, j), (TM, TN), padding_mode=PAD).astype(ct.float32)
        acc += ct.sum(xt * yt, axis=1)
    store(out, (pid,), acc)


def launch(stream, x, y, out):
    tm, tn = 16, 32
    ct.launch(stream, (ct.cdiv(x.shape[0], tm),), row_dot_kernel, (x, y, out, tm, tn))
