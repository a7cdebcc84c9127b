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
def vector_add_kernel(
    a_ptr,
    a_shape0,
    a_stride0,
    b_ptr,
    b_shape0,
    b_stride0,
    out_ptr,
    out_shape0,
    out_stride0,
    TILE: tl.constexpr,
    a_div: tl.constexpr,
    b_div: tl.constexpr,
    out_div: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """out = a + b over 1-D arrays; each block handles one TILE-sized chunk."""
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    a_shape0 = a_shape0 // a_div[0] * a_div[0]
    b_shape0 = b_shape0 // b_div[0] * b_div[0]
    out_shape0 = out_shape0 // out_div[0] * out_div[0]
    pid = tl.program_id(0)
    # A bare integer is accepted as a 1-D tile index: chunk `pid` covers
    # elements [pid * TILE, (pid + 1) * TILE).
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_a0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_a0 = pid * TILE + tl.arange(0, TILE)
    mask_a = offs_a0 < a_shape0
    a_tile = tl.load(a_ptr + offs_a0 * a_stride0, mask=mask_a)
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_b0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_b0 = pid * TILE + tl.arange(0, TILE)
    mask_b = offs_b0 < b_shape0
    b_tile = tl.load(b_ptr + offs_b0 * b_stride0, mask=mask_b)
    # Lanes past the end of the array hold unspecified values; store drops them.
    if USE_INT64:  # 64-bit offsets, chosen by the launcher
        offs_out0 = tl.cast(pid, tl.int64) * TILE + tl.arange(0, TILE)
    else:
        offs_out0 = pid * TILE + tl.arange(0, TILE)
    mask_out = offs_out0 < out_shape0
    tl.store(
        out_ptr + offs_out0 * out_stride0,
        (a_tile + b_tile).to(out_ptr.dtype.element_ty),
        mask=mask_out,
    )


def launch_vector_add_kernel(stream, grid, a, b, out, TILE, *, hints=None):
    """Run `vector_add_kernel` like `ct.launch(stream, grid, vector_add_kernel, (a, b, out, TILE))`.
    `hints` are cuTile kernel hints (as in `replace_hints`): num_ctas becomes Triton's num_ctas;
    occupancy and opt_level have no Triton equivalent and are accepted without effect."""
    hints = hints or {}
    a = _as_tensor(a)
    b = _as_tensor(b)
    out = _as_tensor(out)
    _check_ndim("vector_add_kernel", "a", a, 1)
    _check_ndim("vector_add_kernel", "b", b, 1)
    _check_ndim("vector_add_kernel", "out", out, 1)
    tile_elems = TILE
    # Elementwise and reduction tiles: about 8 elements per thread, 1 to 8 warps (the fixed
    # 4 warps left a 128-wide row with one element per thread; docs/performance.md).
    num_warps = min(max(tile_elems // 256, 1), 8)
    num_stages = 2
    with _on_stream(stream):
        vector_add_kernel[_grid(grid)](
            a,
            *a.shape,
            *a.stride(),
            b,
            *b.shape,
            *b.stride(),
            out,
            *out.shape,
            *out.stride(),
            TILE,
            a_div=_multiples(a),
            b_div=_multiples(b),
            out_div=_multiples(out),
            USE_INT64=_needs_int64(a, b, out),
            num_warps=num_warps,
            num_stages=num_stages,
            num_ctas=_by_target(hints.get("num_ctas", 1)),
        )


def launch(stream, a, b, out):
    tile = 128
    grid = (triton.cdiv(a.shape[0], tile),)
    launch_vector_add_kernel(stream, grid, a, b, out, tile)
