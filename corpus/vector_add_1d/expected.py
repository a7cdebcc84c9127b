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
def vector_add_kernel(
    a_ptr,
    a_shape0,
    a_stride0,
    b_ptr,
    b_shape0,
    b_stride0,
    out_ptr,
    out_shape0,
    out_stride0,
    TILE: tl.constexpr,
    grid_x,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out = a + b over 1-D arrays; each block handles one TILE-sized chunk."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_shape0 = a_shape0 // a_div[1] * a_div[1]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_shape0 = b_shape0 // b_div[1] * b_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_shape0 = out_shape0 // out_div[1] * out_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid = block_x
            # A bare integer is accepted as a 1-D tile index: chunk `pid` covers
            # elements [pid * TILE, (pid + 1) * TILE).
            offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
            mask_a = offs_pid < a_shape0
            a_tile = tl.load(a_ptr + offs_pid * a_stride0, mask=mask_a)
            mask_b = offs_pid < b_shape0
            b_tile = tl.load(b_ptr + offs_pid * b_stride0, mask=mask_b)
            # Lanes past the end of the array hold unspecified values; store drops them.
            mask_out = offs_pid < out_shape0
            tl.store(
                out_ptr + offs_pid * out_stride0,
                (a_tile + b_tile).to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_vector_add_kernel(stream, grid, a, b, out, TILE, *, hints=None):
    """`ct.launch(stream, grid, vector_add_kernel, args)`; `hints`: cuTile kernel hints."""
    a, b, out = _as_tensor(a), _as_tensor(b), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TILE))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), out, *out.shape, *out.stride())
    args += (TILE, grid_x)
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
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(vector_add_kernel, known, stream, grid, args):
        return
    _check_ndim("vector_add_kernel", "a", a, 1)
    _check_ndim("vector_add_kernel", "b", b, 1)
    _check_ndim("vector_add_kernel", "out", out, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        a_div=_multiples(a.shape, a.stride()),
        b_div=_multiples(b.shape, b.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(a, b, out),
    )
    with _on_stream(stream):
        compiled = vector_add_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(vector_add_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, out):
    tile = 128
    grid = (triton.cdiv(a.shape[0], tile),)
    launch_vector_add_kernel(stream, grid, a, b, out, tile)
