# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
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
    _ptxas_target,
    _remember_launch,
)


@triton.jit
def _load_tile_3d(ptr, shape, stride, idx, BLOCK, USE_INT64, PADDING=None, CHECK_BOUNDS=True):
    """ct.load: tile `idx` of the array's tile space (elements idx * BLOCK + offset); out-of-bounds
    elements read as PADDING (None: undetermined, as cuTile's default)."""
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * BLOCK[0] + tl.arange(0, BLOCK[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * BLOCK[1] + tl.arange(0, BLOCK[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * BLOCK[2] + tl.arange(0, BLOCK[2])
    ptrs = (
        ptr
        + offs0[:, None, None] * stride[0]
        + offs1[None, :, None] * stride[1]
        + offs2[None, None, :] * stride[2]
    )
    mask = (
        (offs0[:, None, None] < shape[0])
        & (offs1[None, :, None] < shape[1])
        & (offs2[None, None, :] < shape[2])
        if CHECK_BOUNDS
        else True
    )
    return tl.load(ptrs, mask=mask, other=PADDING)


@triton.jit
def _store_tile_3d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * TILE[1] + tl.arange(0, TILE[1])
    offs2 = (tl.cast(idx[2], tl.int64) if USE_INT64 else idx[2]) * TILE[2] + tl.arange(0, TILE[2])
    ptrs = (
        ptr
        + offs0[:, None, None] * stride[0]
        + offs1[None, :, None] * stride[1]
        + offs2[None, None, :] * stride[2]
    )
    mask = (
        (offs0[:, None, None] < shape[0])
        & (offs1[None, :, None] < shape[1])
        & (offs2[None, None, :] < shape[2])
        if CHECK_BOUNDS
        else True
    )
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def bmm_kernel(
    a_ptr,
    a_shape0,
    a_shape1,
    a_shape2,
    a_stride0,
    a_stride1,
    a_stride2,
    b_ptr,
    b_shape0,
    b_shape1,
    b_shape2,
    b_stride0,
    b_stride1,
    b_stride2,
    c_ptr,
    c_shape0,
    c_shape1,
    c_shape2,
    c_stride0,
    c_stride1,
    c_stride2,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    c_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Batched C[i] = A[i] @ B[i] on 3-D arrays, with 3-D tiles and a 3-D mma.

    Grid: (M tiles, N tiles, batch). Every tile carries a leading batch axis of size 1,
    and ct.mma multiplies over the last two axes.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_stride1 = a_stride1 // a_div[1] * a_div[1]
    a_stride2 = a_stride2 // a_div[2] * a_div[2]
    a_shape0 = a_shape0 // a_div[3] * a_div[3]
    a_shape1 = a_shape1 // a_div[4] * a_div[4]
    a_shape2 = a_shape2 // a_div[5] * a_div[5]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_stride1 = b_stride1 // b_div[1] * b_div[1]
    b_stride2 = b_stride2 // b_div[2] * b_div[2]
    b_shape0 = b_shape0 // b_div[3] * b_div[3]
    b_shape1 = b_shape1 // b_div[4] * b_div[4]
    b_shape2 = b_shape2 // b_div[5] * b_div[5]
    c_stride0 = c_stride0 // c_div[0] * c_div[0]
    c_stride1 = c_stride1 // c_div[1] * c_div[1]
    c_stride2 = c_stride2 // c_div[2] * c_div[2]
    c_shape0 = c_shape0 // c_div[3] * c_div[3]
    c_shape1 = c_shape1 // c_div[4] * c_div[4]
    c_shape2 = c_shape2 // c_div[5] * c_div[5]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    acc = tl.zeros((1, TM, TN), dtype=tl.float32)
    for k in range(tl.cdiv(a_shape2, TK)):
        a_tile = _load_tile_3d(
            a_ptr,
            (a_shape0, a_shape1, a_shape2),
            (a_stride0, a_stride1, a_stride2),
            (batch, pid_m, k),
            (1, TM, TK),
            USE_INT64,
            PADDING=0.0,
        )
        b_tile = _load_tile_3d(
            b_ptr,
            (b_shape0, b_shape1, b_shape2),
            (b_stride0, b_stride1, b_stride2),
            (batch, k, pid_n),
            (1, TK, TN),
            USE_INT64,
            PADDING=0.0,
        )
        acc = tl.reshape(
            tl.dot(
                tl.reshape(a_tile, (TM, TK)),
                tl.reshape(b_tile, (TK, TN)),
                tl.reshape(acc, (TM, TN)),
                input_precision="ieee",
                max_num_imprecise_acc=TK,
            ),
            (1, TM, TN),
        )
    _store_tile_3d(
        c_ptr,
        (c_shape0, c_shape1, c_shape2),
        (c_stride0, c_stride1, c_stride2),
        (batch, pid_m, pid_n),
        acc.to(c_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_bmm_kernel(stream, grid, a, b, c, TM, TN, TK, *, hints=None):
    """`ct.launch(stream, grid, bmm_kernel, args)`; `hints`: cuTile kernel hints."""
    a, b, c = _as_tensor(a), _as_tensor(b), _as_tensor(c)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), c, *c.shape, *c.stride(), TM, TN)
    args += (TK,)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        a.dtype,
        a.data_ptr() & 15,
        a.shape,
        a.stride(),
        b.dtype,
        b.data_ptr() & 15,
        b.shape,
        b.stride(),
        c.dtype,
        c.data_ptr() & 15,
        c.shape,
        c.stride(),
        TM,
        TN,
        TK,
        num_ctas,
    )
    if _launch_known(bmm_kernel, known, stream, grid, args):
        return
    _check_ndim("bmm_kernel", "a", a, 3)
    _check_ndim("bmm_kernel", "b", b, 3)
    _check_ndim("bmm_kernel", "c", c, 3)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # matrix kernels: 4 warps, 3 stages up to 128x128 tiles (best on the H200), then 8 and 4
    num_warps, num_stages = (8, 4) if tile_elems >= 128 * 256 else (4, 3)
    num_stages = 2 if TM < 16 else num_stages  # few rows (decode): 2
    float_dtypes = {t.dtype for t in [a, b, c] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        a_div=_multiples(a.shape, a.stride()),
        b_div=_multiples(b.shape, b.stride()),
        c_div=_multiples(c.shape, c.stride()),
        USE_INT64=_needs_int64(a, b, c),
    )
    with _on_stream(stream):
        while True:
            try:
                compiled = bmm_kernel[_grid(grid)](
                    *args,
                    **constexprs,
                    num_warps=num_warps,
                    num_stages=num_stages,
                    num_ctas=num_ctas,
                    **ptx_options,
                )
                break
            except triton.OutOfResources:  # large tiles: one stage fewer until they fit
                if num_stages <= 1:
                    raise
                num_stages -= 1
        _remember_launch(bmm_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, c):
    tm, tn, tk = 16, 32, 32
    nb, m, _ = a.shape
    n = b.shape[2]
    grid = (triton.cdiv(m, tm), triton.cdiv(n, tn), nb)
    launch_bmm_kernel(stream, grid, a, b, c, tm, tn, tk)
