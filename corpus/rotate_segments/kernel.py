"""Rotate every TILE-element segment of a vector, several rounds, in the output buffer.

The segment is copied to `out`, then each round gathers it at shifted positions and stores it
back over itself: a gather reads what the store before it wrote, and a store overwrites
elements that other lanes gather. cuTile orders these accesses to `out` within a block.
"""

import cuda.tile as ct

TILE = 256


@ct.kernel
def rotate_segments(x, out, shift: int, rounds: int, T: ct.Constant[int]):
    seg = ct.bid(0)
    ct.store(out, index=(seg,), tile=ct.load(x, index=(seg,), shape=(T,)))
    start = seg * T
    n = min(T, x.shape[0] - start)  # the last segment may be short
    lane = ct.arange(T, dtype=ct.int32)
    src = start + (lane + shift) % n
    for _ in range(rounds):
        moved = ct.gather(out, src, mask=lane < n)
        ct.store(out, index=(seg,), tile=moved)


def launch(stream, x, out, shift, rounds):
    grid = (ct.cdiv(x.shape[0], TILE), 1, 1)
    ct.launch(stream, grid, rotate_segments, (x, out, shift, rounds, TILE))
