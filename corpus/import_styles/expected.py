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
def row_dot_kernel(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    y_ptr,
    y_shape0,
    y_shape1,
    y_stride0,
    y_stride1,
    out_ptr,
    out_shape0,
    out_stride0,
    TM: tl.constexpr,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    y_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out[i] = sum_j x[i, j] * y[i, j] (a batch of row-wise dot products), in float32.

    Written with names imported straight from cuda.tile and a module-level padding
    constant: zero padding makes the column tail contribute nothing to the sum.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape1 = x_shape1 // x_div[1] * x_div[1]
    y_stride0 = y_stride0 // y_div[0] * y_div[0]
    y_shape1 = y_shape1 // y_div[1] * y_div[1]
    out_shape0 = out_shape0 // out_div[0] * out_div[0]
    pid = tl.program_id(0)
    acc = tl.zeros((TM,), dtype=tl.float32)
    for j in range(tl.cdiv(x_shape1, TN)):
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_x0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
            offs_x1 = tl.cast(j, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_x0 = pid * TM + tl.arange(0, TM)
            offs_x1 = j * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        xt = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=0.0,
        ).to(tl.float32)
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_y0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
            offs_y1 = tl.cast(j, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_y0 = pid * TM + tl.arange(0, TM)
            offs_y1 = j * TN + tl.arange(0, TN)
        mask_y = (offs_y0[:, None] < y_shape0) & (offs_y1[None, :] < y_shape1)
        yt = tl.load(
            y_ptr + offs_y0[:, None] * y_stride0 + offs_y1[None, :] * y_stride1,
            mask=mask_y,
            other=0.0,
        ).to(tl.float32)
        acc += tl.sum(xt * yt, axis=1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_out0 = tl.cast(pid, tl.int64) * TM + tl.arange(0, TM)
    else:
        offs_out0 = pid * TM + tl.arange(0, TM)
    mask_out = offs_out0 < out_shape0
    tl.store(out_ptr + offs_out0 * out_stride0, acc.to(out_ptr.dtype.element_ty), mask=mask_out)


def launch_row_dot_kernel(stream, grid, x, y, out, TM, TN, *, hints=None):
    """Run `row_dot_kernel` like `ct.launch(stream, grid, row_dot_kernel, (x, y, out, TM, TN))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    y = _as_tensor(y)
    out = _as_tensor(out)
    _check_ndim("row_dot_kernel", "x", x, 2)
    _check_ndim("row_dot_kernel", "y", y, 2)
    _check_ndim("row_dot_kernel", "out", out, 1)
    tile_elems = max(TM, TM * TN)
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        row_dot_kernel[_grid(grid)](
            x,
            *x.shape,
            *x.stride(),
            y,
            *y.shape,
            *y.stride(),
            out,
            *out.shape,
            *out.stride(),
            TM,
            TN,
            x_div=_multiples(x),
            y_div=_multiples(y),
            out_div=_multiples(out),
            USE_INT64=_needs_int64(x, y, out),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, x, y, out):
    tm, tn = 16, 32
    launch_row_dot_kernel(stream, (triton.cdiv(x.shape[0], tm),), x, y, out, tm, tn)
