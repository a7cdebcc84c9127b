"""Split-K matmul whose partial products are combined under a per-tile spin lock: the first
block to take the lock of an output tile writes its partial product, later ones add theirs.
A counter per tile (read and bumped inside the lock) says which case applies, so C need not
be zeroed first."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def splitk_matmul_locked(
    a, b, c, locks, counts, TM: ConstInt, TN: ConstInt, TK: ConstInt, SPLIT_K: ConstInt
):
    pid_m, pid_n, pid_k = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(pid_k, ct.num_tiles(a, 1, (TM, TK)), SPLIT_K):
        x = ct.load(a, (pid_m, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, pid_n), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    tile_id = pid_m * ct.num_blocks(1) + pid_n
    while ct.atomic_cas(locks, tile_id, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    seen = ct.load(counts, (tile_id,), ())
    if seen > 0:
        acc += ct.load(c, (pid_m, pid_n), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (pid_m, pid_n), acc)
    ct.store(counts, (tile_id,), seen + 1)
    ct.atomic_xchg(locks, tile_id, 0, memory_order=ct.MemoryOrder.RELEASE)


def launch(stream, a, b, c):
    tm, tn, tk, split_k = 32, 32, 32, 3
    m, n = c.shape
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), split_k)
    locks = torch.zeros(grid[0] * grid[1], dtype=torch.int32, device=c.device)
    counts = torch.zeros(grid[0] * grid[1], dtype=torch.int32, device=c.device)
    ct.launch(stream, grid, splitk_matmul_locked, (a, b, c, locks, counts, tm, tn, tk, split_k))
