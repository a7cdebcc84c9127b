# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Column sums of a tall matrix through GROUPS partial buffers, each guarded by a spin lock
that a `@contextmanager` helper takes on entry and gives back on exit: every block reduces
TM rows of one column band, then, holding the lock of its group, adds its sums into the
group's row of `partial` and counts itself in `visits`. The host adds the groups up."""

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
def _store_tile_1d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    ptrs = ptr + offs0 * stride[0]
    mask = offs0 < shape[0] if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


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


# `holding` (a context manager) is inlined where kernels enter it with `with`.


@triton.jit
def grouped_col_sums(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    partial_ptr,
    partial_shape0,
    partial_shape1,
    partial_stride0,
    partial_stride1,
    visits_ptr,
    visits_shape0,
    visits_stride0,
    locks_ptr,
    locks_shape0,
    locks_stride0,
    GROUPS: tl.constexpr,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    partial_div: tl.constexpr,
    visits_div: tl.constexpr,
    locks_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    partial_stride0 = partial_stride0 // partial_div[0] * partial_div[0]
    partial_stride1 = partial_stride1 // partial_div[1] * partial_div[1]
    partial_shape0 = partial_shape0 // partial_div[2] * partial_div[2]
    partial_shape1 = partial_shape1 // partial_div[3] * partial_div[3]
    visits_stride0 = visits_stride0 // visits_div[0] * visits_div[0]
    visits_shape0 = visits_shape0 // visits_div[1] * visits_div[1]
    locks_stride0 = locks_stride0 // locks_div[0] * locks_div[0]
    locks_shape0 = locks_shape0 // locks_div[1] * locks_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    bm = tl.program_id(0)
    bn = tl.program_id(1)
    offs_x0 = tl.cast(bm, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_bn = tl.cast(bn, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_x = (offs_x0[:, None] < x_shape0) & (offs_bn[None, :] < x_shape1)
    t = tl.load(
        x_ptr + offs_x0[:, None] * x_stride0 + offs_bn[None, :] * x_stride1, mask=mask_x, other=0.0
    )
    sums = tl.sum(t.to(tl.float32), axis=0, keep_dims=True)
    g = _mod(bm, GROUPS)
    _cm0_slot = g * tl.num_programs(1) + bn
    while (
        _atomic_cas_1d(
            locks_ptr,
            (locks_shape0,),
            (locks_stride0,),
            (_cm0_slot,),
            0,
            1,
            USE_INT64,
            SEM="acquire",
        )
        == 1
    ):
        pass  # another block of this group is inside
    slot = _cm0_slot
    offs_partial0 = tl.cast(g, OFFSET_DTYPE) + tl.arange(0, 1)
    mask_partial = (offs_partial0[:, None] < partial_shape0) & (offs_bn[None, :] < partial_shape1)
    acc = tl.load(
        partial_ptr + offs_partial0[:, None] * partial_stride0 + offs_bn[None, :] * partial_stride1,
        mask=mask_partial,
        other=0.0,
    )
    tl.store(
        partial_ptr + offs_partial0[:, None] * partial_stride0 + offs_bn[None, :] * partial_stride1,
        (acc + sums).to(partial_ptr.dtype.element_ty),
        mask=mask_partial,
    )
    n = tl.load(
        visits_ptr + tl.cast(slot, tl.int64) * visits_stride0,
        mask=(slot >= 0) & (slot < visits_shape0),
    )
    _store_tile_1d(
        visits_ptr,
        (visits_shape0,),
        (visits_stride0,),
        (slot,),
        tl.full((1,), n + 1, visits_ptr.dtype.element_ty),
        USE_INT64,
    )
    _atomic_xchg_1d(
        locks_ptr, (locks_shape0,), (locks_stride0,), (_cm0_slot,), 0, USE_INT64, SEM="release"
    )


def launch_grouped_col_sums(stream, grid, x, partial, visits, locks, GROUPS, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, grouped_col_sums, args)`; `hints`: cuTile kernel hints."""
    x, partial, visits = _as_tensor(x), _as_tensor(partial), _as_tensor(visits)
    locks = _as_tensor(locks)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), partial, *partial.shape, *partial.stride())
    args += (visits, *visits.shape, *visits.stride(), locks, *locks.shape, *locks.stride(), GROUPS)
    args += (TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        partial.dtype,
        partial.data_ptr() & 15,
        partial.shape,
        partial.stride(),
        visits.dtype,
        visits.data_ptr() & 15,
        visits.shape,
        visits.stride(),
        locks.dtype,
        locks.data_ptr() & 15,
        locks.shape,
        locks.stride(),
        GROUPS,
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(grouped_col_sums, known, stream, grid, args):
        return
    _check_ndim("grouped_col_sums", "x", x, 2)
    _check_ndim("grouped_col_sums", "partial", partial, 2)
    _check_ndim("grouped_col_sums", "visits", visits, 1)
    _check_ndim("grouped_col_sums", "locks", locks, 1)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        partial_div=_multiples(partial.shape, partial.stride()),
        visits_div=_multiples(visits.shape, visits.stride()),
        locks_div=_multiples(locks.shape, locks.stride()),
        USE_INT64=_needs_int64(x, partial, visits, locks),
    )
    with _on_stream(stream):
        compiled = grouped_col_sums[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(grouped_col_sums, known, compiled, args, constexprs)


def launch(stream, x, col_sum, visits):
    groups, tm, tn = 4, 16, 32
    m, n = x.shape
    bands = triton.cdiv(n, tn)
    partial = torch.zeros(groups, n, dtype=torch.float32, device=x.device)
    locks = torch.zeros(groups * bands, dtype=torch.int32, device=x.device)
    visits.zero_()
    grid = (triton.cdiv(m, tm), bands, 1)
    launch_grouped_col_sums(stream, grid, x, partial, visits, locks, groups, tm, tn)
    col_sum.copy_(partial.sum(dim=0))
