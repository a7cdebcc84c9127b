"""LayerNorm backward: dX per row, and dW, dB reduced in two steps: rows accumulate into
GROUP partial sums (a lock per partial row), then a second kernel sums the partials."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO


def grads(X, W, DY, row, j, mean, rstd, TILE_N, N):
    x = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO)
    w = ct.load(W, index=(j,), shape=(TILE_N,), padding_mode=ZERO)
    dy = ct.load(DY, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO)
    inside = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32) < N
    xhat = ct.where(inside, (x - mean) * rstd, 0)
    wdy = ct.where(inside, w * dy, 0)
    return dy, xhat, wdy


@ct.kernel
def layernorm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Locks, TILE_N: ConstInt):
    row = ct.bid(0)
    N = X.shape[1]
    n_tiles = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    part = row % DW.shape[0]
    mean = ct.load(Mean, index=(row,), shape=(1,))
    rstd = ct.load(Rstd, index=(row,), shape=(1,))
    c1 = ct.zeros((1, TILE_N), dtype=ct.float32)
    c2 = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(n_tiles):
        _, xhat, wdy = grads(X, W, DY, row, j, mean, rstd, TILE_N, N)
        c1 += xhat * wdy
        c2 += wdy
    c1 = ct.sum(c1, axis=1) / N
    c2 = ct.sum(c2, axis=1) / N
    for j in range(n_tiles):
        dy, xhat, wdy = grads(X, W, DY, row, j, mean, rstd, TILE_N, N)
        ct.store(DX, index=(row, j), tile=((wdy - (xhat * c1 + c2)) * rstd).astype(DX.dtype))
        while ct.atomic_cas(Locks, part, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
            pass
        dw = ct.load(DW, index=(part, j), shape=(1, TILE_N), padding_mode=ZERO) + dy * xhat
        db = ct.load(DB, index=(part, j), shape=(1, TILE_N), padding_mode=ZERO) + dy
        ct.store(DW, index=(part, j), tile=dw)
        ct.store(DB, index=(part, j), tile=db)
        ct.atomic_xchg(Locks, part, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def layernorm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, TILE_M: ConstInt, TILE_N: ConstInt):
    col = ct.bid(0)
    dw = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    db = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for i in range(ct.num_tiles(DW, axis=0, shape=(TILE_M, TILE_N))):
        dw += ct.load(DW, index=(i, col), shape=(TILE_M, TILE_N), padding_mode=ZERO)
        db += ct.load(DB, index=(i, col), shape=(TILE_M, TILE_N), padding_mode=ZERO)
    ct.store(FINAL_DW, index=(col,), tile=ct.sum(dw, axis=0).astype(FINAL_DW.dtype))
    ct.store(FINAL_DB, index=(col,), tile=ct.sum(db, axis=0).astype(FINAL_DB.dtype))


def launch(stream, dy, x, weight, mean, rstd, dx, dweight, dbias):
    m, n = x.shape
    group = 64
    partial_dw = torch.zeros(group, n, dtype=torch.float32, device=x.device)
    partial_db = torch.zeros(group, n, dtype=torch.float32, device=x.device)
    locks = torch.zeros(group, dtype=torch.int32, device=x.device)
    ct.launch(stream, (m, 1, 1), layernorm_bwd_dx,
              (dx, dy, partial_dw, partial_db, x, weight, mean, rstd, locks, 1024))
    ct.launch(stream, (ct.cdiv(n, 128), 1, 1), layernorm_bwd_dwdb,
              (partial_dw, partial_db, dweight, dbias, 32, 128))
