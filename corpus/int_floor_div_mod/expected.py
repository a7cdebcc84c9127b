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
def _floordiv(a, b):
    """cuTile's `//` floors, as Python's; Triton's integer `//` truncates toward zero."""
    if not isinstance(a + b, tl.tensor):  # Python ints (a loop counter under TRITON_INTERPRET)
        q = a // b
    elif (a + b).dtype.is_floating():  # the IEEE quotient rounded to the dtype, then floored
        dt = (a + b).dtype
        ft = dt if dt == tl.float64 else tl.float32  # (fp32's `/` is approximate: div_rn)
        x = tl.cast(tl.cast(a, dt), ft)
        y = tl.cast(tl.cast(b, dt), ft)
        q = tl.floor((x / y if dt == tl.float64 else tl.div_rn(x, y)).to(dt).to(ft)).to(dt)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) != (b < 0)), q - 1, q)
    return q


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


@triton.jit(do_not_specialize=["grid_x"])
def floor_div_mod_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    d_ptr,
    d_shape0,
    d_shape1,
    d_stride0,
    d_stride1,
    q_ptr,
    q_shape0,
    q_shape1,
    q_stride0,
    q_stride1,
    r_ptr,
    r_shape0,
    r_shape1,
    r_stride0,
    r_stride1,
    qs_ptr,
    qs_shape0,
    qs_shape1,
    qs_stride0,
    qs_stride1,
    rs_ptr,
    rs_shape0,
    rs_shape1,
    rs_stride0,
    rs_stride1,
    s,
    TM: tl.constexpr,
    TN: tl.constexpr,
    grid_x,
    x_div: tl.constexpr,
    d_div: tl.constexpr,
    q_div: tl.constexpr,
    r_div: tl.constexpr,
    qs_div: tl.constexpr,
    rs_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Integer floor division and modulo with Python semantics.

    q = x // d and r = x % d elementwise, and qs = x // s, rs = x % s for a runtime
    scalar divisor s. Quotients round toward -inf (not toward zero as in C), and the
    remainder takes the sign of the divisor, so x == q * d + r always holds.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_stride1 = x_stride1 // x_div[1] * x_div[1]
    x_shape0 = x_shape0 // x_div[2] * x_div[2]
    x_shape1 = x_shape1 // x_div[3] * x_div[3]
    d_stride0 = d_stride0 // d_div[0] * d_div[0]
    d_stride1 = d_stride1 // d_div[1] * d_div[1]
    d_shape0 = d_shape0 // d_div[2] * d_div[2]
    d_shape1 = d_shape1 // d_div[3] * d_div[3]
    q_stride0 = q_stride0 // q_div[0] * q_div[0]
    q_stride1 = q_stride1 // q_div[1] * q_div[1]
    q_shape0 = q_shape0 // q_div[2] * q_div[2]
    q_shape1 = q_shape1 // q_div[3] * q_div[3]
    r_stride0 = r_stride0 // r_div[0] * r_div[0]
    r_stride1 = r_stride1 // r_div[1] * r_div[1]
    r_shape0 = r_shape0 // r_div[2] * r_div[2]
    r_shape1 = r_shape1 // r_div[3] * r_div[3]
    qs_stride0 = qs_stride0 // qs_div[0] * qs_div[0]
    qs_stride1 = qs_stride1 // qs_div[1] * qs_div[1]
    qs_shape0 = qs_shape0 // qs_div[2] * qs_div[2]
    qs_shape1 = qs_shape1 // qs_div[3] * qs_div[3]
    rs_stride0 = rs_stride0 // rs_div[0] * rs_div[0]
    rs_stride1 = rs_stride1 // rs_div[1] * rs_div[1]
    rs_shape0 = rs_shape0 // rs_div[2] * rs_div[2]
    rs_shape1 = rs_shape1 // rs_div[3] * rs_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid_m = block_x
            pid_n = tl.program_id(1)
            offs_pid_m = tl.cast(pid_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs_pid_n = tl.cast(pid_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            mask_x = (offs_pid_m[:, None] < x_shape0) & (offs_pid_n[None, :] < x_shape1)
            xt = tl.load(
                x_ptr + offs_pid_m[:, None] * x_stride0 + offs_pid_n[None, :] * x_stride1,
                mask=mask_x,
            )
            # The divisor data has no zeros; the tail lanes are padded with 0 and then replaced
            # by 1 so that no lane ever divides by zero.
            mask_d = (offs_pid_m[:, None] < d_shape0) & (offs_pid_n[None, :] < d_shape1)
            dt = tl.load(
                d_ptr + offs_pid_m[:, None] * d_stride0 + offs_pid_n[None, :] * d_stride1,
                mask=mask_d,
                other=0.0,
            )
            dt = tl.where(dt == 0, 1, dt)
            mask_q = (offs_pid_m[:, None] < q_shape0) & (offs_pid_n[None, :] < q_shape1)
            tl.store(
                q_ptr + offs_pid_m[:, None] * q_stride0 + offs_pid_n[None, :] * q_stride1,
                _floordiv(xt, dt).to(q_ptr.dtype.element_ty),
                mask=mask_q,
            )
            mask_r = (offs_pid_m[:, None] < r_shape0) & (offs_pid_n[None, :] < r_shape1)
            tl.store(
                r_ptr + offs_pid_m[:, None] * r_stride0 + offs_pid_n[None, :] * r_stride1,
                _mod(xt, dt).to(r_ptr.dtype.element_ty),
                mask=mask_r,
            )
            mask_qs = (offs_pid_m[:, None] < qs_shape0) & (offs_pid_n[None, :] < qs_shape1)
            tl.store(
                qs_ptr + offs_pid_m[:, None] * qs_stride0 + offs_pid_n[None, :] * qs_stride1,
                _floordiv(xt, s).to(qs_ptr.dtype.element_ty),
                mask=mask_qs,
            )
            mask_rs = (offs_pid_m[:, None] < rs_shape0) & (offs_pid_n[None, :] < rs_shape1)
            tl.store(
                rs_ptr + offs_pid_m[:, None] * rs_stride0 + offs_pid_n[None, :] * rs_stride1,
                _mod(xt, s).to(rs_ptr.dtype.element_ty),
                mask=mask_rs,
            )


def launch_floor_div_mod_kernel(stream, grid, x, d, q, r, qs, rs, s, TM, TN, *, hints=None):
    """`ct.launch(stream, grid, floor_div_mod_kernel, args)`; `hints`: cuTile kernel hints."""
    x, d, q, r, qs = _as_tensor(x), _as_tensor(d), _as_tensor(q), _as_tensor(r), _as_tensor(qs)
    rs = _as_tensor(rs)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TM * TN)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (x, *x.shape, *x.stride(), d, *d.shape, *d.stride(), q, *q.shape, *q.stride())
    args += (r, *r.shape, *r.stride(), qs, *qs.shape, *qs.stride(), rs, *rs.shape, *rs.stride(), s)
    args += (TM, TN, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        x.dtype,
        x.data_ptr() & 15,
        x.shape,
        x.stride(),
        d.dtype,
        d.data_ptr() & 15,
        d.shape,
        d.stride(),
        q.dtype,
        q.data_ptr() & 15,
        q.shape,
        q.stride(),
        r.dtype,
        r.data_ptr() & 15,
        r.shape,
        r.stride(),
        qs.dtype,
        qs.data_ptr() & 15,
        qs.shape,
        qs.stride(),
        rs.dtype,
        rs.data_ptr() & 15,
        rs.shape,
        rs.stride(),
        _scalar_key(s),
        TM,
        TN,
        num_ctas,
    )
    if _launch_known(floor_div_mod_kernel, known, stream, grid, args):
        return
    _check_ndim("floor_div_mod_kernel", "x", x, 2)
    _check_ndim("floor_div_mod_kernel", "d", d, 2)
    _check_ndim("floor_div_mod_kernel", "q", q, 2)
    _check_ndim("floor_div_mod_kernel", "r", r, 2)
    _check_ndim("floor_div_mod_kernel", "qs", qs, 2)
    _check_ndim("floor_div_mod_kernel", "rs", rs, 2)
    num_warps = min(max(TM * TN // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        x_div=_multiples(x.shape, x.stride()),
        d_div=_multiples(d.shape, d.stride()),
        q_div=_multiples(q.shape, q.stride()),
        r_div=_multiples(r.shape, r.stride()),
        qs_div=_multiples(qs.shape, qs.stride()),
        rs_div=_multiples(rs.shape, rs.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(x, d, q, r, qs, rs),
    )
    with _on_stream(stream):
        compiled = floor_div_mod_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(floor_div_mod_kernel, known, compiled, args, constexprs)


def launch(stream, x, d, q, r, qs, rs, s):
    tm, tn = 16, 32
    m, n = x.shape
    launch_floor_div_mod_kernel(
        stream, (triton.cdiv(m, tm), triton.cdiv(n, tn)), x, d, q, r, qs, rs, s, tm, tn
    )
