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


@triton.jit
def _pow(x, y):
    """x ** y for float tiles: exp2(y * log2|x|) in fp32, negative for odd integer powers of a
    negative base, NaN for other powers of a negative base, 1 for y == 0."""
    xf = tl.cast(x + 0 * y, tl.float32)  # (tl.cast: Python numbers under TRITON_INTERPRET too)
    yf = tl.cast(y + 0 * x, tl.float32)
    r = tl.exp2(yf * tl.log2(tl.abs(xf)))
    y_int = tl.floor(yf) == yf
    y_odd = y_int & (tl.floor(yf * 0.5) * 2.0 != yf)
    r = tl.where(xf < 0, tl.where(y_int, tl.where(y_odd, -r, r), float("nan")), r)
    r = tl.where(yf == 0, 1.0, r)
    return r.to((x + y).dtype) if isinstance(x + y, tl.tensor) else r


@triton.jit
def _negative(x):
    """cuTile negates a boolean as an int32 (-True == -1); Triton's `-` would keep int1."""
    if isinstance(x, tl.tensor) and x.dtype == tl.int1:
        y = -x.to(tl.int32)
    else:
        y = -x
    return y


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
def put_row(
    arr_ptr,
    arr_shape0,
    arr_shape1,
    arr_stride0,
    arr_stride1,
    row: tl.constexpr,
    pid,
    t,
    TILE: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Store 1-D tile `t` as chunk `pid` of row `row` of the 2-D array `arr`."""
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    offs_arr0 = tl.cast(row, OFFSET_DTYPE) + tl.arange(0, 1)
    offs_arr1 = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    mask_arr = (offs_arr0[:, None] < arr_shape0) & (offs_arr1[None, :] < arr_shape1)
    tl.store(
        arr_ptr + offs_arr0[:, None] * arr_stride0 + offs_arr1[None, :] * arr_stride1,
        tl.reshape(t, (1, TILE)).to(arr_ptr.dtype.element_ty),
        mask=mask_arr,
    )


@triton.jit(do_not_specialize=["grid_x"])
def functional_ops_kernel(
    a_ptr,
    a_shape0,
    a_stride0,
    b_ptr,
    b_shape0,
    b_stride0,
    i_ptr,
    i_shape0,
    i_stride0,
    j_ptr,
    j_shape0,
    j_stride0,
    fres_ptr,
    fres_shape0,
    fres_shape1,
    fres_stride0,
    fres_stride1,
    ires_ptr,
    ires_shape0,
    ires_shape1,
    ires_stride0,
    ires_stride1,
    TILE: tl.constexpr,
    grid_x,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    i_div: tl.constexpr,
    j_div: tl.constexpr,
    fres_div: tl.constexpr,
    ires_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Elementwise arithmetic written with the functional ct.* spellings.

    Row r of fres / ires receives the result of the r-th operation on a chunk of the
    1-D inputs. b is positive; a / b is never close to an integer (so floordiv and mod
    are well conditioned).
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_shape0 = a_shape0 // a_div[1] * a_div[1]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_shape0 = b_shape0 // b_div[1] * b_div[1]
    i_stride0 = i_stride0 // i_div[0] * i_div[0]
    i_shape0 = i_shape0 // i_div[1] * i_div[1]
    j_stride0 = j_stride0 // j_div[0] * j_div[0]
    j_shape0 = j_shape0 // j_div[1] * j_div[1]
    fres_stride0 = fres_stride0 // fres_div[0] * fres_div[0]
    fres_stride1 = fres_stride1 // fres_div[1] * fres_div[1]
    fres_shape0 = fres_shape0 // fres_div[2] * fres_div[2]
    fres_shape1 = fres_shape1 // fres_div[3] * fres_div[3]
    ires_stride0 = ires_stride0 // ires_div[0] * ires_div[0]
    ires_stride1 = ires_stride1 // ires_div[1] * ires_div[1]
    ires_shape0 = ires_shape0 // ires_div[2] * ires_div[2]
    ires_shape1 = ires_shape1 // ires_div[3] * ires_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid = block_x
            offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
            mask_a = offs_pid < a_shape0
            at = tl.load(a_ptr + offs_pid * a_stride0, mask=mask_a)
            mask_b = offs_pid < b_shape0
            bt = tl.load(b_ptr + offs_pid * b_stride0, mask=mask_b)
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                0,
                pid,
                at + bt,
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                1,
                pid,
                at - bt,
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                2,
                pid,
                at * bt,
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                3,
                pid,
                at / bt,
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                4,
                pid,
                _floordiv(at, bt),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                5,
                pid,
                _mod(at, bt),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                6,
                pid,
                _pow(bt, at * 0.25),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                7,
                pid,
                tl.minimum(at, bt),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                8,
                pid,
                tl.maximum(at, bt),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                9,
                pid,
                tl.where(at > bt, at, _negative(bt)),
                TILE,
                USE_INT64,
            )
            put_row(
                fres_ptr,
                fres_shape0,
                fres_shape1,
                fres_stride0,
                fres_stride1,
                10,
                pid,
                tl.where(_floor(at) == _floor(bt), at + bt, at - bt),
                TILE,
                USE_INT64,
            )

            mask_i = offs_pid < i_shape0
            it = tl.load(i_ptr + offs_pid * i_stride0, mask=mask_i)
            mask_j = offs_pid < j_shape0
            jt = tl.load(j_ptr + offs_pid * j_stride0, mask=mask_j)
            put_row(
                ires_ptr,
                ires_shape0,
                ires_shape1,
                ires_stride0,
                ires_stride1,
                0,
                pid,
                it & jt,
                TILE,
                USE_INT64,
            )
            put_row(
                ires_ptr,
                ires_shape0,
                ires_shape1,
                ires_stride0,
                ires_stride1,
                1,
                pid,
                it | jt,
                TILE,
                USE_INT64,
            )
            put_row(
                ires_ptr,
                ires_shape0,
                ires_shape1,
                ires_stride0,
                ires_stride1,
                2,
                pid,
                it ^ jt,
                TILE,
                USE_INT64,
            )
            put_row(
                ires_ptr,
                ires_shape0,
                ires_shape1,
                ires_stride0,
                ires_stride1,
                3,
                pid,
                it & jt ^ (it | 0x0F0F),
                TILE,
                USE_INT64,
            )


def launch_functional_ops_kernel(stream, grid, a, b, i, j, fres, ires, TILE, *, hints=None):
    """`ct.launch(stream, grid, functional_ops_kernel, args)`; `hints`: cuTile kernel hints."""
    a, b, i, j, fres = _as_tensor(a), _as_tensor(b), _as_tensor(i), _as_tensor(j), _as_tensor(fres)
    ires = _as_tensor(ires)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TILE))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (a, *a.shape, *a.stride(), b, *b.shape, *b.stride(), i, *i.shape, *i.stride())
    args += (j, *j.shape, *j.stride(), fres, *fres.shape, *fres.stride())
    args += (ires, *ires.shape, *ires.stride(), TILE, grid_x)
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
        i.dtype,
        i.data_ptr() & 15,
        i.shape,
        i.stride(),
        j.dtype,
        j.data_ptr() & 15,
        j.shape,
        j.stride(),
        fres.dtype,
        fres.data_ptr() & 15,
        fres.shape,
        fres.stride(),
        ires.dtype,
        ires.data_ptr() & 15,
        ires.shape,
        ires.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(functional_ops_kernel, known, stream, grid, args):
        return
    _check_ndim("functional_ops_kernel", "a", a, 1)
    _check_ndim("functional_ops_kernel", "b", b, 1)
    _check_ndim("functional_ops_kernel", "i", i, 1)
    _check_ndim("functional_ops_kernel", "j", j, 1)
    _check_ndim("functional_ops_kernel", "fres", fres, 2)
    _check_ndim("functional_ops_kernel", "ires", ires, 2)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        a_div=_multiples(a.shape, a.stride()),
        b_div=_multiples(b.shape, b.stride()),
        i_div=_multiples(i.shape, i.stride()),
        j_div=_multiples(j.shape, j.stride()),
        fres_div=_multiples(fres.shape, fres.stride()),
        ires_div=_multiples(ires.shape, ires.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(a, b, i, j, fres, ires),
    )
    with _on_stream(stream):
        compiled = functional_ops_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(functional_ops_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, i, j, fres, ires):
    tile = 128
    launch_functional_ops_kernel(
        stream, (triton.cdiv(a.shape[0], tile),), a, b, i, j, fres, ires, tile
    )
