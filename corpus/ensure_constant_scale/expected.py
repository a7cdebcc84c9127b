# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
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


@triton.jit(do_not_specialize=["grid_x"])
def pow2_scale_kernel(
    x_ptr,
    x_shape0,
    x_stride0,
    y_ptr,
    y_shape0,
    y_stride0,
    TILE: tl.constexpr,
    SHIFT: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    y_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """y = x * 2**SHIFT, then nudged toward zero by one unit when the scale is large.

    ct.ensure_constant documents (and checks) that the scale and the branch condition are
    compile-time values, so only one branch is compiled per SHIFT.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    y_stride0 = y_stride0 // y_div[0] * y_div[0]
    y_shape0 = y_shape0 // y_div[1] * y_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            scale: tl.constexpr = 2**SHIFT
            offs0 = tl.cast(block_x, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
            mask_x = offs0 < x_shape0
            t = tl.load(x_ptr + offs0 * x_stride0, mask=mask_x, other=0.0)
            if SHIFT > 2:
                r = t * scale - tl.where(t > 0, 1.0, -1.0)
            else:
                r = t * scale
            mask_y = offs0 < y_shape0
            tl.store(y_ptr + offs0 * y_stride0, r.to(y_ptr.dtype.element_ty), mask=mask_y)


def launch_pow2_scale_kernel(stream, grid, x, y, TILE, SHIFT, *, hints=None):
    """`ct.launch(stream, grid, pow2_scale_kernel, args)`; `hints`: cuTile kernel hints."""
    x, y = _as_tensor(x), _as_tensor(y)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TILE))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), y, *y.shape, *y.stride(), TILE, SHIFT, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        y.dtype,
        y.data_ptr() & 15,
        y.shape,
        y.stride(),
        TILE,
        SHIFT,
        num_ctas,
    )
    if _launch_known(pow2_scale_kernel, known, stream, grid, args):
        return
    _check_ndim("pow2_scale_kernel", "x", x, 1)
    _check_ndim("pow2_scale_kernel", "y", y, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        y_div=_multiples(y.shape, y.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, y),
    )
    with _on_stream(stream):
        compiled = pow2_scale_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(pow2_scale_kernel, known, compiled, args, constexprs)


def launch(stream, x, y, shift):
    tile = 128
    launch_pow2_scale_kernel(stream, (triton.cdiv(x.shape[0], tile),), x, y, tile, shift)
