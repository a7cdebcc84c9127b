# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


@triton.jit
def _dot_any_size(x, y, acc, PRECISION: tl.constexpr):
    # tl.dot needs M, N >= 16 and K >= 16 (32 for 8-bit operands); cuTile's mma takes any
    # size. A smaller dimension is spread over the minimum (each element repeated, all but the
    # first copy zeroed) and summed back, which adds only zeros. out_dtype: tl.dot requires
    # it to be the accumulator's dtype (fp64, int32 and fp16 accumulators are not its default).
    M: tl.constexpr = x.shape[0]
    K: tl.constexpr = x.shape[1]
    N: tl.constexpr = y.shape[1]
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    if M >= 16 and N >= 16 and K >= MIN_K:
        return tl.dot(x, y, acc, input_precision=PRECISION, out_dtype=acc.dtype)
    else:
        RM: tl.constexpr = 16 // M if M < 16 else 1
        RN: tl.constexpr = 16 // N if N < 16 else 1
        RK: tl.constexpr = MIN_K // K if K < MIN_K else 1
        xs = tl.reshape(tl.broadcast_to(x[:, None, :, None], (M, RM, K, RK)), (M * RM, K * RK))
        keep_x = (tl.arange(0, M * RM) % RM == 0)[:, None] & (tl.arange(0, K * RK) % RK == 0)[
            None, :
        ]
        xs = tl.where(keep_x, xs, tl.zeros_like(xs))
        ys = tl.reshape(tl.broadcast_to(y[:, None, :, None], (K, RK, N, RN)), (K * RK, N * RN))
        ys = tl.where((tl.arange(0, N * RN) % RN == 0)[None, :], ys, tl.zeros_like(ys))
        prod = tl.dot(
            xs,
            ys,
            tl.zeros((M * RM, N * RN), acc.dtype),
            input_precision=PRECISION,
            out_dtype=acc.dtype,
        )
        prod = tl.sum(tl.sum(tl.reshape(prod, (M, RM, N, RN)), axis=3), axis=1)
        return acc + prod.to(acc.dtype)


_E8M0 = getattr(torch, "float8_e8m0fnu", None)


def _as_tensor(x):
    """Launchers take torch tensors and any DLPack array (CuPy, JAX, numba, ...). Triton has no
    float8_e8m0fnu (block scales): such arrays travel as their bytes."""
    if type(x) is not torch.Tensor:
        x = x if isinstance(x, torch.Tensor) else torch.from_dlpack(x)
    if _E8M0 is not None and x.dtype is _E8M0:
        x = x.view(torch.uint8)
    return x


def _check_ndim(kernel, name, x, ndim):
    if x.dim() != ndim:
        raise ValueError(
            f"{kernel}: `{name}` must have {ndim} dimension(s), got shape {tuple(x.shape)}"
        )


def _needs_int64(*arrays):
    """True when some element offset of some array reaches 2**31: offsets are then computed
    in int64, otherwise in int32 (cheaper)."""
    for x in arrays:
        if x.numel() < 2**31 - 1 and x.is_contiguous():  # the common case, without a loop
            continue
        span = sum((n - 1) * abs(s) for n, s in zip(x.shape, x.stride()) if n > 0)
        if span >= 2**31 - 1:
            return True
    return False


def _multiples(x):
    """For each stride of `x`, then for each extent, the largest of 16, 8, 4, 2, 1 dividing it
    (an extent only where its dimension is the contiguous one, else 1): the kernel relies on
    these (see its `*_div` arguments) to vectorize, whichever dimension is contiguous."""
    strides = x.stride()
    return tuple(_multiple(s) for s in strides) + tuple(
        _multiple(n) if s == 1 else 1 for n, s in zip(x.shape, strides)
    )


def _multiple(v):
    return 16 if v % 16 == 0 else 8 if v % 8 == 0 else 4 if v % 4 == 0 else 2 if v % 2 == 0 else 1


# A tf32 matrix product's B operand gets a K-major copy (docs/performance.md) when it has at
# least this many elements and its product at least this many rows (the copy costs one read
# and one write of B; a row-major B costs every block's wgmma one 4-byte copy per element).
_K_MAJOR_MIN_ELEMENTS, _K_MAJOR_MIN_ROWS = 1 << 20, 512


def _k_major_tf32(stream, b, rows, others):
    """`b`, or a copy of it with the same shape and values stored K-major, for a float32 array
    whose tiles feed the B operand of tf32 matrix products (x @ b, K x N tiles) and that the
    kernel never writes. On sm_90 wgmma reads tf32 operands only K-major from shared memory;
    over a row-major B (N contiguous) Triton fills that buffer with one 4-byte copy per element
    (82 TFLOP/s at 4096^3 on the H200, against 260 over a K-major B). Not copied: small
    products, arrays already K-major, other GPUs, and an array sharing memory with another
    argument (the copy would hide the kernel's writes through that one)."""
    if (
        b.dtype is not torch.float32
        or b.dim() < 2
        or b.stride(-1) != 1
        or b.stride(-2) == 1
        or b.shape[-1] < 2
        or rows < _K_MAJOR_MIN_ROWS
        or b.numel() < _K_MAJOR_MIN_ELEMENTS
        or not _wgmma_device(b.device)
    ):
        return b
    memory = b.untyped_storage().data_ptr()
    if any(o.untyped_storage().data_ptr() == memory for o in others):
        return b
    with _on_stream(stream):
        return _k_major_copy(b)


def _wgmma_device(device):
    """Hopper (sm_90), where wgmma takes tf32 operands only K-major."""
    return device.type == "cuda" and torch.cuda.get_device_capability(device)[0] == 9


def _k_major_copy(b):
    """A copy of `b` (..., K, N) with the same shape and values, K contiguous; rows of the
    copy padded to 32 elements so that each starts 128-byte aligned."""
    k, n = b.shape[-2], b.shape[-1]
    copy = torch.empty((*b.shape[:-2], n, -(-k // 32) * 32), dtype=b.dtype, device=b.device)[
        ..., :k
    ]
    if b.dim() > 3:
        copy.copy_(b.transpose(-1, -2))
        return copy.transpose(-1, -2)
    # torch's copy of a transposed view moves about 1 TB/s on the H200 (GPU run 16), a
    # quarter of what a tiled transpose reaches: the copy is a Triton kernel
    src, dst = (b, copy) if b.dim() == 3 else (b[None], copy[None])
    grid = (triton.cdiv(k, 64), triton.cdiv(n, 64), src.shape[0])
    _k_major_copy_kernel[grid](
        src, dst, k, n, *src.stride(), dst.stride(0), dst.stride(1), BK=64, BN=64
    )
    return copy.transpose(-1, -2)


@triton.jit
def _k_major_copy_kernel(
    src, dst, K, N, src_sb, src_sk, src_sn, dst_sb, dst_sn, BK: tl.constexpr, BN: tl.constexpr
):
    """dst[i, n, k] = src[i, k, n] over one BK x BN block (dst's last stride is 1)."""
    k = tl.program_id(0).to(tl.int64) * BK + tl.arange(0, BK)
    n = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    i = tl.program_id(2).to(tl.int64)
    mask = (k[:, None] < K) & (n[None, :] < N)
    x = tl.load(src + i * src_sb + k[:, None] * src_sk + n[None, :] * src_sn, mask=mask)
    tl.store(dst + i * dst_sb + n[None, :] * dst_sn + k[:, None], x, mask=mask)


def _by_target(value):
    return 1 if value is None else value


def _grid(grid):
    """cuTile's grid: an int or a tuple of up to three; the empty tuple is one block."""
    return (tuple(grid) or (1,)) if isinstance(grid, (tuple, list)) else (int(grid),)


_SAME_STREAM = contextlib.nullcontext()


def _on_stream(stream):
    """The stream a cuTile launch names: a torch stream, an object with __cuda_stream__, a raw
    handle, or None for the current stream. Naming the stream that is already current (as
    cuTile code usually does) switches nothing, which keeps the launch cheap."""
    if stream is None:
        return _SAME_STREAM
    if isinstance(stream, torch.cuda.Stream):
        if stream.cuda_stream == triton.runtime.driver.active.get_current_stream(
            stream.device_index
        ):
            return _SAME_STREAM
        return torch.cuda.stream(stream)
    if not torch.cuda.is_available():
        return _SAME_STREAM
    if hasattr(stream, "__cuda_stream__"):
        stream = stream.__cuda_stream__()[1]
    return torch.cuda.stream(torch.cuda.ExternalStream(int(stream)))


# (id of the Triton kernel, launch key) -> (the kernel, its compiled kernel, device, the launch's
# trailing constexprs). Keyed by id: a JITFunction's own hash reads its source hash under a lock.
_KNOWN = {}


def _launch_known(kernel, key, stream, grid, args):
    """Launch `kernel` through the compiled kernel an earlier launch with the same key got from
    Triton, passing exactly the arguments Triton's own dispatch would (theirs cost most of a
    launch's host time). The key holds what Triton specializes on and what the launcher's
    choices read, so an equal key means the same compiled kernel. False, launching nothing,
    when there is none yet or the launch names a stream of another device or not a torch one."""
    try:
        known = _KNOWN.get((id(kernel), key))
    except TypeError:  # an unhashable constant: the plain path
        return False
    if known is None or known[0] is not kernel:
        return False
    _, compiled, device, trailing = known
    drv = triton.runtime.driver.active
    if drv.get_current_device() != device:
        return False
    if stream is None:
        handle = drv.get_current_stream(device)
    elif type(stream) is torch.cuda.Stream and stream.device_index == device:
        handle = stream.cuda_stream
    else:
        return False
    grid = _grid(grid)
    args = args + trailing
    hooks = triton.knobs.runtime
    compiled.run(
        grid[0],
        grid[1] if len(grid) > 1 else 1,
        grid[2] if len(grid) > 2 else 1,
        handle,
        compiled.function,
        compiled.packed_metadata,
        compiled.launch_metadata(grid, handle, *args),
        hooks.launch_enter_hook,
        hooks.launch_exit_hook,
        *args,
    )
    return True


def _remember_launch(kernel, key, compiled, args, constexprs):
    """After a launch through Triton: keep what `_launch_known` needs to repeat it, unless
    Triton's dispatch does per-call work the direct path would skip (interpreter, pre-run
    hooks, global values it re-checks, asynchronous compilation)."""
    names = getattr(kernel, "arg_names", None)
    if names is None:  # not a Triton JITFunction (replaced, wrapped)
        return
    trailing_names = names[len(args) :]
    if (
        not hasattr(compiled, "packed_metadata")
        or hasattr(compiled, "result")
        or kernel.pre_run_hooks
        or kernel.used_global_vals
        or any(n not in constexprs for n in trailing_names)
        or any(isinstance(k, _Uncached) for k in key)
    ):
        return
    try:
        if len(_KNOWN) >= 512:
            _KNOWN.clear()
        _KNOWN[(id(kernel), key)] = (
            kernel,
            compiled,
            triton.runtime.driver.active.get_current_device(),
            tuple(constexprs[n] for n in trailing_names),
        )
    except TypeError:
        pass


class _Uncached:
    """A key part that keeps a launch on the plain path."""


@triton.jit
def matmul_tf32_kernel(
    a_ptr,
    a_shape0,
    a_shape1,
    a_stride0,
    a_stride1,
    b_ptr,
    b_shape0,
    b_shape1,
    b_stride0,
    b_stride1,
    c_ptr,
    c_shape0,
    c_shape1,
    c_stride0,
    c_stride1,
    TM: tl.constexpr,
    TN: tl.constexpr,
    TK: tl.constexpr,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    c_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """C = A @ B for float32 inputs, opting in to TF32 tensor-core math.

    Converting both operands with astype(ct.tfloat32) rounds them to a 10-bit mantissa;
    the accumulator stays float32.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_stride0 = a_stride0 // a_div[0] * a_div[0]
    a_stride1 = a_stride1 // a_div[1] * a_div[1]
    a_shape0 = a_shape0 // a_div[2] * a_div[2]
    a_shape1 = a_shape1 // a_div[3] * a_div[3]
    b_stride0 = b_stride0 // b_div[0] * b_div[0]
    b_stride1 = b_stride1 // b_div[1] * b_div[1]
    b_shape0 = b_shape0 // b_div[2] * b_div[2]
    b_shape1 = b_shape1 // b_div[3] * b_div[3]
    c_stride0 = c_stride0 // c_div[0] * c_div[0]
    c_stride1 = c_stride1 // c_div[1] * c_div[1]
    c_shape0 = c_shape0 // c_div[2] * c_div[2]
    c_shape1 = c_shape1 // c_div[3] * c_div[3]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k in range(tl.cdiv(b_shape0, TK)):
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_a0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
            offs_a1 = tl.cast(k, tl.int64) * TK + tl.arange(0, TK)
        else:
            offs_a0 = pid_m * TM + tl.arange(0, TM)
            offs_a1 = k * TK + tl.arange(0, TK)
        mask_a = (offs_a0[:, None] < a_shape0) & (offs_a1[None, :] < a_shape1)
        a_tile = tl.load(
            a_ptr + offs_a0[:, None] * a_stride0 + offs_a1[None, :] * a_stride1,
            mask=mask_a,
            other=0.0,
        )
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_b0 = tl.cast(k, tl.int64) * TK + tl.arange(0, TK)
            offs_b1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_b0 = k * TK + tl.arange(0, TK)
            offs_b1 = pid_n * TN + tl.arange(0, TN)
        mask_b = (offs_b0[:, None] < b_shape0) & (offs_b1[None, :] < b_shape1)
        b_tile = tl.load(
            b_ptr + offs_b0[:, None] * b_stride0 + offs_b1[None, :] * b_stride1,
            mask=mask_b,
            other=0.0,
        )
        acc = _dot_any_size(a_tile.to(tl.float32), b_tile.to(tl.float32), acc, "tf32")
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_c0 = tl.cast(pid_m, tl.int64) * TM + tl.arange(0, TM)
        offs_c1 = tl.cast(pid_n, tl.int64) * TN + tl.arange(0, TN)
    else:
        offs_c0 = pid_m * TM + tl.arange(0, TM)
        offs_c1 = pid_n * TN + tl.arange(0, TN)
    mask_c = (offs_c0[:, None] < c_shape0) & (offs_c1[None, :] < c_shape1)
    tl.store(
        c_ptr + offs_c0[:, None] * c_stride0 + offs_c1[None, :] * c_stride1,
        acc.to(c_ptr.dtype.element_ty),
        mask=mask_c,
    )


def launch_matmul_tf32_kernel(stream, grid, a, b, c, TM, TN, TK, *, hints=None):
    """Run `matmul_tf32_kernel` like `ct.launch(stream, grid, matmul_tf32_kernel, (a, b, c, TM, TN, TK))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    a = _as_tensor(a)
    b = _as_tensor(b)
    c = _as_tensor(c)
    # B operands of tf32 matrix products: a K-major copy where that pays (docs/performance.md)
    b = _k_major_tf32(stream, b, a.shape[-2], (a, c))
    num_ctas = _by_target(hints.get("num_ctas", 1))
    args = (
        a,
        *a.shape,
        *a.stride(),
        b,
        *b.shape,
        *b.stride(),
        c,
        *c.shape,
        *c.stride(),
        TM,
        TN,
        TK,
    )
    # A launch that repeats an earlier one's specialization goes straight to the kernel Triton
    # compiled for it, without Triton's per-call dispatch (host overhead, docs/performance.md).
    known = (
        a.dtype,
        a.data_ptr() & 15,
        a.shape,
        a.stride(),
        b.dtype,
        b.data_ptr() & 15,
        b.shape,
        b.stride(),
        c.dtype,
        c.data_ptr() & 15,
        c.shape,
        c.stride(),
        TM,
        TN,
        TK,
        num_ctas,
    )
    if _launch_known(matmul_tf32_kernel, known, stream, grid, args):
        return
    _check_ndim("matmul_tf32_kernel", "a", a, 2)
    _check_ndim("matmul_tf32_kernel", "b", b, 2)
    _check_ndim("matmul_tf32_kernel", "c", c, 2)
    tile_elems = max(TM * TN, TM * TK, TK * TN)
    # Matrix kernels: 4 warps and 3 stages up to 128x128 tiles (measured best on the H200,
    # docs/gpu-results.md); larger tiles need more warps and a deeper software pipeline.
    num_warps = 8 if tile_elems >= 128 * 256 else 4
    num_stages = 4 if tile_elems >= 128 * 256 else 3
    constexprs = dict(
        a_div=_multiples(a),
        b_div=_multiples(b),
        c_div=_multiples(c),
        USE_INT64=_needs_int64(a, b, c),
    )
    with _on_stream(stream):
        compiled = matmul_tf32_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas
        )
        _remember_launch(matmul_tf32_kernel, known, compiled, args, constexprs)


def launch(stream, a, b, c):
    tm, tn, tk = 32, 32, 16
    m, n = c.shape
    launch_matmul_tf32_kernel(stream, (triton.cdiv(m, tm), triton.cdiv(n, tn)), a, b, c, tm, tn, tk)
