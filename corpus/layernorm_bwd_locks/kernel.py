"""LayerNorm backward. Each block computes dx for one row and adds the row's contributions to
dw and db into one of GROUPS partial buffers, guarded by a spin lock per buffer (atomic_cas to
take it, atomic_xchg to give it back); the host then sums the partial buffers."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def layernorm_bwd(
    x, dy, w, mean, rstd, dx, dw_partial, db_partial, locks, GROUPS: ConstInt, TN: ConstInt
):
    row = ct.bid(0)
    n = x.shape[1]
    cols = ct.arange(TN, dtype=ct.int32)[None, :]
    live = cols < n
    xt = ct.load(x, (row, 0), (1, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    dyt = ct.load(dy, (row, 0), (1, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    wt = ct.load(w, (0,), (TN,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    mu = ct.load(mean, (row,), ())
    rs = ct.load(rstd, (row,), ())
    xhat = ct.where(live, (xt - mu) * rs, 0.0)
    wdy = wt[None, :] * dyt
    c1 = ct.sum(xhat * wdy) / n
    c2 = ct.sum(wdy) / n
    dxt = (wdy - (xhat * c1 + c2)) * rs
    ct.store(dx, (row, 0), dxt.astype(dx.dtype))

    g = row % GROUPS
    while ct.atomic_cas(locks, g, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass  # another row of this group holds the lock
    dw_acc = ct.load(dw_partial, (g, 0), (1, TN), padding_mode=ct.PaddingMode.ZERO)
    db_acc = ct.load(db_partial, (g, 0), (1, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(dw_partial, (g, 0), dw_acc + xhat * dyt)
    ct.store(db_partial, (g, 0), db_acc + dyt)
    ct.atomic_xchg(locks, g, 0, memory_order=ct.MemoryOrder.RELEASE)


def launch(stream, x, dy, w, mean, rstd, dx, dw, db):
    m, n = x.shape
    groups = 8
    tile_n = 1 << (n - 1).bit_length()
    dw_partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    db_partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    locks = torch.zeros(groups, dtype=torch.int32, device=x.device)
    ct.launch(
        stream,
        (m,),
        layernorm_bwd,
        (x, dy, w, mean, rstd, dx, dw_partial, db_partial, locks, groups, tile_n),
    )
    dw.copy_(dw_partial.sum(dim=0))
    db.copy_(db_partial.sum(dim=0))
