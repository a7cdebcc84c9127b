import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def embedding_kernel(table, ids, out, TT: ConstInt, TD: ConstInt):
    """out[t, :] = table[ids[t], :] for a block of TT tokens and TD embedding columns.

    Ids outside the vocabulary (such as the padding id -1) give rows of zeros. The mask
    already keeps every lane in bounds, so the gather skips its own bounds check.
    """
    vocab, dim = table.shape
    tok = ct.load(ids, (ct.bid(0),), (TT,), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.bid(1) * TD + ct.arange(TD, dtype=ct.int32)
    known = (tok >= 0) & (tok < vocab)
    inside = known[:, None] & (cols < dim)[None, :]
    rows = ct.gather(
        table, (tok[:, None], cols[None, :]), mask=inside, padding_value=0, check_bounds=False
    )
    ct.store(out, (ct.bid(0), ct.bid(1)), rows)


def launch(stream, table, ids, out):
    tt, td = 16, 32
    grid = (ct.cdiv(ids.shape[0], tt), ct.cdiv(table.shape[1], td))
    ct.launch(stream, grid, embedding_kernel, (table, ids, out, tt, td))
