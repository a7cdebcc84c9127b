# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
"""For each row, the column of the first value above a threshold (or -1): a search loop that
stops with `break` and skips empty tiles with `continue`."""

import contextlib

import torch
import triton
import triton.language as tl


@triton.jit
def _store_tile_1d(
    ptr, shape0, stride0, index0, tile, USE_INT64: tl.constexpr, CHECK_BOUNDS: tl.constexpr = True
):
    """ct.store: write `tile` at tile `index`; out-of-bounds elements are dropped and the
    value is cast to the array's dtype."""
    if USE_INT64:  # chosen at launch when some array spans 2**31 elements or more
        offs0 = tl.cast(index0, tl.int64) * tile.shape[0] + tl.arange(0, tile.shape[0])
    else:
        offs0 = index0 * tile.shape[0] + tl.arange(0, tile.shape[0])
    ptrs = ptr + offs0 * stride0
    value = tile.to(ptr.dtype.element_ty)
    if CHECK_BOUNDS:
        tl.store(ptrs, value, mask=offs0 < shape0)
    else:
        tl.store(ptrs, value)


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
def first_match(
    x_ptr,
    x_shape0,
    x_shape1,
    x_stride0,
    x_stride1,
    out_ptr,
    out_shape0,
    out_stride0,
    threshold,
    TN: tl.constexpr,
    x_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    x_stride0 = x_stride0 // x_div[0] * x_div[0]
    x_shape1 = x_shape1 // x_div[1] * x_div[1]
    out_shape0 = out_shape0 // out_div[0] * out_div[0]
    row = tl.program_id(0)
    found = -1
    j = 0
    _broke_0 = 0
    while (j < tl.cdiv(x_shape1, TN)) & (_broke_0 == 0):
        _skip_0 = 0
        if USE_INT64:  # 64-bit offsets, chosen by the launcher
            offs_x0 = tl.cast(row, tl.int64) + tl.arange(0, 1)
            offs_x1 = tl.cast(j, tl.int64) * TN + tl.arange(0, TN)
        else:
            offs_x0 = row + tl.arange(0, 1)
            offs_x1 = j * TN + tl.arange(0, TN)
        mask_x = (offs_x0[:, None] < x_shape0) & (offs_x1[None, :] < x_shape1)
        v = tl.load(
            x_ptr + offs_x0[:, None] * x_stride0 + offs_x1[None, :] * x_stride1,
            mask=mask_x,
            other=float("-inf"),
        )
        hit = v > threshold
        if tl.max(hit.to(tl.int32)) == 0:
            _skip_0 = 1  # nothing in this tile
        if _skip_0 == 0:
            cols = tl.arange(0, TN)[None, :] + j * TN
            # smallest matching column: non-matching lanes get a huge value
            found = tl.min(tl.where(hit, cols, 2**30))
            _broke_0 = 1
        j += 1
    _store_tile_1d(
        out_ptr,
        out_shape0,
        out_stride0,
        row,
        tl.full((1,), found, out_ptr.dtype.element_ty),
        USE_INT64,
    )


def launch_first_match(stream, grid, x, out, threshold, TN, *, hints=None):
    """Run `first_match` like `ct.launch(stream, grid, first_match, (x, out, threshold, TN))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    x = _as_tensor(x)
    out = _as_tensor(out)
    _check_ndim("first_match", "x", x, 2)
    _check_ndim("first_match", "out", out, 1)
    tile_elems = TN
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        first_match[_grid(grid)](
            x,
            *x.shape,
            *x.stride(),
            out,
            *out.shape,
            *out.stride(),
            threshold,
            TN,
            x_div=_multiples(x),
            out_div=_multiples(out),
            USE_INT64=_needs_int64(x, out),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, x, out, threshold):
    launch_first_match(stream, (x.shape[0],), x, out, threshold, 32)
