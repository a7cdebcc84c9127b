import cuda.tile as ct


@ct.kernel
def vector_add_kernel(a, b, out, TILE: ct.Constant[int]):
    """out = a + b over 1-D arrays; each block handles one TILE-sized chunk."""
    pid = ct.bid(0)
    # A bare integer is accepted as a 1-D tile index: chunk `pid` covers
    # elements [pid * TILE, (pid + 1) * TILE).
    a_tile = ct.load(a, pid, (TILE,))
    b_tile = ct.load(b, index=(pid,), shape=(TILE,))
    # Lanes past the end of the array hold unspecified values; store drops them.
    ct.store(out, pid, a_tile + b_tile)


def launch(stream, a, b, out):
    tile = 128
    grid = (ct.cdiv(a.shape[0], tile),)
    ct.launch(stream, grid, vector_add_kernel, (a, b, out, tile))
