# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import contextlib

import torch
import triton
import triton.language as tl


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
    """For each stride but the last and for the last extent of `x`, the largest of 16, 8, 4, 2,
    1 dividing it: the kernel relies on these (see its `*_div` arguments) to vectorize."""
    sizes = x.stride()[:-1] + (x.shape[-1],)
    return tuple(
        16 if v % 16 == 0 else 8 if v % 8 == 0 else 4 if v % 4 == 0 else 2 if v % 2 == 0 else 1
        for v in sizes
    )


def _by_target(value):
    return 1 if value is None else value


def _grid(grid):
    return tuple(grid) if isinstance(grid, (tuple, list)) else (int(grid),)


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


@triton.jit
def threshold_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    clipped_ptr,
    clipped_shape0,
    clipped_shape1,
    clipped_stride0,
    clipped_stride1,
    counts_ptr,
    counts_shape0,
    counts_stride0,
    thr,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    clipped_div: tl.constexpr,
    counts_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """For each row: clipped = where(x > thr, x, thr) and counts[i] = #{j : x[i, j] > thr}.

    The boolean mask is turned into integers with astype before the row sum. Padding the
    loads with -inf means padded lanes are never counted (thr is finite).
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape1 = x_shape1 // x_div[1] * x_div[1]
    clipped_stride0 = clipped_stride0 // clipped_div[0] * clipped_div[0]
    clipped_shape1 = clipped_shape1 // clipped_div[1] * clipped_div[1]
    counts_shape0 = counts_shape0 // counts_div[0] * counts_div[0]
    pid = tl.program_id(0)
    total = tl.zeros((TM,), dtype=tl.int32)
    for j in range(tl.cdiv(x_shape1, TN)):
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_x0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
            offs_x1 = tl.cast(j, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_x0 = pid * TM + tl.arange(0, TM)
            offs_x1 = j * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        t = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=float("-inf"),
        )
        above = t > thr
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_clipped0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
            offs_clipped1 = tl.cast(j, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_clipped0 = pid * TM + tl.arange(0, TM)
            offs_clipped1 = j * TN + tl.arange(0, TN)
        mask_clipped = (offs_clipped0[:, None] < clipped_shape0) & (
            offs_clipped1[None, :] < clipped_shape1
        )
        tl.store(
            clipped_ptr
            + offs_clipped0[:, None] * clipped_stride0
            + offs_clipped1[None, :] * clipped_stride1,
            tl.where(above, t, thr).to(clipped_ptr.dtype.element_ty),
            mask=mask_clipped,
        )
        total = total + tl.sum(above.to(tl.int32), axis=1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_counts0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
    else:
        offs_counts0 = pid * TM + tl.arange(0, TM)
    mask_counts = offs_counts0 < counts_shape0
    tl.store(
        counts_ptr + offs_counts0 * counts_stride0,
        total.to(counts_ptr.dtype.element_ty),
        mask=mask_counts,
    )


def launch_threshold_kernel(stream, grid, x, clipped, counts, thr, TM, TN, *, hints=None):
    """Run `threshold_kernel` like `ct.launch(stream, grid, threshold_kernel, (x, clipped, counts, thr, TM, TN))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    clipped = _as_tensor(clipped)
    counts = _as_tensor(counts)
    _check_ndim("threshold_kernel", "x", x, 2)
    _check_ndim("threshold_kernel", "clipped", clipped, 2)
    _check_ndim("threshold_kernel", "counts", counts, 1)
    tile_elems = max(TM, TM * TN)
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        threshold_kernel[_grid(grid)](
            x,
            *x.shape,
            *x.stride(),
            clipped,
            *clipped.shape,
            *clipped.stride(),
            counts,
            *counts.shape,
            *counts.stride(),
            thr,
            TM,
            TN,
            x_div=_multiples(x),
            clipped_div=_multiples(clipped),
            counts_div=_multiples(counts),
            USE_INT64=_needs_int64(x, clipped, counts),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, x, clipped, counts, thr):
    tm, tn = 8, 64
    launch_threshold_kernel(stream, (triton.cdiv(x.shape[0], tm),), x, clipped, counts, thr, tm, tn)
