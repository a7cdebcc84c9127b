# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""Blend three stacked signals with per-signal weights, the way cuTile's own tests use
`ct.static_iter`: the tiles of one column block are gathered into a tuple by a comprehension,
a weighted sum runs over `zip(weights, tiles)` and each output row over `enumerate`. cuTile
unrolls these loops while compiling; so does the translation. x and out are (3, n)."""

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


WEIGHTS = (0.25, -1.0, 2.0)


@triton.jit
def blend_signals(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_shape1,
    out_stride0,
    out_stride1,
    T: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape1 = x_shape1 // x_div[1] * x_div[1]
    out_stride0 = out_stride0 // out_div[0] * out_div[0]
    out_shape1 = out_shape1 // out_div[1] * out_div[1]
    b = tl.program_id(0)
    offs_x0 = tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0 = offs_x0.to(tl.int64)
        offs_x1 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_x1 = b * T + tl.arange(0, T)
    mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
    offs_x0_2 = 1 + tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0_2 = offs_x0_2.to(tl.int64)
        offs_x1_2 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_x1_2 = b * T + tl.arange(0, T)
    mask_x_2 = (offs_x0_2[:, None] < x_shape0) & (offs_x1_2[None, :] < x_shape1)
    offs_x0_3 = 2 * 1 + tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_x0_3 = offs_x0_3.to(tl.int64)
        offs_x1_3 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_x1_3 = b * T + tl.arange(0, T)
    mask_x_3 = (offs_x0_3[:, None] < x_shape0) & (offs_x1_3[None, :] < x_shape1)
    rows = (
        tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=0.0,
        ),
        tl.load(
            x_ptr + offs_x0_2[:, None] * x_stride0 + offs_x1_2[None, :] * x_stride1,
            mask=mask_x_2,
            other=0.0,
        ),
        tl.load(
            x_ptr + offs_x0_3[:, None] * x_stride0 + offs_x1_3[None, :] * x_stride1,
            mask=mask_x_3,
            other=0.0,
        ),
    )
    mixed = tl.full((1, T), 0.0, tl.float32)
    # ct.static_iter: 3 iterations, unrolled
    r = rows[0]
    mixed = mixed + r.to(tl.float32) * 0.25
    r = rows[1]
    mixed = mixed + r.to(tl.float32) * -1.0
    r = rows[2]
    mixed = mixed + r.to(tl.float32) * 2.0
    # ct.static_iter: 3 iterations, unrolled
    r = rows[0]
    # row k: the blend, minus what signal k alone contributed
    offs_out0 = tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_out0 = offs_out0.to(tl.int64)
        offs_out1 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_out1 = b * T + tl.arange(0, T)
    mask_out = (offs_out0[:, None] < out_shape0) & (offs_out1[None, :] < out_shape1)
    tl.store(
        out_ptr + offs_out0[:, None] * out_stride0 + offs_out1[None, :] * out_stride1,
        (mixed - r.to(tl.float32) * 0.25).to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )
    r = rows[1]
    # row k: the blend, minus what signal k alone contributed
    offs_out0_2 = 1 + tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_out0_2 = offs_out0_2.to(tl.int64)
        offs_out1_2 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_out1_2 = b * T + tl.arange(0, T)
    mask_out_2 = (offs_out0_2[:, None] < out_shape0) & (offs_out1_2[None, :] < out_shape1)
    tl.store(
        out_ptr + offs_out0_2[:, None] * out_stride0 + offs_out1_2[None, :] * out_stride1,
        (mixed - r.to(tl.float32) * -1.0).to(out_ptr.dtype.element_ty),
        mask=mask_out_2,
    )
    r = rows[2]
    # row k: the blend, minus what signal k alone contributed
    offs_out0_3 = 2 * 1 + tl.arange(0, 1)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_out0_3 = offs_out0_3.to(tl.int64)
        offs_out1_3 = tl.cast(b, tl.int64) * T + tl.arange(0, T)
    else:
        offs_out1_3 = b * T + tl.arange(0, T)
    mask_out_3 = (offs_out0_3[:, None] < out_shape0) & (offs_out1_3[None, :] < out_shape1)
    tl.store(
        out_ptr + offs_out0_3[:, None] * out_stride0 + offs_out1_3[None, :] * out_stride1,
        (mixed - r.to(tl.float32) * 2.0).to(out_ptr.dtype.element_ty),
        mask=mask_out_3,
    )


def launch_blend_signals(stream, grid, x, out, T, *, hints=None):
    """Run `blend_signals` like `ct.launch(stream, grid, blend_signals, (x, out, T))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    out = _as_tensor(out)
    _check_ndim("blend_signals", "x", x, 2)
    _check_ndim("blend_signals", "out", out, 2)
    tile_elems = T
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        blend_signals[_grid(grid)](
            x,
            *x.shape,
            *x.stride(),
            out,
            *out.shape,
            *out.stride(),
            T,
            x_div=_multiples(x),
            out_div=_multiples(out),
            USE_INT64=_needs_int64(x, out),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, x, out):
    launch_blend_signals(stream, (triton.cdiv(x.shape[1], 64),), x, out, 64)
