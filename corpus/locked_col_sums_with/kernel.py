"""Column sums of a tall matrix through GROUPS partial buffers, each guarded by a spin lock
that a `@contextmanager` helper takes on entry and gives back on exit: every block reduces
TM rows of one column band, then, holding the lock of its group, adds its sums into the
group's row of `partial` and counts itself in `visits`. The host adds the groups up."""

from contextlib import contextmanager

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@contextmanager
def holding(locks, slot):
    while ct.atomic_cas(locks, slot, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass  # another block of this group is inside
    yield slot
    ct.atomic_xchg(locks, slot, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def grouped_col_sums(x, partial, visits, locks, GROUPS: ConstInt, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, (bm, bn), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    sums = ct.sum(t.astype(ct.float32), axis=0, keepdims=True)
    g = bm % GROUPS
    with holding(locks, g * ct.num_blocks(1) + bn) as slot:
        acc = ct.load(partial, (g, bn), (1, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(partial, (g, bn), acc + sums)
        n = ct.load(visits, (slot,), ())
        ct.store(visits, (slot,), n + 1)


def launch(stream, x, col_sum, visits):
    groups, tm, tn = 4, 16, 32
    m, n = x.shape
    bands = ct.cdiv(n, tn)
    partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    locks = torch.zeros(groups * bands, dtype=torch.int32, device=x.device)
    visits.zero_()
    grid = (ct.cdiv(m, tm), bands, 1)
    ct.launch(stream, grid, grouped_col_sums, (x, partial, visits, locks, groups, tm, tn))
    col_sum.copy_(partial.sum(dim=0))
