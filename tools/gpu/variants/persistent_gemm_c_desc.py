# Experiment (issue 23): `tile2triton convert benchmarks/upstream/persistent_gemm/kernel.py`
# at 825d97e, then C stored through a TMA descriptor. Timed with `bench --translation`.
"""Statically persistent GEMM: one block per SM walks the output tiles in steps of
ct.num_blocks(0), in the same grouped order a 1-D grid of tiles would take."""
import contextlib
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _floordiv(a, b):
    """cuTile `//` rounds toward negative infinity (as Python does); Triton's integer `//`
    truncates toward zero, so the quotient steps down where the signs differ."""
    if (a + b).dtype.is_floating():
        # the quotient rounded to the dtype (an IEEE division: Triton's fp32 `/` is
        # approximate, and a quotient that is exactly 6 could floor to 5), then floored
        dt = (a + b).dtype
        if dt == tl.float64:
            q = tl.floor(tl.cast(a, dt) / tl.cast(b, dt))
        else:  # 16-bit values divide exactly enough in fp32, then round to their dtype
            x = tl.cast(tl.cast(a, dt), tl.float32)
            y = tl.cast(tl.cast(b, dt), tl.float32)
            q = tl.floor(tl.div_rn(x, y).to(dt).to(tl.float32)).to(dt)
    else:
        q = a // b
        q = tl.where((q * b != a) & ((a < 0) != (b < 0)), q - 1, q)
    return q


@triton.jit
def _mod(a, b):
    """cuTile `%` takes the sign of the divisor (floor modulo); Triton's integer `%` takes the
    sign of the dividend, so a nonzero remainder of the wrong sign is moved by one divisor."""
    if (a + b).dtype.is_floating():
        # Triton's float % is C's fmod, which is exact; 16-bit floats take it in fp32, where
        # their values and the remainder are exact too, and round once at the end
        dt = (a + b).dtype
        if dt.primitive_bitwidth < 32:
            x = tl.cast(tl.cast(a, dt), tl.float32)
            y = tl.cast(tl.cast(b, dt), tl.float32)
        else:
            x = tl.cast(a, dt)
            y = tl.cast(b, dt)
        r = x % y
        r = tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).to(dt)
    else:
        r = a % b
        r = tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    return r


@triton.jit
def _dot_by_sum(x, y, ACC: tl.constexpr):
    # the matrix product of 2-D or 3-D tiles as a sum of elementwise products in ACC, for the
    # operands tl.dot does not take (uint8, mixed dtypes, 16-bit floats in a float64 product)
    if len(x.shape) == 2:
        return tl.sum(x.to(ACC)[:, :, None] * y.to(ACC)[None, :, :], axis=1)
    else:
        return tl.sum(x.to(ACC)[:, :, :, None] * y.to(ACC)[:, None, :, :], axis=2)


@triton.jit
def _dot_any_size(x, y, acc, PRECISION: tl.constexpr):
    # cuTile's mma takes any size; tl.dot needs M, N >= 16, K >= 16 (32 for 8-bit operands)
    # and one dtype, not uint8: other products are summed elementwise, but a small 2-D one is
    # spread over the minimum (elements repeated, the depth's repeats zeroed) and one of the
    # result's equal copies kept. (max_num_imprecise_acc=0: fp8 accumulates in fp32 on sm_90)
    M: tl.constexpr = x.shape[-2]
    K: tl.constexpr = x.shape[-1]
    N: tl.constexpr = y.shape[-1]
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    if M >= 16 and N >= 16 and K >= MIN_K and x.dtype == y.dtype and x.dtype != tl.uint8:
        return tl.dot(
            x, y, acc, input_precision=PRECISION, out_dtype=acc.dtype, max_num_imprecise_acc=0
        )
    elif x.dtype != y.dtype or x.dtype == tl.uint8 or len(x.shape) == 3:
        return acc + _dot_by_sum(x, y, acc.dtype)
    else:
        RM: tl.constexpr = 16 // M if M < 16 else 1
        RN: tl.constexpr = 16 // N if N < 16 else 1
        RK: tl.constexpr = MIN_K // K if K < MIN_K else 1
        # (an operand large enough reaches tl.dot as it is, pipelined as any dot operand)
        xs = x
        if RM > 1 or RK > 1:
            xs = tl.reshape(tl.broadcast_to(x[:, None, :, None], (M, RM, K, RK)), (M * RM, K * RK))
            if RK > 1:
                xs = tl.where((tl.arange(0, K * RK) % RK == 0)[None, :], xs, tl.zeros_like(xs))
        ys = y
        if RN > 1 or RK > 1:
            ys = tl.reshape(tl.broadcast_to(y[:, None, :, None], (K, RK, N, RN)), (K * RK, N * RN))
        zero = tl.zeros((M * RM, N * RN), acc.dtype)
        prod = tl.dot(
            xs, ys, zero, input_precision=PRECISION, out_dtype=acc.dtype, max_num_imprecise_acc=0
        )
        if RM > 1 or RN > 1:
            prod = tl.max(tl.max(tl.reshape(prod, (M, RM, N, RN)), axis=3), axis=1)
        return acc + prod.to(acc.dtype)


_SAME_STREAM = contextlib.nullcontext()  # (_on_stream: the launch stays on the current stream)


def _as_tensor(x):
    """A tensor for `x` (any DLPack array); float8_e8m0fnu, which Triton lacks, as bytes."""
    x = x if isinstance(x, torch.Tensor) else torch.from_dlpack(x)
    return x.view(torch.uint8) if x.dtype is getattr(torch, "float8_e8m0fnu", None) else x


def _check_ndim(k, name, x, ndim):
    if x.dim() != ndim:
        raise ValueError(f"{k}: `{name}` must have {ndim} dimension(s), got shape {tuple(x.shape)}")


def _needs_int64(*arrays):
    """Whether some element offset reaches 2**31: offsets in int64, else in int32 (cheaper)."""
    for x in arrays:
        if x.numel() < 2**31 - 1 and x.is_contiguous():  # the common case, without a loop
            continue
        if sum((n - 1) * abs(s) for n, s in zip(x.shape, x.stride()) if n > 0) >= 2**31 - 1:
            return True
    return False


@functools.lru_cache(1024)  # per layout: it took a third of a launcher's own host time
def _multiples(shape, s):
    """`*_div`: the largest of 16/8/4/2/1 dividing each stride, then each unit-stride extent."""
    return (*map(_multiple, s), *(_multiple(n) if d == 1 else 1 for n, d in zip(shape, s)))


def _multiple(v):
    return 16 if v % 16 == 0 else 8 if v % 8 == 0 else 4 if v % 4 == 0 else 2 if v % 2 == 0 else 1


# TMA loads: their dtypes (measured: fp16 products); per device, whether it has TMA
_TMA_DTYPES = (torch.float16, torch.bfloat16)
_TMA_GPUS = {}
_TensorDescriptor = None


def _tma_descriptor(x, block):
    """A TMA descriptor of the 2-D `x` for `block` tiles, or None where TMA would not read what
    the kernel's pointer loads read (alignment, strides, overlapping rows, narrow tiles)."""
    if x.dtype not in _TMA_DTYPES or x.dim() != 2:
        return None
    if x.is_cuda:
        gpu = x.get_device()
        ok = _TMA_GPUS.get(gpu)
        if ok is None:
            ok = _TMA_GPUS[gpu] = (
                torch.version.hip is None and torch.cuda.get_device_capability(gpu)[0] >= 9
            )
        if not ok:
            return None
    elif not x.is_cpu or not _tma_target():
        return None
    rows, cols = x.shape
    row_stride, col_stride = x.stride()
    size = x.element_size()
    bm, bn = block
    if (
        col_stride != 1
        or row_stride < cols
        or row_stride * size % 16
        or x.data_ptr() % 16
        or not 0 < rows < 2**31
        or not 0 < cols < 2**31
        or type(bm) is not int
        or type(bn) is not int
        or not 0 < bm <= 256
        or not 0 < bn <= 256
        or bm & (bm - 1)
        or bn & (bn - 1)
        or bn * size < 16
    ):
        return None
    global _TensorDescriptor
    if _TensorDescriptor is None:  # imported once: a `from` import costs ~20 us per call
        from triton.tools.tensor_descriptor import TensorDescriptor as _TensorDescriptor
    return _TensorDescriptor(x, [rows, cols], [row_stride, 1], [bm, bn])


def _tma_target():
    """For CPU tensors (the interpreter, a compile check): TMA unless torch names a GPU without."""
    if torch.version.hip is not None:
        return False
    try:
        return torch.cuda.get_device_capability()[0] >= 9
    except (AssertionError, RuntimeError):  # a torch without CUDA, or no GPU
        return True


def _ptxas_target():
    """Whether ptxas options apply (not on ROCm, which refuses them)."""
    return torch.version.hip is None


def _grid(grid):
    """cuTile's grid: an int or a tuple of up to three; the empty tuple is one block."""
    return (tuple(grid) or (1,)) if isinstance(grid, (tuple, list)) else (int(grid),)


def _on_stream(stream):
    """A context on `stream` (torch, __cuda_stream__, a handle or None); the current one: none."""
    if isinstance(stream, torch.cuda.Stream):
        current = stream == torch.cuda.current_stream(stream.device)
        return _SAME_STREAM if current else torch.cuda.stream(stream)
    if stream is None or not torch.cuda.is_available():
        return _SAME_STREAM
    handle = stream.__cuda_stream__()[1] if hasattr(stream, "__cuda_stream__") else stream
    return torch.cuda.stream(torch.cuda.ExternalStream(int(handle)))


@triton.jit
def gemm_persistent(
    A_ptr,
    A_shape0,
    A_shape1,
    A_stride0,
    A_stride1,
    B_ptr,
    B_shape0,
    B_shape1,
    B_stride0,
    B_stride1,
    C_ptr,
    C_shape0,
    C_shape1,
    C_stride0,
    C_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    GROUP: tl.constexpr,
    A_desc,
    B_desc,
    C_desc,
    A_div: tl.constexpr,
    B_div: tl.constexpr,
    C_div: tl.constexpr,
    FLATTEN: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    A_stride0 = A_stride0 // A_div[0] * A_div[0]
    A_stride1 = A_stride1 // A_div[1] * A_div[1]
    A_shape0 = A_shape0 // A_div[2] * A_div[2]
    A_shape1 = A_shape1 // A_div[3] * A_div[3]
    B_stride0 = B_stride0 // B_div[0] * B_div[0]
    B_stride1 = B_stride1 // B_div[1] * B_div[1]
    B_shape0 = B_shape0 // B_div[2] * B_div[2]
    B_shape1 = B_shape1 // B_div[3] * B_div[3]
    C_stride0 = C_stride0 // C_div[0] * C_div[0]
    C_stride1 = C_stride1 // C_div[1] * C_div[1]
    C_shape0 = C_shape0 // C_div[2] * C_div[2]
    C_shape1 = C_shape1 // C_div[3] * C_div[3]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    m_tiles = tl.cdiv(A_shape0, TM)
    n_tiles = tl.cdiv(B_shape1, TN)
    k_tiles = tl.cdiv(A_shape1, TK)
    per_group = GROUP * n_tiles
    for tile in tl.range(tl.program_id(0), m_tiles * n_tiles, tl.num_programs(0), flatten=FLATTEN):
        first_row = _floordiv(tile, per_group) * GROUP
        rows = tl.minimum(m_tiles - first_row, GROUP)
        tile_m = first_row + _mod(_mod(tile, per_group), rows)
        tile_n = _floordiv(_mod(tile, per_group), rows)
        acc = tl.zeros((TM, TN), dtype=tl.float32)
        for kk in range(k_tiles):
            offs_A0 = tl.cast(tile_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs_kk = tl.cast(kk, OFFSET_DTYPE) * TK + tl.arange(0, TK)
            mask_A = (offs_A0[:, None] < A_shape0) & (offs_kk[None, :] < A_shape1)
            # tile2triton: latency=4 of ct.load left out (Triton schedules memory itself)
            a = (
                A_desc.load([tile_m * TM, kk * TK])
                if A_desc is not None
                else tl.load(
                    A_ptr + offs_A0[:, None] * A_stride0 + offs_kk[None, :] * A_stride1,
                    mask=mask_A,
                    other=0.0,
                )
            )
            offs_B1 = tl.cast(tile_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            mask_B = (offs_kk[:, None] < B_shape0) & (offs_B1[None, :] < B_shape1)
            b = (
                B_desc.load([kk * TK, tile_n * TN])
                if B_desc is not None
                else tl.load(
                    B_ptr + offs_kk[:, None] * B_stride0 + offs_B1[None, :] * B_stride1,
                    mask=mask_B,
                    other=0.0,
                )
            )
            acc = _dot_any_size(a, b, acc, "ieee")
        if C_desc is not None:
            # experiment: the epilogue through TMA (the descriptor clips at C's bounds)
            C_desc.store([tile_m * TM, tile_n * TN], acc.to(C_ptr.dtype.element_ty))
        else:
            offs_C0 = tl.cast(tile_m, OFFSET_DTYPE) * TM + tl.arange(0, TM)
            offs_C1 = tl.cast(tile_n, OFFSET_DTYPE) * TN + tl.arange(0, TN)
            mask_C = (offs_C0[:, None] < C_shape0) & (offs_C1[None, :] < C_shape1)
            tl.store(
                C_ptr + offs_C0[:, None] * C_stride0 + offs_C1[None, :] * C_stride1,
                acc.to(C_ptr.dtype.element_ty),
                mask=mask_C,
            )


def launch_gemm_persistent(stream, grid, A, B, C, TM, TN, TK, GROUP, *, hints=None):
    """`ct.launch(stream, grid, gemm_persistent, args)`; `hints`: cuTile kernel hints."""
    hints = launch_gemm_persistent.hints | (hints or {})
    A, B, C = _as_tensor(A), _as_tensor(B), _as_tensor(C)
    # TMA descriptors for the matrix products' tiles where the arrays allow (None: pointers)
    A_desc = _tma_descriptor(A, (TM, TK))
    B_desc = _tma_descriptor(B, (TK, TN))
    C_desc = _tma_descriptor(C, (TM, TN))
    num_ctas = 1 if hints.get("num_ctas") is None else hints["num_ctas"]
    _check_ndim("gemm_persistent", "A", A, 2)
    _check_ndim("gemm_persistent", "B", B, 2)
    _check_ndim("gemm_persistent", "C", C, 2)
    args = (A, *A.shape, *A.stride(), B, *B.shape, *B.stride(), C, *C.shape, *C.stride(), TM, TN)
    args += (TK, GROUP, A_desc, B_desc, C_desc)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # a persistent loop of dot loops: 8 warps, 4 stages (H200: 0.81x cuTile, 0.67x at 4/3)
    num_warps = 8
    num_stages = 4
    if tile_elems < 128 * 256 and (A_desc is not None or B_desc is not None):
        # TMA operands: 4 warps, 4 stages (best of 8/3, 8/4, 4/4 on the H200)
        num_warps = 4
        num_stages = 4
    float_dtypes = {t.dtype for t in [A, B, C] if t.dtype.is_floating_point}
    # fp32 FMA products: ptxas -O1 does not spill where -O3 does (an FFT: 2.7 ms, 10.3 at -O3)
    ptx_options = (
        {"ptx_options": "-O1"} if float_dtypes == {torch.float32} and _ptxas_target() else {}
    )
    constexprs = dict(
        A_div=_multiples(A.shape, A.stride()),
        B_div=_multiples(B.shape, B.stride()),
        C_div=_multiples(C.shape, C.stride()),
        FLATTEN=A_desc is not None or B_desc is not None,
        USE_INT64=_needs_int64(A, B, C),
    )
    with _on_stream(stream):
        while True:
            try:
                gemm_persistent[_grid(grid)](
                    *args,
                    **constexprs,
                    num_warps=num_warps,
                    num_stages=num_stages,
                    num_ctas=num_ctas,
                    **ptx_options,
                )
                break
            except triton.OutOfResources:
                # large tiles: one stage fewer until the pipeline fits in shared memory
                if num_stages <= 1:
                    raise
                num_stages -= 1


# The @ct.kernel options: host expressions evaluated once, here, as cuTile evaluates them when
# it decorates the kernel (not on every launch).
# tile2triton: occupancy of ct.kernel has no Triton counterpart
# (the launcher's rule picks warps and stages)
launch_gemm_persistent.hints = {"occupancy": 1}


def launch(stream, a, b, c, tiles, sms):
    tm, tn, tk = tiles
    tiles_total = triton.cdiv(c.shape[0], tm) * triton.cdiv(c.shape[1], tn)
    launch_gemm_persistent(stream, (min(sms, tiles_total),), a, b, c, tm, tn, tk, 8)
