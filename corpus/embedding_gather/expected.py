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


@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


@triton.jit
def _gather_2d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0, CHECK_BOUNDS=True):
    """ct.gather: ptr[index], the index tiles broadcast together; PADDING where an index is out
    of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    i1 = _elem_index(index[1], USE_INT64)
    offs = i0 * stride[0] + i1 * stride[1]
    ok = (i0 >= 0) & (i0 < shape[0]) & (i1 >= 0) & (i1 < shape[1]) & MASK if CHECK_BOUNDS else MASK
    return tl.load(ptr + offs, mask=ok, other=PADDING)


@triton.jit(do_not_specialize=["grid_x"])
def embedding_kernel(
    table_ptr,
    table_shape0,
    table_shape1,
    table_stride0,
    table_stride1,
    ids_ptr,
    ids_shape0,
    ids_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TT: tl.constexpr,
    TD: tl.constexpr,
    grid_x,
    table_div: tl.constexpr,
    ids_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[t, :] = table[ids[t], :] for a block of TT tokens and TD embedding columns.

    Ids outside the vocabulary (such as the padding id -1) give rows of zeros. The mask
    already keeps every lane in bounds, so the gather skips its own bounds check.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    table_stride0 = table_stride0 // table_div[0] * table_div[0]
    table_stride1 = table_stride1 // table_div[1] * table_div[1]
    table_shape0 = table_shape0 // table_div[2] * table_div[2]
    table_shape1 = table_shape1 // table_div[3] * table_div[3]
    ids_stride0 = ids_stride0 // ids_div[0] * ids_div[0]
    ids_shape0 = ids_shape0 // ids_div[1] * ids_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            vocab, dim = (table_shape0, table_shape1)
            offs0 = tl.cast(block_x, OFFSET_DTYPE) * TT + tl.arange(0, TT)
            mask_ids = offs0 < ids_shape0
            tok = tl.load(ids_ptr + offs0 * ids_stride0, mask=mask_ids, other=0.0)
            cols = tl.program_id(1) * TD + tl.arange(0, TD)
            known = (tok >= 0) & (tok < vocab)
            inside = known[:, None] & (cols < dim)[None, :]
            rows = _gather_2d(
                table_ptr,
                (table_shape0, table_shape1),
                (table_stride0, table_stride1),
                (tok[:, None], cols[None, :]),
                USE_INT64,
                MASK=inside,
                CHECK_BOUNDS=False,
            )
            offs_out1 = tl.cast(tl.program_id(1), OFFSET_DTYPE) * TD + tl.arange(0, TD)
            mask_out = (offs0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
            tl.store(
                out_ptr + offs0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
                rows.to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_embedding_kernel(stream, grid, table, ids, out, TT, TD, *, hints=None):
    """`ct.launch(stream, grid, embedding_kernel, args)`; `hints`: cuTile kernel hints."""
    table, ids, out = _as_tensor(table), _as_tensor(ids), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TT * TD)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (table, *table.shape, *table.stride(), ids, *ids.shape, *ids.stride())
    args += (out, *out.shape, *out.stride(), TT, TD, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known_1 = (
        table.dtype,
        table.data_ptr() & 15,
        table.shape,
        table.stride(),
        ids.dtype,
        ids.data_ptr() & 15,
        ids.shape,
        ids.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TT,
        TD,
        num_ctas,
    )
    if _launch_known(embedding_kernel, known_1, stream, grid, args):
        return
    _check_ndim("embedding_kernel", "table", table, 2)
    _check_ndim("embedding_kernel", "ids", ids, 1)
    _check_ndim("embedding_kernel", "out", out, 2)
    num_warps = min(max(TT * TD // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        table_div=_multiples(table.shape, table.stride()),
        ids_div=_multiples(ids.shape, ids.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(table, ids, out),
    )
    with _on_stream(stream):
        compiled = embedding_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(embedding_kernel, known_1, compiled, args, constexprs)


def launch(stream, table, ids, out):
    tt, td = 16, 32
    grid = (triton.cdiv(ids.shape[0], tt), triton.cdiv(table.shape[1], td))
    launch_embedding_kernel(stream, grid, table, ids, out, tt, td)
