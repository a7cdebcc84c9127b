import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def reset_kernel(cells, last_writer, TILE: ConstInt):
    """Zero the cells and mark every cell as written by no block (-1), through raw memory:
    offsets count elements from the base pointer, whatever the arrays' shapes."""
    count = cells.shape[0] * cells.shape[1]
    offs = ct.arange(TILE, dtype=ct.int64) + ct.bid(0) * TILE
    inside = offs < count
    cells.get_raw_memory().store_offset(offs, 0.0, mask=inside)
    last_writer.get_raw_memory().store_offset(offs, -1, mask=inside)


@ct.kernel
def accumulate_kernel(cells, last_writer, offsets, values, TILE: ConstInt):
    """Scatter-add `values` into a 2-D grid of cells at flat element offsets, and record per
    cell the highest block that wrote to it. Lanes past the end of `offsets` are masked off."""
    pid = ct.bid(0)
    lane = ct.arange(TILE, dtype=ct.int32) + pid * TILE
    live = lane < offsets.shape[0]
    offs = ct.load(offsets, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    vals = ct.load(values, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    cells.get_raw_memory().atomic_add_offset(offs, vals, mask=live)
    owner = last_writer.get_raw_memory()
    owner.atomic_max_offset(offs, pid, mask=live, memory_order=ct.MemoryOrder.RELAXED)


def launch(stream, cells, last_writer, offsets, values):
    tile = 64
    count = cells.shape[0] * cells.shape[1]
    ct.launch(stream, (ct.cdiv(count, 256),), reset_kernel, (cells, last_writer, 256))
    ct.launch(
        stream,
        (ct.cdiv(offsets.shape[0], tile),),
        accumulate_kernel,
        (cells, last_writer, offsets, values, tile),
    )
