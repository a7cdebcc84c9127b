# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import math

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
def _extract_3d(x, index0, index1, index2, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr):
    """ct.extract: the subtile of shape (S0, ...) at grid position (index0, ...) of x. x is
    viewed as a grid of subtiles (G0, S0, ...) and tl.gather picks the subtile along each grid
    axis (the grid index may be a runtime value)."""
    G0: tl.constexpr = x.shape[0] // S0
    G1: tl.constexpr = x.shape[1] // S1
    G2: tl.constexpr = x.shape[2] // S2
    t = tl.reshape(x, (G0, S0, G1, S1, G2, S2))
    if G0 > 1:
        t = tl.gather(t, tl.full((1, S0, G1, S1, G2, S2), index0, tl.int32), 0)
    if G1 > 1:
        t = tl.gather(t, tl.full((1, S0, 1, S1, G2, S2), index1, tl.int32), 2)
    if G2 > 1:
        t = tl.gather(t, tl.full((1, S0, 1, S1, 1, S2), index2, tl.int32), 4)
    return tl.reshape(t, (S0, S1, S2))


@triton.jit
def hadamard_kernel(
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
    scale,
    TM: tl.constexpr,
    N: tl.constexpr,
    LOG_N: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[i, :] = scale * H_N @ x[i, :], the (Sylvester-ordered) Walsh-Hadamard transform of
    each row, N = 2**LOG_N.

    Each of the LOG_N butterfly stages pairs element i with element i + N/2 and writes their
    sum and difference to positions 2i and 2i + 1: the row is split into halves (reshape +
    extract), the butterflies are stacked (cat) and interleaved (permute + reshape). Every
    stage has the same shape, so the stages are a plain loop.
    """
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
    pid = tl.program_id(0)
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_n = tl.arange(0, N).to(OFFSET_DTYPE)
    mask_x = (offs_pid[:, None] < x_shape0) & (offs_n[None, :] < x_shape1)
    v = tl.load(
        x_ptr + offs_pid[:, None] * x_stride0 + offs_n[None, :] * x_stride1, mask=mask_x, other=0.0
    ).to(tl.float32)
    for stage in range(LOG_N):
        halves = tl.reshape(v, (TM, 2, N // 2))
        lo = _extract_3d(halves, 0, 0, 0, TM, 1, N // 2)
        hi = _extract_3d(halves, 0, 1, 0, TM, 1, N // 2)
        pairs = tl.reshape(tl.permute(tl.join(lo + hi, lo - hi), (0, 3, 1, 2)), (TM, 2, N // 2))
        v = tl.reshape(tl.permute(pairs, (0, 2, 1)), (TM, N))
    mask_out = (offs_pid[:, None] < out_shape0) & (offs_n[None, :] < out_shape1)
    tl.store(
        out_ptr + offs_pid[:, None] * out_stride0 + offs_n[None, :] * out_stride1,
        (v * scale).to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )


def launch_hadamard_kernel(stream, grid, x, out, scale, TM, N, LOG_N, *, hints=None):
    """`ct.launch(stream, grid, hadamard_kernel, args)`; `hints`: cuTile kernel hints."""
    x, out = _as_tensor(x), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), out, *out.shape, *out.stride(), scale, TM, N, LOG_N)
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
        _scalar_key(scale),
        TM,
        N,
        LOG_N,
        num_ctas,
    )
    if _launch_known(hadamard_kernel, known, stream, grid, args):
        return
    _check_ndim("hadamard_kernel", "x", x, 2)
    _check_ndim("hadamard_kernel", "out", out, 2)
    # about 8 elements per thread, 1 to 8 warps
    num_warps = min(max(TM * N // 256, TM * 2 * (N // 2) // 256, 1), 8)
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(x, out),
    )
    with _on_stream(stream):
        compiled = hadamard_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(hadamard_kernel, known, compiled, args, constexprs)


def launch(stream, x, out):
    rows, n = x.shape
    log_n = n.bit_length() - 1
    assert n == 1 << log_n, "the transform length must be a power of two"
    tm = 8
    launch_hadamard_kernel(
        stream, (triton.cdiv(rows, tm),), x, out, 1.0 / math.sqrt(n), tm, n, log_n
    )
