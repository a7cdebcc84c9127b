import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def min_prod_kernel(x, row_min, row_prod, TM: ConstInt, TILE_N: ConstInt):
    """row_min[i] = min_j x[i, j] (in x's dtype) and row_prod[i] = prod_j x[i, j] (float32).

    TILE_N covers a whole row. For the min, +inf padding is neutral. There is no padding
    mode for 1, so for the product the tail lanes are replaced by 1.0 with an explicit mask.
    """
    pid = ct.bid(0)
    n = x.shape[1]
    t = ct.load(x, (pid, 0), (TM, TILE_N), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(row_min, (pid,), ct.min(t, axis=1))

    cols = ct.arange(TILE_N, dtype=ct.int32)
    t32 = ct.where(cols[None, :] < n, t.astype(ct.float32), 1.0)
    ct.store(row_prod, (pid,), ct.prod(t32, axis=1, keepdims=False))


def launch(stream, x, row_min, row_prod):
    m, n = x.shape
    tm = 4
    tile_n = 1 << (n - 1).bit_length()
    ct.launch(stream, (ct.cdiv(m, tm),), min_prod_kernel, (x, row_min, row_prod, tm, tile_n))
