import cuda.tile as ct


@ct.function
def row_scale(w, alpha, rows):
    """Per-row scale alpha / (1 + |w|) of a (rows,) tile, as a (rows, 1) column that broadcasts
    over a row block."""
    s = alpha / (1.0 + ct.abs(w.astype(ct.float32)))
    return ct.reshape(s, (rows, 1))
