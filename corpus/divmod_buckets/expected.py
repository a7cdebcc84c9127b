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


BUCKET = 12
OFFSET = None  # an optional shift, decided when the module is written


@triton.jit(do_not_specialize=["grid_x"])
def bucket_kernel(
    keys_ptr,
    keys_shape0,
    keys_stride0,
    bucket_ptr,
    bucket_shape0,
    bucket_stride0,
    slot_ptr,
    slot_shape0,
    slot_stride0,
    weight_ptr,
    weight_shape0,
    weight_stride0,
    TILE: tl.constexpr,
    grid_x,
    keys_div: tl.constexpr,
    bucket_div: tl.constexpr,
    slot_div: tl.constexpr,
    weight_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Split signed keys into (bucket, slot) with floor semantics, and weight each key by
    its slot: weight = slot * 0.5 + 1 (a float32 constant written as numpy spells it)."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    keys_stride0 = keys_stride0 // keys_div[0] * keys_div[0]
    keys_shape0 = keys_shape0 // keys_div[1] * keys_div[1]
    bucket_stride0 = bucket_stride0 // bucket_div[0] * bucket_div[0]
    bucket_shape0 = bucket_shape0 // bucket_div[1] * bucket_div[1]
    slot_stride0 = slot_stride0 // slot_div[0] * slot_div[0]
    slot_shape0 = slot_shape0 // slot_div[1] * slot_div[1]
    weight_stride0 = weight_stride0 // weight_div[0] * weight_div[0]
    weight_shape0 = weight_shape0 // weight_div[1] * weight_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    BUCKET: tl.constexpr = 12
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            i = block_x
            offs_i = tl.cast(i, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
            mask_keys = offs_i < keys_shape0
            k = tl.load(keys_ptr + offs_i * keys_stride0, mask=mask_keys)
            b, s = (_floordiv(k, BUCKET), _mod(k, BUCKET))
            mask_bucket = offs_i < bucket_shape0
            tl.store(
                bucket_ptr + offs_i * bucket_stride0,
                b.to(bucket_ptr.dtype.element_ty),
                mask=mask_bucket,
            )
            mask_slot = offs_i < slot_shape0
            tl.store(
                slot_ptr + offs_i * slot_stride0, s.to(slot_ptr.dtype.element_ty), mask=mask_slot
            )
            half = tl.full((TILE,), 0.5, tl.float32)
            mask_weight = offs_i < weight_shape0
            tl.store(
                weight_ptr + offs_i * weight_stride0,
                (s.to(tl.float32) * half + 1.0).to(weight_ptr.dtype.element_ty),
                mask=mask_weight,
            )


def launch_bucket_kernel(stream, grid, keys, bucket, slot, weight, TILE, *, hints=None):
    """`ct.launch(stream, grid, bucket_kernel, args)`; `hints`: cuTile kernel hints."""
    keys, bucket, slot = _as_tensor(keys), _as_tensor(bucket), _as_tensor(slot)
    weight = _as_tensor(weight)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // TILE))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (keys, *keys.shape, *keys.stride(), bucket, *bucket.shape, *bucket.stride())
    args += (slot, *slot.shape, *slot.stride(), weight, *weight.shape, *weight.stride(), TILE)
    args += (grid_x,)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        keys.dtype,
        keys.data_ptr() & 15,
        keys.shape,
        keys.stride(),
        bucket.dtype,
        bucket.data_ptr() & 15,
        bucket.shape,
        bucket.stride(),
        slot.dtype,
        slot.data_ptr() & 15,
        slot.shape,
        slot.stride(),
        weight.dtype,
        weight.data_ptr() & 15,
        weight.shape,
        weight.stride(),
        TILE,
        num_ctas,
    )
    if _launch_known(bucket_kernel, known, stream, grid, args):
        return
    _check_ndim("bucket_kernel", "keys", keys, 1)
    _check_ndim("bucket_kernel", "bucket", bucket, 1)
    _check_ndim("bucket_kernel", "slot", slot, 1)
    _check_ndim("bucket_kernel", "weight", weight, 1)
    num_warps = min(max(TILE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        keys_div=_multiples(keys.shape, keys.stride()),
        bucket_div=_multiples(bucket.shape, bucket.stride()),
        slot_div=_multiples(slot.shape, slot.stride()),
        weight_div=_multiples(weight.shape, weight.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(keys, bucket, slot, weight),
    )
    with _on_stream(stream):
        compiled = bucket_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(bucket_kernel, known, compiled, args, constexprs)


def launch(stream, keys, bucket, slot, weight):
    tile = 128
    launch_bucket_kernel(
        stream, (triton.cdiv(keys.shape[0], tile),), keys, bucket, slot, weight, tile
    )
