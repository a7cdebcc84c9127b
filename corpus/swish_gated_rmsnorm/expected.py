# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _as_tensor,
    _by_target,
    _callee_error,
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
def _sum(x, AXIS: tl.constexpr, KEEP_DIMS: tl.constexpr):
    """ct.sum keeps the input dtype; tl.sum accumulates small types in a wider one.
    Booleans are summed as int32, as in cuTile."""
    if x.dtype == tl.int1:
        x = x.to(tl.int32)
    return tl.sum(x, axis=AXIS, keep_dims=KEEP_DIMS).to(x.dtype)


@triton.jit
def _rsqrt(x):
    """ct.rsqrt: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.rsqrt(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def silu(g, fast: tl.constexpr):
    """g * sigmoid(g); `fast` takes ct.sigmoid, which cuda-tile releases after 1.7.0 define."""
    if fast:
        tl.static_assert(
            False,
            "ct.sigmoid is not in cuda-tile 1.7.0; "
            "this launch takes the branch of `if fast` that uses it",
        )
    else:
        s = 1.0 / (1.0 + _exp(_negative(g)))
    return g * s


@triton.jit(do_not_specialize=["grid_x"])
def swish_gated_rmsnorm(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    gate_ptr,
    gate_shape0,
    gate_shape1,
    gate_stride0,
    gate_stride1,
    w_ptr,
    w_shape0,
    w_stride0,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    eps,
    TN: tl.constexpr,
    FAST: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    gate_div: tl.constexpr,
    w_div: tl.constexpr,
    out_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out = rmsnorm(x * silu(gate)) * w, one row per block (TN >= the row length)."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    gate_stride0 = gate_stride0 // gate_div[0] * gate_div[0]
    gate_stride1 = gate_stride1 // gate_div[1] * gate_div[1]
    gate_shape0 = gate_shape0 // gate_div[2] * gate_div[2]
    gate_shape1 = gate_shape1 // gate_div[3] * gate_div[3]
    w_stride0 = w_stride0 // w_div[0] * w_div[0]
    w_shape0 = w_shape0 // w_div[1] * w_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_stride1 = out_stride1 // out_div[1] * out_div[1]
    out_shape0 = out_shape0 // out_div[2] * out_div[2]
    out_shape1 = out_shape1 // out_div[3] * out_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            row = block_x
            n = x_shape1
            offs_row = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
            offs_tn = tl.arange(0, TN).to(OFFSET_DTYPE)
            mask_x = (offs_row[:, None] < x_shape0) & (offs_tn[None, :] < x_shape1)
            xt = tl.load(
                x_ptr + offs_row[:, None] * x_stride0 + offs_tn[None, :] * x_stride1,
                mask=mask_x,
                other=0.0,
            ).to(tl.float32)
            mask_gate = (offs_row[:, None] < gate_shape0) & (offs_tn[None, :] < gate_shape1)
            gt = tl.load(
                gate_ptr + offs_row[:, None] * gate_stride0 + offs_tn[None, :] * gate_stride1,
                mask=mask_gate,
                other=0.0,
            ).to(tl.float32)
            mask_w = offs_tn < w_shape0
            wt = tl.load(w_ptr + offs_tn * w_stride0, mask=mask_w, other=0.0).to(tl.float32)
            h = xt * silu(gt, FAST)
            inv = _rsqrt(_sum(h * h, 1, True) / n + eps)
            mask_out = (offs_row[:, None] < out_shape0) & (offs_tn[None, :] < out_shape1)
            tl.store(
                out_ptr + offs_row[:, None] * out_stride0 + offs_tn[None, :] * out_stride1,
                (h * inv * wt[None, :]).to(out_ptr.dtype.element_ty),
                mask=mask_out,
            )


def launch_swish_gated_rmsnorm(stream, grid, x, gate, w, out, eps, TN, FAST, *, hints=None):
    """`ct.launch(stream, grid, swish_gated_rmsnorm, args)`; `hints`: cuTile kernel hints."""
    x, gate, w, out = _as_tensor(x), _as_tensor(gate), _as_tensor(w), _as_tensor(out)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TN))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), gate, *gate.shape, *gate.stride(), w, *w.shape, *w.stride())
    args += (out, *out.shape, *out.stride(), eps, TN, FAST, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        gate.dtype,
        gate.data_ptr() & 15,
        gate.shape,
        gate.stride(),
        w.dtype,
        w.data_ptr() & 15,
        w.shape,
        w.stride(),
        out.dtype,
        out.data_ptr() & 15,
        out.shape,
        out.stride(),
        _scalar_key(eps),
        TN,
        FAST,
        num_ctas,
    )
    if _launch_known(swish_gated_rmsnorm, known, stream, grid, args):
        return
    _check_ndim("swish_gated_rmsnorm", "x", x, 2)
    _check_ndim("swish_gated_rmsnorm", "gate", gate, 2)
    _check_ndim("swish_gated_rmsnorm", "w", w, 1)
    _check_ndim("swish_gated_rmsnorm", "out", out, 2)
    num_warps = min(max(TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        gate_div=_multiples(gate.shape, gate.stride()),
        w_div=_multiples(w.shape, w.stride()),
        out_div=_multiples(out.shape, out.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, gate, w, out),
    )
    with _on_stream(stream):
        try:
            compiled = swish_gated_rmsnorm[_grid(grid)](
                *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
            )
        except triton.CompilationError as e:
            # a failed tl.static_assert of a callee: its own message
            raise _callee_error(e) from e
        _remember_launch(swish_gated_rmsnorm, known, compiled, args, constexprs)


def launch(stream, x, gate, w, out, eps):
    rows, cols = x.shape
    tn = 1 << (cols - 1).bit_length()
    launch_swish_gated_rmsnorm(stream, (rows,), x, gate, w, out, eps, tn, False)
