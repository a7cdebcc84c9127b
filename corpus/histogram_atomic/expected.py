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
    _scalar_key,
)


@triton.jit
def _floor(x):
    """ct.floor: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.floor(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _elem_index(index, USE_INT64: tl.constexpr):
    """An element index (tile or scalar) as an integer tensor of 32 bits or more (64: USE_INT64)."""
    return tl.cast(index, tl.int64) if USE_INT64 else index + tl.zeros((), tl.int32)


@triton.jit
def _atomic_add_1d(
    ptr, shape, stride, index, update, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None
):
    """ct.atomic_add: combine `update` into ptr[index] atomically, returning the old values;
    out-of-bounds elements (negative indices included) are untouched."""
    i0 = _elem_index(index[0], USE_INT64)
    offs = i0 * stride[0]
    ok = (i0 >= 0) & (i0 < shape[0]) if CHECK_BOUNDS else True  # (True: Triton's mask when none)
    return tl.atomic_add(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)


@triton.jit
def histogram_kernel(
    x_ptr,
    x_shape0,
    x_stride0,
    hist_ptr,
    hist_shape0,
    hist_stride0,
    lo,
    hi,
    TILE: tl.constexpr,
    x_div: tl.constexpr,
    hist_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """hist[b] += number of x in [lo + b * w, lo + (b + 1) * w), with w = (hi - lo) / nbins.

    Each block bins TILE values and adds them with one atomic per value. Values outside
    [lo, hi), and the NaN padding past the end of x, get bin -1: atomics treat negative
    indices as out of bounds and leave memory alone. Counting needs no ordering with other
    memory operations, hence the relaxed atomics.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    hist_stride0 = hist_stride0 // hist_div[0] * hist_div[0]
    hist_shape0 = hist_shape0 // hist_div[1] * hist_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    nbins = hist_shape0
    offs_x0 = tl.cast(tl.program_id(0), OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    mask_x = offs_x0 < x_shape0
    v = tl.load(x_ptr + offs_x0 * x_stride0, mask=mask_x, other=float("nan"))
    inside = (v >= lo) & (v < hi)
    pos = _floor((v - lo) / (hi - lo) * nbins)
    bins = tl.where(inside, pos, -1.0).to(tl.int32)
    ones = tl.full((TILE,), 1, hist_ptr.dtype.element_ty)
    _atomic_add_1d(
        hist_ptr, (hist_shape0,), (hist_stride0,), (bins,), ones, USE_INT64, SEM="relaxed"
    )


def launch_histogram_kernel(stream, grid, x, hist, lo, hi, TILE, *, hints=None):
    """`ct.launch(stream, grid, histogram_kernel, args)`; `hints`: cuTile kernel hints."""
    x, hist = _as_tensor(x), _as_tensor(hist)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), hist, *hist.shape, *hist.stride(), lo, hi, TILE)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        hist.dtype,
        hist.data_ptr() & 15,
        hist.shape,
        hist.stride(),
        _scalar_key(lo),
        _scalar_key(hi),
        TILE,
        num_ctas,
    )
    if _launch_known(histogram_kernel, known, stream, grid, args):
        return
    _check_ndim("histogram_kernel", "x", x, 1)
    _check_ndim("histogram_kernel", "hist", hist, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        hist_div=_multiples(hist.shape, hist.stride()),
        USE_INT64=_needs_int64(x, hist),
    )
    with _on_stream(stream):
        compiled = histogram_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(histogram_kernel, known, compiled, args, constexprs)


def launch(stream, x, hist, lo, hi):
    tile = 128
    hist.zero_()
    launch_histogram_kernel(stream, (triton.cdiv(x.shape[0], tile),), x, hist, lo, hi, tile)
