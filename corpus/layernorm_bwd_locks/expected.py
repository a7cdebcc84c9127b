# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""LayerNorm backward. Each block computes dx for one row and adds the row's contributions to
dw and db into one of GROUPS partial buffers, guarded by a spin lock per buffer (atomic_cas to
take it, atomic_xchg to give it back); the host then sums the partial buffers."""

import torch
import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _as_tensor,
    _by_target,
    _check_ndim,
    _grid,
    _launch_known,
    _multiples,
    _needs_int64,
    _on_stream,
    _remember_launch,
)


@triton.jit
def _sum(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.sum keeps the input dtype; tl.sum accumulates small types in a wider one.
    Booleans are summed as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.sum(x, axis=AXIS, keep_dims=KEEP_DIMS).to(x.dtype)


@triton.jit
def _mod(a, b):
    """cuTile's `%` takes the sign of the divisor; Triton's integer `%` that of the dividend."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        r = a % b
    else:  # (floats: C's exact fmod, 16-bit ones in fp32, rounded once at the end)
        dt = (a + b).dtype
        ft = tl.float32 if dt.is_floating() and dt.primitive_bitwidth < 32 else dt
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        r = x % y
        r = tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).to(dt)
    return r


@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


@triton.jit
def _atomic_cas_1d(
    ptr, shape, stride, index, expected, desired, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None
):
    """ct.atomic_cas: where ptr[index] == expected, store desired; return the old values.
    Out-of-bounds elements (negative indices included) are untouched and return `expected`."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    # tl.atomic_cas neither broadcasts nor casts: the operands take offs's shape, ptr's dtype
    offs, cmp = tl.broadcast(offs, tl.cast(expected, ptr.dtype.element_ty))
    offs, val = tl.broadcast(offs, tl.cast(desired, ptr.dtype.element_ty))
    if CHECK_BOUNDS:
        # (no mask) out-of-bounds lanes swap element 0 for itself, which never changes memory;
        # an empty array has no element 0: no swap, every lane returns `expected`
        ok = (i0 >= 0) & (i0 < shape[0])
        if shape[0] > 0:
            old = tl.atomic_cas(
                ptr + tl.where(ok, offs, 0), cmp, tl.where(ok, val, cmp), sem=SEM, scope=SCOPE
            )
        else:
            old = cmp
        return tl.where(ok, old, cmp)
    else:
        return tl.atomic_cas(ptr + offs, cmp, val, sem=SEM, scope=SCOPE)


@triton.jit
def _atomic_xchg_1d(
    ptr, shape, stride, index, update, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None
):
    """ct.atomic_xchg: combine `update` into ptr[index] atomically, returning the old values;
    out-of-bounds elements (negative indices included) are untouched."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    ok = (i0 >= 0) & (i0 < shape[0]) if CHECK_BOUNDS else True  # (True: Triton's mask when none)
    return tl.atomic_xchg(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)


@triton.jit
def layernorm_bwd(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    dy_ptr,
    dy_shape0,
    dy_shape1,
    dy_stride0,
    dy_stride1,
    w_ptr,
    w_shape0,
    w_stride0,
    mean_ptr,
    mean_shape0,
    mean_stride0,
    rstd_ptr,
    rstd_shape0,
    rstd_stride0,
    dx_ptr,
    dx_shape0,
    dx_shape1,
    dx_stride0,
    dx_stride1,
    dw_partial_ptr,
    dw_partial_shape0,
    dw_partial_shape1,
    dw_partial_stride0,
    dw_partial_stride1,
    db_partial_ptr,
    db_partial_shape0,
    db_partial_shape1,
    db_partial_stride0,
    db_partial_stride1,
    locks_ptr,
    locks_shape0,
    locks_stride0,
    GROUPS: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    dy_div: tl.constexpr,
    w_div: tl.constexpr,
    mean_div: tl.constexpr,
    rstd_div: tl.constexpr,
    dx_div: tl.constexpr,
    dw_partial_div: tl.constexpr,
    db_partial_div: tl.constexpr,
    locks_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    dy_stride0 = dy_stride0 // dy_div[0] * dy_div[0]
    dy_stride1 = dy_stride1 // dy_div[1] * dy_div[1]
    dy_shape0 = dy_shape0 // dy_div[2] * dy_div[2]
    dy_shape1 = dy_shape1 // dy_div[3] * dy_div[3]
    w_stride0 = w_stride0 // w_div[0] * w_div[0]
    w_shape0 = w_shape0 // w_div[1] * w_div[1]
    mean_stride0 = mean_stride0 // mean_div[0] * mean_div[0]
    mean_shape0 = mean_shape0 // mean_div[1] * mean_div[1]
    rstd_stride0 = rstd_stride0 // rstd_div[0] * rstd_div[0]
    rstd_shape0 = rstd_shape0 // rstd_div[1] * rstd_div[1]
    dx_stride0 = dx_stride0 // dx_div[0] * dx_div[0]
    dx_stride1 = dx_stride1 // dx_div[1] * dx_div[1]
    dx_shape0 = dx_shape0 // dx_div[2] * dx_div[2]
    dx_shape1 = dx_shape1 // dx_div[3] * dx_div[3]
    dw_partial_stride0 = dw_partial_stride0 // dw_partial_div[0] * dw_partial_div[0]
    dw_partial_stride1 = dw_partial_stride1 // dw_partial_div[1] * dw_partial_div[1]
    dw_partial_shape0 = dw_partial_shape0 // dw_partial_div[2] * dw_partial_div[2]
    dw_partial_shape1 = dw_partial_shape1 // dw_partial_div[3] * dw_partial_div[3]
    db_partial_stride0 = db_partial_stride0 // db_partial_div[0] * db_partial_div[0]
    db_partial_stride1 = db_partial_stride1 // db_partial_div[1] * db_partial_div[1]
    db_partial_shape0 = db_partial_shape0 // db_partial_div[2] * db_partial_div[2]
    db_partial_shape1 = db_partial_shape1 // db_partial_div[3] * db_partial_div[3]
    locks_stride0 = locks_stride0 // locks_div[0] * locks_div[0]
    locks_shape0 = locks_shape0 // locks_div[1] * locks_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    row = tl.program_id(0)
    n = x_shape1
    cols = tl.arange(0, TN)[None, :]
    live = cols < n
    offs_row = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
    offs_tn = tl.arange(0, TN).to(OFFSET_DTYPE)
    mask_x = (offs_row[:, None] < x_shape0) & (offs_tn[None, :] < x_shape1)
    xt = tl.load(
        x_ptr + offs_row[:, None] * x_stride0 + offs_tn[None, :] * x_stride1, mask=mask_x, other=0.0
    ).to(tl.float32)
    mask_dy = (offs_row[:, None] < dy_shape0) & (offs_tn[None, :] < dy_shape1)
    dyt = tl.load(
        dy_ptr + offs_row[:, None] * dy_stride0 + offs_tn[None, :] * dy_stride1,
        mask=mask_dy,
        other=0.0,
    ).to(tl.float32)
    mask_w = offs_tn < w_shape0
    wt = tl.load(w_ptr + offs_tn * w_stride0, mask=mask_w, other=0.0).to(tl.float32)
    mu = tl.load(
        mean_ptr + tl.cast(row, tl.int64) * mean_stride0, mask=(row >= 0) & (row < mean_shape0)
    )
    rs = tl.load(
        rstd_ptr + tl.cast(row, tl.int64) * rstd_stride0, mask=(row >= 0) & (row < rstd_shape0)
    )
    xhat = tl.where(live, (xt - mu) * rs, 0.0)
    wdy = wt[None, :] * dyt
    c1 = _sum(xhat * wdy, None, False) / n
    c2 = tl.sum(wdy) / n
    dxt = (wdy - (xhat * c1 + c2)) * rs
    mask_dx = (offs_row[:, None] < dx_shape0) & (offs_tn[None, :] < dx_shape1)
    tl.store(
        dx_ptr + offs_row[:, None] * dx_stride0 + offs_tn[None, :] * dx_stride1,
        dxt.to(dx_ptr.dtype.element_ty),
        mask=mask_dx,
    )

    g = _mod(row, GROUPS)
    while (
        _atomic_cas_1d(
            locks_ptr, (locks_shape0,), (locks_stride0,), (g,), 0, 1, USE_INT64, SEM="acquire"
        )
        == 1
    ):
        pass  # another row of this group holds the lock
    offs_g = tl.cast(g, OFFSET_DTYPE) + tl.arange(0, 1)
    mask_dw_partial = (offs_g[:, None] < dw_partial_shape0) & (offs_tn[None, :] < dw_partial_shape1)
    dw_acc = tl.load(
        dw_partial_ptr
        + offs_g[:, None] * dw_partial_stride0
        + offs_tn[None, :] * dw_partial_stride1,
        mask=mask_dw_partial,
        other=0.0,
    )
    mask_db_partial = (offs_g[:, None] < db_partial_shape0) & (offs_tn[None, :] < db_partial_shape1)
    db_acc = tl.load(
        db_partial_ptr
        + offs_g[:, None] * db_partial_stride0
        + offs_tn[None, :] * db_partial_stride1,
        mask=mask_db_partial,
        other=0.0,
    )
    tl.store(
        dw_partial_ptr
        + offs_g[:, None] * dw_partial_stride0
        + offs_tn[None, :] * dw_partial_stride1,
        (dw_acc + xhat * dyt).to(dw_partial_ptr.dtype.element_ty),
        mask=mask_dw_partial,
    )
    tl.store(
        db_partial_ptr
        + offs_g[:, None] * db_partial_stride0
        + offs_tn[None, :] * db_partial_stride1,
        (db_acc + dyt).to(db_partial_ptr.dtype.element_ty),
        mask=mask_db_partial,
    )
    _atomic_xchg_1d(locks_ptr, (locks_shape0,), (locks_stride0,), (g,), 0, USE_INT64, SEM="release")


def launch_layernorm_bwd(
    stream, grid, x, dy, w, mean, rstd, dx, dw_partial, db_partial, locks, GROUPS, TN, *, hints=None
):
    """`ct.launch(stream, grid, layernorm_bwd, args)`; `hints`: cuTile kernel hints."""
    x, dy, w, mean = _as_tensor(x), _as_tensor(dy), _as_tensor(w), _as_tensor(mean)
    rstd, dx, dw_partial = _as_tensor(rstd), _as_tensor(dx), _as_tensor(dw_partial)
    db_partial, locks = _as_tensor(db_partial), _as_tensor(locks)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), dy, *dy.shape, *dy.stride(), w, *w.shape, *w.stride())
    args += (mean, *mean.shape, *mean.stride(), rstd, *rstd.shape, *rstd.stride())
    args += (dx, *dx.shape, *dx.stride(), dw_partial, *dw_partial.shape, *dw_partial.stride())
    args += (
        db_partial,
        *db_partial.shape,
        *db_partial.stride(),
    )
    args += (locks, *locks.shape, *locks.stride(), GROUPS, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        dy.dtype,
        dy.data_ptr() & 15,
        dy.shape,
        dy.stride(),
        w.dtype,
        w.data_ptr() & 15,
        w.shape,
        w.stride(),
        mean.dtype,
        mean.data_ptr() & 15,
        mean.shape,
        mean.stride(),
        rstd.dtype,
        rstd.data_ptr() & 15,
        rstd.shape,
        rstd.stride(),
        dx.dtype,
        dx.data_ptr() & 15,
        dx.shape,
        dx.stride(),
        dw_partial.dtype,
        dw_partial.data_ptr() & 15,
        dw_partial.shape,
        dw_partial.stride(),
        db_partial.dtype,
        db_partial.data_ptr() & 15,
        db_partial.shape,
        db_partial.stride(),
        locks.dtype,
        locks.data_ptr() & 15,
        locks.shape,
        locks.stride(),
        GROUPS,
        TN,
        num_ctas,
    )
    if _launch_known(layernorm_bwd, known, stream, grid, args):
        return
    _check_ndim("layernorm_bwd", "x", x, 2)
    _check_ndim("layernorm_bwd", "dy", dy, 2)
    _check_ndim("layernorm_bwd", "w", w, 1)
    _check_ndim("layernorm_bwd", "mean", mean, 1)
    _check_ndim("layernorm_bwd", "rstd", rstd, 1)
    _check_ndim("layernorm_bwd", "dx", dx, 2)
    _check_ndim("layernorm_bwd", "dw_partial", dw_partial, 2)
    _check_ndim("layernorm_bwd", "db_partial", db_partial, 2)
    _check_ndim("layernorm_bwd", "locks", locks, 1)
    num_warps = min(max(TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        dy_div=_multiples(dy.shape, dy.stride()),
        w_div=_multiples(w.shape, w.stride()),
        mean_div=_multiples(mean.shape, mean.stride()),
        rstd_div=_multiples(rstd.shape, rstd.stride()),
        dx_div=_multiples(dx.shape, dx.stride()),
        dw_partial_div=_multiples(dw_partial.shape, dw_partial.stride()),
        db_partial_div=_multiples(db_partial.shape, db_partial.stride()),
        locks_div=_multiples(locks.shape, locks.stride()),
        USE_INT64=_needs_int64(x, dy, w, mean, rstd, dx, dw_partial, db_partial, locks),
    )
    with _on_stream(stream):
        compiled = layernorm_bwd[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(layernorm_bwd, known, compiled, args, constexprs)


def launch(stream, x, dy, w, mean, rstd, dx, dw, db):
    m, n = x.shape
    groups = 8
    tile_n = 1 << (n - 1).bit_length()
    dw_partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    db_partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    locks = torch.zeros(groups, dtype=torch.int32, device=x.device)
    launch_layernorm_bwd(
        stream, (m,), x, dy, w, mean, rstd, dx, dw_partial, db_partial, locks, groups, tile_n
    )
    dw.copy_(dw_partial.sum(dim=0))
    db.copy_(db_partial.sum(dim=0))
