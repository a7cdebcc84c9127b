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
def _multiply(a, b):
    return a * b


@triton.jit
def _prod(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.prod: product along AXIS (Triton has no tl.prod); booleans as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.reduce(x, AXIS, _multiply, keep_dims=KEEP_DIMS)


@triton.jit
def min_prod_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    row_min_ptr,
    row_min_shape0,
    row_min_stride0,
    row_prod_ptr,
    row_prod_shape0,
    row_prod_stride0,
    TM: tl.constexpr,
    TILE_N: tl.constexpr,
    x_div: tl.constexpr,
    row_min_div: tl.constexpr,
    row_prod_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """row_min[i] = min_j x[i, j] (in x's dtype) and row_prod[i] = prod_j x[i, j] (float32).

    TILE_N covers a whole row. For the min, +inf padding is neutral. There is no padding
    mode for 1, so for the product the tail lanes are replaced by 1.0 with an explicit mask.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    row_min_stride0 = row_min_stride0 // row_min_div[0] * row_min_div[0]
    row_min_shape0 = row_min_shape0 // row_min_div[1] * row_min_div[1]
    row_prod_stride0 = row_prod_stride0 // row_prod_div[0] * row_prod_div[0]
    row_prod_shape0 = row_prod_shape0 // row_prod_div[1] * row_prod_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    n = x_shape1
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_x1 = tl.arange(0, TILE_N).to(OFFSET_DTYPE)
    mask_x = (offs_pid[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
    t = tl.load(
        x_ptr + offs_pid[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
        mask=mask_x,
        other=float("inf"),
    )
    mask_row_min = offs_pid < row_min_shape0
    tl.store(
        row_min_ptr + offs_pid * row_min_stride0,
        tl.min(t, axis=1).to(row_min_ptr.dtype.element_ty),
        mask=mask_row_min,
    )

    cols = tl.arange(0, TILE_N)
    t32 = tl.where(cols[None, :] < n, t.to(tl.float32), 1.0)
    mask_row_prod = offs_pid < row_prod_shape0
    tl.store(
        row_prod_ptr + offs_pid * row_prod_stride0,
        _prod(t32, 1, False).to(row_prod_ptr.dtype.element_ty),
        mask=mask_row_prod,
    )


def launch_min_prod_kernel(stream, grid, x, row_min, row_prod, TM, TILE_N, *, hints=None):
    """`ct.launch(stream, grid, min_prod_kernel, args)`; `hints`: cuTile kernel hints."""
    x, row_min, row_prod = _as_tensor(x), _as_tensor(row_min), _as_tensor(row_prod)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), row_min, *row_min.shape, *row_min.stride())
    args += (row_prod, *row_prod.shape, *row_prod.stride(), TM, TILE_N)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        row_min.dtype,
        row_min.data_ptr() & 15,
        row_min.shape,
        row_min.stride(),
        row_prod.dtype,
        row_prod.data_ptr() & 15,
        row_prod.shape,
        row_prod.stride(),
        TM,
        TILE_N,
        num_ctas,
    )
    if _launch_known(min_prod_kernel, known, stream, grid, args):
        return
    _check_ndim("min_prod_kernel", "x", x, 2)
    _check_ndim("min_prod_kernel", "row_min", row_min, 1)
    _check_ndim("min_prod_kernel", "row_prod", row_prod, 1)
    num_warps = min(max(TM * TILE_N // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        row_min_div=_multiples(row_min.shape, row_min.stride()),
        row_prod_div=_multiples(row_prod.shape, row_prod.stride()),
        USE_INT64=_needs_int64(x, row_min, row_prod),
    )
    with _on_stream(stream):
        compiled = min_prod_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(min_prod_kernel, known, compiled, args, constexprs)


def launch(stream, x, row_min, row_prod):
    m, n = x.shape
    tm = 4
    tile_n = 1 << (n - 1).bit_length()
    launch_min_prod_kernel(stream, (triton.cdiv(m, tm),), x, row_min, row_prod, tm, tile_n)
