# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Per-column affine map with coefficients written inline as tiles (ct.astile), one of them
depending on the block index at run time."""

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
def _astile_4(v0, v1, v2, v3, DTYPE: tl.constexpr):
    """ct.astile of 4 scalars: element k of the 1-D tile is v<k>, cast to DTYPE."""
    i = tl.arange(0, 4)
    if DTYPE.is_fp8():  # Triton makes no fp8 constants: built in fp32, converted once
        t = tl.zeros((4,), tl.float32)
    else:
        t = tl.zeros((4,), DTYPE)
    t = tl.where(i == 0, v0, t)
    t = tl.where(i == 1, v1, t)
    t = tl.where(i == 2, v2, t)
    t = tl.where(i == 3, v3, t)
    return t.to(DTYPE)


TM = 64


@triton.jit(do_not_specialize=["grid_x"])
def affine4(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TM: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid = block_x
            offs_pid = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs1 = tl.arange(0, 4).to(OFFSET_DTYPE)
            mask_x = (offs_pid[:, None] < x_shape0) & (offs1[None, :] < x_shape1)
            t = tl.load(
                x_ptr + offs_pid[:, None] * x_stride0 + offs1[None, :] * x_stride1,
                mask=mask_x,
                other=0.0,
            )
            scale = tl.reshape(_astile_4(0.5, -1.25, 2.0, 0.75, tl.float32), (1, 4))  # shape (1, 4)
            # 2x2, reshaped to one row below
            shift = tl.reshape(_astile_4(pid * 0.5, 1.0, -2.0, 0.25, tl.float32), (2, 2))
            half = tl.cast(0.5, tl.float32)
            y = t.to(tl.float32) * scale + tl.reshape(shift, (1, 4)) * half
            mask_out = (offs_pid[:, None] < out_shape0) & (offs1[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_pid[:, None] * out_stride0 + offs1[None, :] * out_stride1,
                y.to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_affine4(stream, grid, x, out, TM, *, hints=None):
    """`ct.launch(stream, grid, affine4, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    tile_elems = max(TM * 4, 2 * 2)
    blocks_per_program = max(1, min(8, 256 // tile_elems))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), TM, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TM,
        num_ctas,
    )
    if _launch_known(affine4, known, stream, grid, args):
        return
    _check_ndim("affine4", "x", x, 2)
    _check_ndim("affine4", "out", out, 2)
    num_warps = min(max(tile_elems // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = affine4[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(affine4, known, compiled, args, constexprs)


def launch(stream, x, out):
    grid = (triton.cdiv(x.shape[0], TM), 1, 1)
    launch_affine4(stream, grid, x, out, TM)
