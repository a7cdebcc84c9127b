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
def _log(x):
    """ct.log: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.log(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _sqrt(x):
    """ct.sqrt: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.sqrt(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


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
def _sin(x):
    """ct.sin: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.sin(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _cos(x):
    """ct.cos: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.cos(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _tanh_f(x):
    # tanh(x) = sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|); Taylor series near 0 where
    # 1 - e would cancel.
    ax = tl.abs(x)
    e = tl.exp(-2.0 * ax)
    big = (1.0 - e) / (1.0 + e)
    x2 = x * x
    small = ax * (1.0 - x2 * (1.0 / 3.0 - x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))))
    t = tl.where(ax < 0.0625, small, big)
    return tl.where(x < 0, -t, t)


@triton.jit
def _tanh(x):
    """ct.tanh: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = _tanh_f(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _atan_unit(t):
    # atan on [0, 1]: reduce by atan(t) = pi/6 + atan((t*sqrt3 - 1) / (t + sqrt3)) above
    # 2 - sqrt(3), then an odd Taylor series of degree 11 (error < 2e-8 on the reduced range).
    SQRT3: tl.constexpr = 1.7320508075688772
    big = t > 0.2679491924311227
    u = tl.where(big, (t * SQRT3 - 1.0) / (t + SQRT3), t)
    u2 = u * u
    p = u * (
        1.0
        - u2
        * (
            1.0 / 3.0
            - u2 * (1.0 / 5.0 - u2 * (1.0 / 7.0 - u2 * (1.0 / 9.0 - u2 * (1.0 / 11.0 - u2 / 13.0))))
        )
    )
    return tl.where(big, 0.5235987755982988 + p, p)


@triton.jit
def _atan2(y, x):
    """ct.atan2 in fp32: the angle of (x, y) in [-pi, pi]."""
    yf = tl.cast(y + 0 * x, tl.float32)  # (tl.cast: Python numbers under TRITON_INTERPRET too)
    xf = tl.cast(x + 0 * y, tl.float32)
    ax = tl.abs(xf)
    ay = tl.abs(yf)
    swap = ay > ax
    num = tl.where(swap, ax, ay)
    den = tl.where(swap, ay, ax)
    a = _atan_unit(tl.where(den == 0, 0.0, num / den))
    a = tl.where(swap, 1.5707963267948966 - a, a)
    a = tl.where(xf < 0, 3.141592653589793 - a, a)
    a = tl.where(yf < 0, -a, a)
    if isinstance(y + x, tl.tensor) and (y + x).dtype.is_floating():
        a = a.to((y + x).dtype)
    return a


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
def _ceil(x):
    """ct.ceil: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.ceil(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _exp2(x):
    """ct.exp2: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.exp2(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def _log2(x):
    """ct.log2: Triton's math takes fp32/fp64; fp16/bf16 go through fp32, ints give fp32."""
    # (isinstance, tl.cast: x may be a Python number, a loop counter under TRITON_INTERPRET)
    xf = x if isinstance(x, tl.tensor) and x.dtype.is_fp64() else tl.cast(x, tl.float32)
    y = tl.log2(xf)
    if isinstance(x, tl.tensor) and x.dtype.is_floating():
        y = y.to(x.dtype)
    return y


@triton.jit
def math_kernel(
    x_ptr,
    x_shape0,
    x_stride0,
    y_ptr,
    y_shape0,
    y_stride0,
    out_explog_ptr,
    out_explog_shape0,
    out_explog_stride0,
    out_trig_ptr,
    out_trig_shape0,
    out_trig_stride0,
    out_round_ptr,
    out_round_shape0,
    out_round_stride0,
    out_misc_ptr,
    out_misc_shape0,
    out_misc_stride0,
    TILE: tl.constexpr,
    x_div: tl.constexpr,
    y_div: tl.constexpr,
    out_explog_div: tl.constexpr,
    out_trig_div: tl.constexpr,
    out_round_div: tl.constexpr,
    out_misc_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """A tour of the unary/binary math functions on float32 data.

    x is strictly positive (so log, sqrt and rsqrt are defined); y has both signs.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape0 = x_shape0 // x_div[1] * x_div[1]
    y_stride0 = y_stride0 // y_div[0] * y_div[0]
    y_shape0 = y_shape0 // y_div[1] * y_div[1]
    out_explog_stride0 = out_explog_stride0 // out_explog_div[0] * out_explog_div[0]
    out_explog_shape0 = out_explog_shape0 // out_explog_div[1] * out_explog_div[1]
    out_trig_stride0 = out_trig_stride0 // out_trig_div[0] * out_trig_div[0]
    out_trig_shape0 = out_trig_shape0 // out_trig_div[1] * out_trig_div[1]
    out_round_stride0 = out_round_stride0 // out_round_div[0] * out_round_div[0]
    out_round_shape0 = out_round_shape0 // out_round_div[1] * out_round_div[1]
    out_misc_stride0 = out_misc_stride0 // out_misc_div[0] * out_misc_div[0]
    out_misc_shape0 = out_misc_shape0 // out_misc_div[1] * out_misc_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    pid = tl.program_id(0)
    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    mask_x = offs_pid < x_shape0
    xt = tl.load(x_ptr + offs_pid * x_stride0, mask=mask_x)
    mask_y = offs_pid < y_shape0
    yt = tl.load(y_ptr + offs_pid * y_stride0, mask=mask_y)

    explog = _exp(_negative(xt)) + _log(xt) + _sqrt(xt) + _rsqrt(xt)
    mask_out_explog = offs_pid < out_explog_shape0
    tl.store(
        out_explog_ptr + offs_pid * out_explog_stride0,
        explog.to(out_explog_ptr.dtype.element_ty),
        mask=mask_out_explog,
    )

    trig = _sin(yt) * _cos(xt) + _tanh(yt) + _atan2(yt, xt - 1.0)
    mask_out_trig = offs_pid < out_trig_shape0
    tl.store(
        out_trig_ptr + offs_pid * out_trig_stride0,
        trig.to(out_trig_ptr.dtype.element_ty),
        mask=mask_out_trig,
    )

    rounded = _floor(yt) * 10.0 + _ceil(xt) + tl.abs(yt)
    mask_out_round = offs_pid < out_round_shape0
    tl.store(
        out_round_ptr + offs_pid * out_round_stride0,
        rounded.to(out_round_ptr.dtype.element_ty),
        mask=mask_out_round,
    )

    # sqrt of a negative number is NaN; isnan + where turns those lanes into -1.
    root = _sqrt(yt)
    safe_root = tl.where(root != root, -1.0, root)
    misc = _exp2(yt) + _log2(xt) + safe_root + tl.maximum(xt, yt) * 0.5 - tl.minimum(xt, yt) * 0.25
    mask_out_misc = offs_pid < out_misc_shape0
    tl.store(
        out_misc_ptr + offs_pid * out_misc_stride0,
        misc.to(out_misc_ptr.dtype.element_ty),
        mask=mask_out_misc,
    )


def launch_math_kernel(
    stream, grid, x, y, out_explog, out_trig, out_round, out_misc, TILE, *, hints=None
):
    """`ct.launch(stream, grid, math_kernel, args)`; `hints`: cuTile kernel hints."""
    x, y, out_explog = _as_tensor(x), _as_tensor(y), _as_tensor(out_explog)
    out_trig, out_round = _as_tensor(out_trig), _as_tensor(out_round)
    out_misc = _as_tensor(out_misc)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    args = (x, *x.shape, *x.stride(), y, *y.shape, *y.stride())
    args += (
        out_explog,
        *out_explog.shape,
        *out_explog.stride(),
    )
    args += (
        out_trig,
        *out_trig.shape,
        *out_trig.stride(),
    )
    args += (
        out_round,
        *out_round.shape,
        *out_round.stride(),
    )
    args += (out_misc, *out_misc.shape, *out_misc.stride(), TILE)
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
        out_explog.dtype,
        out_explog.data_ptr() & 15,
        out_explog.shape,
        out_explog.stride(),
        out_trig.dtype,
        out_trig.data_ptr() & 15,
        out_trig.shape,
        out_trig.stride(),
        out_round.dtype,
        out_round.data_ptr() & 15,
        out_round.shape,
        out_round.stride(),
        out_misc.dtype,
        out_misc.data_ptr() & 15,
        out_misc.shape,
        out_misc.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(math_kernel, known, stream, grid, args):
        return
    _check_ndim("math_kernel", "x", x, 1)
    _check_ndim("math_kernel", "y", y, 1)
    _check_ndim("math_kernel", "out_explog", out_explog, 1)
    _check_ndim("math_kernel", "out_trig", out_trig, 1)
    _check_ndim("math_kernel", "out_round", out_round, 1)
    _check_ndim("math_kernel", "out_misc", out_misc, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        y_div=_multiples(y.shape, y.stride()),
        out_explog_div=_multiples(out_explog.shape, out_explog.stride()),
        out_trig_div=_multiples(out_trig.shape, out_trig.stride()),
        out_round_div=_multiples(out_round.shape, out_round.stride()),
        out_misc_div=_multiples(out_misc.shape, out_misc.stride()),
        USE_INT64=_needs_int64(x, y, out_explog, out_trig, out_round, out_misc),
    )
    with _on_stream(stream):
        compiled = math_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(math_kernel, known, compiled, args, constexprs)


def launch(stream, x, y, out_explog, out_trig, out_round, out_misc):
    tile = 256
    grid = (triton.cdiv(x.shape[0], tile),)
    launch_math_kernel(stream, grid, x, y, out_explog, out_trig, out_round, out_misc, tile)
