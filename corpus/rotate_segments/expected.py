# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Rotate every TILE-element segment of a vector, several rounds, in the output buffer.

The segment is copied to `out`, then each round gathers it at shifted positions and stores it
back over itself: a gather reads what the store before it wrote, and a store overwrites
elements that other lanes gather. cuTile orders these accesses to `out` within a block.
"""

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
    _scalar_key,
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
def _gather_1d(ptr, shape, stride, index, USE_INT64, MASK=True, PADDING=0, CHECK_BOUNDS=True):
    """ct.gather: ptr[index], the index tiles broadcast together; PADDING where an index is out
    of bounds (negative ones included) or MASK is False."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    ok = (i0 >= 0) & (i0 < shape[0]) & MASK if CHECK_BOUNDS else MASK
    return tl.load(ptr + offs, mask=ok, other=PADDING)


TILE = 256


@triton.jit
def rotate_segments(
    x_ptr,
    x_shape0,
    x_stride0,
    out_ptr,
    out_shape0,
    out_stride0,
    shift,
    rounds,
    T: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_shape0 = out_shape0 // out_div[1] * out_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    seg = tl.program_id(0)
    offs_seg = tl.cast(seg, OFFSET_DTYPE) * T + tl.arange(0, T)
    mask_x = offs_seg < x_shape0
    mask_out = offs_seg < out_shape0
    tl.store(
        out_ptr + offs_seg * out_stride0,
        tl.load(x_ptr + offs_seg * x_stride0, mask=mask_x).to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )
    start = seg * T
    n = tl.minimum(T, x_shape0 - start)  # the last segment may be short
    lane = tl.arange(0, T)
    src = start + _mod(lane + shift, n)
    for _ in range(rounds):
        tl.debug_barrier()  # other threads touch `out` too: keep cuTile's order
        moved = _gather_1d(out_ptr, (out_shape0,), (out_stride0,), (src,), USE_INT64, MASK=lane < n)
        tl.debug_barrier()  # other threads touch `out` too: keep cuTile's order
        offs_out0_2 = tl.cast(seg, OFFSET_DTYPE) * T + tl.arange(0, T)
        mask_out_2 = offs_out0_2 < out_shape0
        tl.store(
            out_ptr + offs_out0_2 * out_stride0, moved.to(out_ptr.dtype.element_ty), mask=mask_out_2
        )


def launch_rotate_segments(stream, grid, x, out, shift, rounds, T, *, hints=None):
    """`ct.launch(stream, grid, rotate_segments, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), shift, rounds, T)
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
        _scalar_key(shift),
        _scalar_key(rounds),
        T,
        num_ctas,
    )
    if _launch_known(rotate_segments, known, stream, grid, args):
        return
    _check_ndim("rotate_segments", "x", x, 1)
    _check_ndim("rotate_segments", "out", out, 1)
    num_warps = min(max(T // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = rotate_segments[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(rotate_segments, known, compiled, args, constexprs)


def launch(stream, x, out, shift, rounds):
    grid = (triton.cdiv(x.shape[0], TILE), 1, 1)
    launch_rotate_segments(stream, grid, x, out, shift, rounds, TILE)
