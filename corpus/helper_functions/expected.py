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
def _negative(x):
    """cuTile negates a boolean as an int32 (-True == -1); Triton's `-` would keep int1."""
    if isinstance(x, tl.tensor) and x.dtype == tl.int1:
        y = -x.to(tl.int32)
    else:
        y = -x
    return y


@triton.jit
def _exp(x):
    """ct.exp: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.exp(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _store_tile_2d(ptr, shape, stride, idx, tile, USE_INT64, CHECK_BOUNDS=True):
    """ct.store: `tile`, cast to the array's dtype, at tile `idx` (out-of-bounds ones dropped)."""
    TILE: tl.constexpr = tile.shape
    offs0 = (tl.cast(idx[0], tl.int64) if USE_INT64 else idx[0]) * TILE[0] + tl.arange(0, TILE[0])
    offs1 = (tl.cast(idx[1], tl.int64) if USE_INT64 else idx[1]) * TILE[1] + tl.arange(0, TILE[1])
    ptrs = ptr + offs0[:, None] * stride[0] + offs1[None, :] * stride[1]
    mask = (offs0[:, None] < shape[0]) & (offs1[None, :] < shape[1]) if CHECK_BOUNDS else True
    tl.store(ptrs, tile.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def silu(x):
    """x * sigmoid(x), as a reusable tile function."""
    return x / (1.0 + _exp(_negative(x)))


@triton.jit
def block_coords():
    """Plain (undecorated) helper returning a tuple; it is compiled as tile code when
    called from a kernel."""
    return (tl.program_id(0), tl.program_id(1))


@triton.jit
def load_f32(
    arr_ptr,
    arr_shape0,
    arr_shape1,
    arr_stride0,
    arr_stride1,
    i,
    j,
    TM: tl.constexpr,
    TN: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Plain helper with constant tile sizes passed through from the kernel."""
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    offs_arr0 = tl.cast(i, OFFSET_DTYPE) * TM + tl.arange(0, TM)
    offs_arr1 = tl.cast(j, OFFSET_DTYPE) * TN + tl.arange(0, TN)
    mask_arr = (offs_arr0[:, None] < arr_shape0) & (offs_arr1[None, :] < arr_shape1)
    return tl.load(
        arr_ptr + offs_arr0[:, None] * arr_stride0 + offs_arr1[None, :] * arr_stride1,
        mask=mask_arr,
        other=0.0,
    ).to(tl.float32)


@triton.jit
def swiglu_kernel(
    gate_ptr,
    gate_shape0,
    gate_shape1,
    gate_stride0,
    gate_stride1,
    up_ptr,
    up_shape0,
    up_shape1,
    up_stride0,
    up_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    gate_div: tl.constexpr,
    up_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """SwiGLU activation: out = silu(gate) * up, computed in float32."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    gate_stride0 = gate_stride0 // gate_div[0] * gate_div[0]
    gate_stride1 = gate_stride1 // gate_div[1] * gate_div[1]
    gate_shape0 = gate_shape0 // gate_div[2] * gate_div[2]
    gate_shape1 = gate_shape1 // gate_div[3] * gate_div[3]
    up_stride0 = up_stride0 // up_div[0] * up_div[0]
    up_stride1 = up_stride1 // up_div[1] * up_div[1]
    up_shape0 = up_shape0 // up_div[2] * up_div[2]
    up_shape1 = up_shape1 // up_div[3] * up_div[3]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    i, j = block_coords()
    g = load_f32(
        gate_ptr, gate_shape0, gate_shape1, gate_stride0, gate_stride1, i, j, TM, TN, USE_INT64
    )
    u = load_f32(up_ptr, up_shape0, up_shape1, up_stride0, up_stride1, i, j, TM, TN, USE_INT64)
    _store_tile_2d(
        out_ptr,
        (out_shape0, out_shape1),
        (out_stride0, out_stride1),
        (i, j),
        (silu(g) * u).to(out_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_swiglu_kernel(stream, grid, gate, up, out, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, swiglu_kernel, args)`; `hints`: cuTile kernel hints."""
    gate, up, out = _as_tensor(gate), _as_tensor(up), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (gate, *gate.shape, *gate.stride(), up, *up.shape, *up.stride())
    args += (out, *out.shape, *out.stride(), TM, TN)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        gate.dtype,
        gate.data_ptr() & 15,
        gate.shape,
        gate.stride(),
        up.dtype,
        up.data_ptr() & 15,
        up.shape,
        up.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(swiglu_kernel, known, stream, grid, args):
        return
    _check_ndim("swiglu_kernel", "gate", gate, 2)
    _check_ndim("swiglu_kernel", "up", up, 2)
    _check_ndim("swiglu_kernel", "out", out, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        gate_div=_multiples(gate.shape, gate.stride()),
        up_div=_multiples(up.shape, up.stride()),
        out_div=_multiples(out.shape, out.stride()),
        USE_INT64=_needs_int64(gate, up, out),
    )
    with _on_stream(stream):
        compiled = swiglu_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(swiglu_kernel, known, compiled, args, constexprs)


def launch(stream, gate, up, out):
    tm, tn = 16, 64
    m, n = gate.shape
    launch_swiglu_kernel(stream, (triton.cdiv(m, tm), triton.cdiv(n, tn)), gate, up, out, tm, tn)
