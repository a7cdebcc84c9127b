import cuda.tile as ct

SHIFT = 3


@ct.function
def rotated(i, n):
    """Tile index `i` moved SHIFT places along a ring of `n` tiles."""
    return (i + SHIFT) % n
