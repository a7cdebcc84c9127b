"""Tile factories, reductions, scans, matrix products, bit reinterpretation and utilities."""

from __future__ import annotations

import builtins
import math
import numbers

import torch

from . import _dtypes as D
from ._dtypes import DType
from ._errors import TileTypeError, TileValueError, TileStaticAssertionError, StaticException, \
    InterpreterUnsupported
from ._state import STATE
from ._tile import Tile, as_tile, astype, const_shape, check_pow2, _req_tile, _tensor, \
    _const_int, add, mul, _check_rounding, _ftz

# ---------------------------------------------------------------------------------------------
# Block indices


def _block_axis(axis, what):
    if STATE.bid is None:
        raise TileTypeError(f"{what}: called outside a running kernel (use ct.launch)")
    if isinstance(axis, Tile) or not isinstance(axis, numbers.Integral) or axis not in (0, 1, 2):
        raise TileValueError(f"{what}: axis must be the constant 0, 1 or 2, got {axis!r}")
    return int(axis)


def bid(axis):
    v = STATE.bid[_block_axis(axis, "ct.bid")]
    return Tile(torch.tensor(v, dtype=torch.int32, device=STATE.device), D.int32)


def num_blocks(axis):
    v = STATE.grid[_block_axis(axis, "ct.num_blocks")]
    return Tile(torch.tensor(v, dtype=torch.int32, device=STATE.device), D.int32)


def cdiv(x, y, /):
    return -((-x) // y)


def assume_divisible_by(x, divisor):
    d = _const_int(divisor, "ct.assume_divisible_by")
    if d <= 0:
        raise TileValueError("ct.assume_divisible_by: divisor must be a positive constant")
    return x


# ---------------------------------------------------------------------------------------------
# Factories

def full(shape, fill_value, dtype):
    what = "ct.full"
    shape = const_shape(shape, what)
    check_pow2(shape, what)
    d = D.as_dtype(dtype, what)
    D.check_representable(d, what)
    if isinstance(fill_value, Tile):
        if fill_value.ndim != 0:
            raise TileTypeError(f"{what}: fill_value must be a scalar, got a tile of shape "
                                f"{fill_value.shape}")
        v = astype(fill_value, d)._t
    else:
        v = astype(fill_value, d)._t
    return Tile(v.reshape(()).expand(shape).clone(), d)


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def ones(shape, dtype):
    return full(shape, 1, dtype)


def arange(size, /, *, dtype, start=0, step=1):
    what = "ct.arange"
    n = _const_int(size, what)
    check_pow2((n,), what)
    d = D.as_dtype(dtype, what)
    base = Tile(D.convert(torch.arange(n, dtype=torch.int64, device=STATE.device), D.int64, d), d)
    r = base
    if not (isinstance(step, int) and not isinstance(step, bool) and step == 1):
        r = mul(r, step)
    if not (isinstance(start, int) and not isinstance(start, bool) and start == 0):
        r = add(r, start)
    return astype(r, d)


def astile(value, /, *, dtype):
    what = "ct.astile"
    d = D.as_dtype(dtype, what)

    def conv(v):
        if isinstance(v, (tuple, list)):
            return [conv(x) for x in v]
        if isinstance(v, Tile):
            return v.tolist()
        return v
    nested = conv(value)
    t = torch.tensor(nested, dtype=torch.float64 if d.is_float else torch.int64,
                     device=STATE.device)
    check_pow2(tuple(t.shape), what)
    return Tile(D.convert(t, D.float64 if d.is_float else D.int64, d), d)


# ---------------------------------------------------------------------------------------------
# Reductions

def _axes(axis, ndim, what, allow_tuple=True):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        if not allow_tuple:
            raise TileTypeError(f"{what}: a tuple of axes is not supported")
        axes = [_const_int(a, what) for a in axis]
    else:
        axes = [_const_int(axis, what)]
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise TileValueError(f"{what}: axis {a} is out of range for a tile of rank {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise TileValueError(f"{what}: repeated axis in {axis}")
    return tuple(sorted(out))


def _reduce_tensor(t, axes, keepdims, fn):
    if not axes:
        return t
    return fn(t, axes, keepdims)


def _accumulate(name, x, axis, keepdims, rounding_mode, flush_to_zero, op):
    what = f"ct.{name}"
    x = _req_tile(x, what)
    _check_rounding(rounding_mode, what)
    d = x.dtype
    if d.restricted:
        raise TileTypeError(f"{what}: unsupported dtype {d}")
    axes = _axes(axis, x.ndim, what)
    if d.is_bool:
        x, d = astype(x, D.int32), D.int32
    if d.is_float:
        t = _ftz(x._t.to(torch.float32), flush_to_zero).to(torch.float64) \
            if flush_to_zero else x._t.to(torch.float64)
        r = _reduce_tensor(t, axes, keepdims, op)
        return Tile(_ftz(D.convert(r, D.float64, d), flush_to_zero), d)
    t = x._t.to(torch.int64)
    r = _reduce_tensor(t, axes, keepdims, op)
    return Tile(D.convert(r, D.int64, d), d)


def sum(x, /, axis=None, *, keepdims=False, rounding_mode=None, flush_to_zero=False):
    return _accumulate("sum", x, axis, keepdims, rounding_mode, flush_to_zero,
                       lambda t, a, k: torch.sum(t, dim=a, keepdim=k))


def prod(x, /, axis=None, *, keepdims=False, rounding_mode=None, flush_to_zero=False):
    def p(t, a, k):
        for ax in sorted(a, reverse=True):
            t = torch.prod(t, dim=ax, keepdim=k)
        return t
    return _accumulate("prod", x, axis, keepdims, rounding_mode, flush_to_zero, p)


def _extreme(name, x, axis, keepdims, propagate_nan, is_max):
    what = f"ct.{name}"
    x = _req_tile(x, what)
    d = x.dtype
    if d.restricted:
        raise TileTypeError(f"{what}: unsupported dtype {d}")
    axes = _axes(axis, x.ndim, what)
    t = x._t
    if not axes:
        return x
    fn = torch.amax if is_max else torch.amin
    if d.is_bool:
        r = fn(t.to(torch.uint8), dim=axes, keepdim=keepdims).bool()
        return Tile(r, d)
    if d.is_float:
        t32 = t.to(torch.float32) if t.dtype not in (torch.float32, torch.float64) else t
        if propagate_nan:
            r = fn(t32, dim=axes, keepdim=keepdims)
        else:
            nan = torch.isnan(t32)
            fill = float("-inf") if is_max else float("inf")
            r = fn(torch.where(nan, torch.full_like(t32, fill), t32), dim=axes, keepdim=keepdims)
            all_nan = torch.amin(nan.to(torch.uint8), dim=axes, keepdim=keepdims).bool()
            r = torch.where(all_nan, torch.full_like(r, float("nan")), r)
        return Tile(r.to(d.repr_dtype), d)
    return Tile(fn(t, dim=axes, keepdim=keepdims), d)


def max(x, /, axis=None, *, keepdims=False, flush_to_zero=False, propagate_nan=False):
    return _extreme("max", x, axis, keepdims, propagate_nan, True)


def min(x, /, axis=None, *, keepdims=False, flush_to_zero=False, propagate_nan=False):
    return _extreme("min", x, axis, keepdims, propagate_nan, False)


def _argext(name, x, axis, keepdims, propagate_nan, is_max):
    what = f"ct.{name}"
    x = _req_tile(x, what)
    d = x.dtype
    t = x._t
    if d.is_bool:
        t = t.to(torch.uint8)
    elif d.is_float:
        t = t.to(torch.float64)
        nan = torch.isnan(t)
        if propagate_nan:
            # the first NaN wins: make NaNs the unique extreme
            t = torch.where(nan, torch.full_like(t, float("inf") if is_max else float("-inf")),
                            torch.where(torch.isinf(t) & ((t > 0) if is_max else (t < 0)),
                                        torch.full_like(t, 1.7e308 if is_max else -1.7e308), t))
        else:
            t = torch.where(nan, torch.full_like(t, float("-inf") if is_max else float("inf")), t)
    fn = torch.argmax if is_max else torch.argmin
    if axis is None:
        r = fn(t.reshape(-1)) if t.dim() else torch.zeros((), dtype=torch.int64, device=t.device)
        if keepdims:
            r = r.reshape((1,) * x.ndim)
    else:
        if isinstance(axis, (tuple, list)):
            raise TileTypeError(f"{what}: a tuple of axes is not supported")
        (a,) = _axes(axis, x.ndim, what, allow_tuple=False)
        r = fn(t, dim=a, keepdim=keepdims)
    return Tile(r.to(torch.int32), D.int32)


def argmax(x, /, axis=None, *, keepdims=False, propagate_nan=False):
    return _argext("argmax", x, axis, keepdims, propagate_nan, True)


def argmin(x, /, axis=None, *, keepdims=False, propagate_nan=False):
    return _argext("argmin", x, axis, keepdims, propagate_nan, False)


def _as_tuple(x):
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def reduce(x, /, axis, func, identity, *, keepdims=False):
    what = "ct.reduce"
    xs, is_tuple = _as_tuple(x)
    xs = [_req_tile(t, what) for t in xs]
    ids, _ = _as_tuple(identity)
    if len(ids) != len(xs):
        raise TileTypeError(f"{what}: {len(xs)} tile(s) but {len(ids)} identity value(s)")
    shape = torch.broadcast_shapes(*[t.shape for t in xs])
    xs = [Tile(torch.broadcast_to(t._t, shape), t.dtype) for t in xs]
    (a,) = _axes(axis, len(shape), what, allow_tuple=False)
    rest = tuple(s for i, s in enumerate(shape) if i != a)
    acc = [Tile(_tensor(i, t.dtype, t._t.device).expand(rest).clone(), t.dtype)
           for i, t in zip(ids, xs)]
    for k in range(shape[a]):
        items = [Tile(t._t.select(a, k), t.dtype) for t in xs]
        res = func(*acc, *items)
        res, _ = _as_tuple(res)
        if len(res) != len(xs):
            raise TileTypeError(f"{what}: func returned {len(res)} value(s), expected {len(xs)}")
        acc = [Tile(torch.broadcast_to(_tensor(r, t.dtype, t._t.device), rest).clone(), t.dtype)
               for r, t in zip(res, xs)]
    if keepdims:
        acc = [Tile(t._t.unsqueeze(a), t.dtype) for t in acc]
    return tuple(acc) if is_tuple else acc[0]


def scan(x, /, axis, func, identity, *, reverse=False):
    what = "ct.scan"
    xs, is_tuple = _as_tuple(x)
    xs = [_req_tile(t, what) for t in xs]
    ids, _ = _as_tuple(identity)
    shape = torch.broadcast_shapes(*[t.shape for t in xs])
    xs = [Tile(torch.broadcast_to(t._t, shape), t.dtype) for t in xs]
    (a,) = _axes(axis, len(shape), what, allow_tuple=False)
    rest = tuple(s for i, s in enumerate(shape) if i != a)
    acc = [Tile(_tensor(i, t.dtype, t._t.device).expand(rest).clone(), t.dtype)
           for i, t in zip(ids, xs)]
    outs = [[None] * shape[a] for _ in xs]
    order = range(shape[a] - 1, -1, -1) if reverse else range(shape[a])
    for k in order:
        items = [Tile(t._t.select(a, k), t.dtype) for t in xs]
        res, _ = _as_tuple(func(*acc, *items))
        acc = [Tile(torch.broadcast_to(_tensor(r, t.dtype, t._t.device), rest).clone(), t.dtype)
               for r, t in zip(res, xs)]
        for j, t in enumerate(acc):
            outs[j][k] = t._t
    res = [Tile(torch.stack(o, dim=a), t.dtype) for o, t in zip(outs, xs)]
    return tuple(res) if is_tuple else res[0]


def _cumulative(name, x, axis, reverse, rounding_mode, flush_to_zero, fn):
    what = f"ct.{name}"
    x = _req_tile(x, what)
    _check_rounding(rounding_mode, what)
    d = x.dtype
    (a,) = _axes(axis, x.ndim, what, allow_tuple=False)
    if d.is_bool:
        x, d = astype(x, D.int32), D.int32
    wide, wd = (torch.float64, D.float64) if d.is_float else (torch.int64, D.int64)
    t = x._t.to(wide)
    if reverse:
        t = t.flip(a)
    r = fn(t, dim=a)
    if reverse:
        r = r.flip(a)
    return Tile(D.convert(r, wd, d), d)


def cumsum(x, /, axis=0, *, reverse=False, rounding_mode=None, flush_to_zero=False):
    return _cumulative("cumsum", x, axis, reverse, rounding_mode, flush_to_zero, torch.cumsum)


def cumprod(x, /, axis=0, *, reverse=False, rounding_mode=None, flush_to_zero=False):
    return _cumulative("cumprod", x, axis, reverse, rounding_mode, flush_to_zero, torch.cumprod)


# ---------------------------------------------------------------------------------------------
# Matrix products

_MMA_ACC = {
    "float8_e4m3fn": ("float16", "float32"),
    "float8_e5m2": ("float16", "float32"),
    "float16": ("float16", "float32"),
    "bfloat16": ("float32",),
    "float32": ("float32",),
    "tfloat32": ("float32",),
    "float64": ("float64",),
    "int8": ("int32",),
    "uint8": ("int32",),
}


def _mma_acc_dtype(xd: DType, yd: DType, accd, what):
    if xd is not yd and not (xd.name in ("int8", "uint8") and yd.name in ("int8", "uint8")):
        raise TileTypeError(f"{what}: x and y must have the same dtype unless they are "
                            f"int8/uint8, got {xd} and {yd}")
    if xd.name not in _MMA_ACC:
        raise TileTypeError(f"{what}: unsupported input dtype {xd}; supported: "
                            f"{', '.join(_MMA_ACC)}")
    allowed = _MMA_ACC[xd.name]
    if accd is None:
        return D.ALL_DTYPES[allowed[0]]
    if accd.name not in allowed:
        raise TileTypeError(f"{what}: unsupported accumulator dtype {accd} for {xd} inputs; "
                            f"supported: {', '.join(allowed)}")
    return accd


def _exact(t: Tile):
    """Exact wide value of a tile: float64 for floats, int64 for ints."""
    if t.dtype.is_float:
        return t._t.to(torch.float64)
    return t._t.to(torch.int64)


def _check_mm_shapes(xs, ys, what, allow_1d=False):
    lo = 1 if allow_1d else 2
    if not lo <= len(xs) <= 3 or not lo <= len(ys) <= 3:
        raise TileTypeError(f"{what}: operands must be {'1-D, ' if allow_1d else ''}2-D or 3-D, "
                            f"got shapes {xs} and {ys}")
    kx = xs[-1]
    ky = ys[-2] if len(ys) >= 2 else ys[0]
    if kx != ky:
        raise TileTypeError(f"{what}: inner dimensions differ: {xs} @ {ys}")


def _mm(a, b):
    if a.dtype == torch.int64:
        # integer matmul: exact via int64 (torch has CPU kernels for it; CUDA may not)
        if a.is_cuda:
            return torch.matmul(a.cpu(), b.cpu()).to(a.device)
    return torch.matmul(a, b)


def mma(x, y, /, acc, *, use_fast_acc=False):
    what = "ct.mma"
    x, y, acc = _req_tile(x, what), _req_tile(y, what), _req_tile(acc, what)
    accd = _mma_acc_dtype(x.dtype, y.dtype, acc.dtype, what)
    _check_mm_shapes(x.shape, y.shape, what)
    try:
        out_shape = torch.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + (x.shape[-2],
                                                                          y.shape[-1])
    except RuntimeError:
        raise TileTypeError(f"{what}: batch dimensions of {x.shape} and {y.shape} do not "
                            f"broadcast") from None
    if tuple(acc.shape) != tuple(out_shape):
        raise TileTypeError(f"{what}: acc has shape {acc.shape}, expected {tuple(out_shape)}")
    r = _mm(_exact(x), _exact(y)) + _exact(acc)
    return Tile(D.convert(r, D.float64 if r.dtype == torch.float64 else D.int64, accd), accd)


def matmul(x, y, /):
    what = "ct.matmul"
    x, y = _req_tile(x, what), _req_tile(y, what)
    common = D.promote_typed(x.dtype, y.dtype, what=what) if x.dtype is not y.dtype else x.dtype
    _mma_acc_dtype(common, common, None, what)
    _check_mm_shapes(x.shape, y.shape, what, allow_1d=True)
    xe = D.convert(x._t, x.dtype, common)
    ye = D.convert(y._t, y.dtype, common)
    xe = Tile(xe, common)
    ye = Tile(ye, common)
    r = torch.matmul(_exact(xe), _exact(ye)) if not common.is_int else _mm(_exact(xe), _exact(ye))
    return Tile(D.convert(r, D.float64 if r.dtype == torch.float64 else D.int64, common), common)


def _tile_matmul(self, o):
    """``Tile.__matmul__``: ``x @ y`` is ct.matmul (see the note in Tile)."""
    return matmul(self, o) if isinstance(o, Tile) else NotImplemented


def _tile_rmatmul(self, o):
    """``Tile.__rmatmul__``."""
    return matmul(o, self) if isinstance(o, Tile) else NotImplemented


Tile.__matmul__ = _tile_matmul
Tile.__rmatmul__ = _tile_rmatmul


def mma_scaled(x, x_scale, y, y_scale, /, acc):
    what = "ct.mma_scaled"
    x, y, acc = _req_tile(x, what), _req_tile(y, what), _req_tile(acc, what)
    xs, ys = _req_tile(x_scale, what), _req_tile(y_scale, what)
    if x.dtype is not y.dtype or xs.dtype is not ys.dtype:
        raise TileTypeError(f"{what}: x/y and x_scale/y_scale must have matching dtypes")
    if x.dtype.name not in ("float8_e4m3fn", "float8_e5m2"):
        raise InterpreterUnsupported(f"{what}: input dtype {x.dtype} is not supported by the "
                                     f"interpreter")
    if acc.dtype is not D.float32:
        raise TileTypeError(f"{what}: acc must be float32, got {acc.dtype}")
    K, Ks = x.shape[-1], xs.shape[-1]
    if Ks == 0 or K % Ks:
        raise TileTypeError(f"{what}: K={K} must be divisible by the scale's K_s={Ks}")
    B = K // Ks
    xv = _exact(x) * torch.repeat_interleave(_exact(xs), B, dim=-1)
    yv = _exact(y) * torch.repeat_interleave(_exact(ys), B, dim=-2)
    r = torch.matmul(xv, yv) + _exact(acc)
    return Tile(r.to(torch.float32), D.float32)


# ---------------------------------------------------------------------------------------------
# Bits

_SIGNED_OF_BITS = {8: torch.int8, 16: torch.int16, 32: torch.int32, 64: torch.int64}


def _dense(t: torch.Tensor) -> torch.Tensor:
    """A copy with plain row-major strides (``.view`` to another width needs them)."""
    out = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _bits_tensor(t: torch.Tensor, d: DType):
    """A dense tensor of width ``d.bits`` holding ``d``'s bit pattern."""
    if D.needs_mask(d):
        t = t.to(_SIGNED_OF_BITS[d.bits])
    return _dense(t)


def _from_bits(t: torch.Tensor, d: DType):
    if D.needs_mask(d):
        return D.wrap_unsigned(t.view(_SIGNED_OF_BITS[d.bits]).to(torch.int64), d)
    return t.view(d.repr_dtype)


def bitcast(x, /, dtype):
    what = "ct.bitcast"
    x = as_tile(x, what)
    d = D.as_dtype(dtype, what)
    D.check_representable(d, what)
    if x.dtype.is_bool or d.is_bool or x.dtype.bits != d.bits:
        raise TileTypeError(f"{what}: cannot reinterpret {x.dtype} as {d} (bit widths must match "
                            f"and bool is not allowed)")
    b = _bits_tensor(x._t, x.dtype)
    return Tile(_from_bits(b, d).clone(), d)


def pack_to_bytes(x, /):
    what = "ct.pack_to_bytes"
    x = _req_tile(x, what)
    if x.dtype.is_bool or x.dtype.bits % 8:
        raise TileTypeError(f"{what}: unsupported dtype {x.dtype}")
    b = _bits_tensor(x._t, x.dtype).reshape(-1).view(torch.uint8)
    return Tile(b.clone(), D.uint8)


def unpack_from_bytes(x, /, dtype):
    what = "ct.unpack_from_bytes"
    x = _req_tile(x, what)
    if x.dtype is not D.uint8 or x.ndim != 1:
        raise TileTypeError(f"{what}: expects a 1-D uint8 tile, got {x.dtype} {x.shape}")
    d = D.as_dtype(dtype, what)
    if d.is_bool or (x.shape[0] * 8) % d.bits:
        raise TileTypeError(f"{what}: cannot unpack {x.shape[0]} bytes as {d}")
    width = _SIGNED_OF_BITS[d.bits] if D.needs_mask(d) else d.repr_dtype
    t = _dense(x._t).view(width)
    if D.needs_mask(d):
        t = D.wrap_unsigned(t.to(torch.int64), d)
    return Tile(t.clone(), d)


# ---------------------------------------------------------------------------------------------
# Utilities

def _pyval(a):
    if isinstance(a, Tile):
        return a.tolist()
    return a


def printf(format, *args):
    tiles = [as_tile(a, "ct.printf") for a in args]
    if builtins.all(t.ndim == 0 for t in tiles):
        builtins.print(format % tuple(t.tolist() for t in tiles), end="")
        return
    shape = torch.broadcast_shapes(*[t.shape for t in tiles])
    flat = [torch.broadcast_to(t._t, shape).reshape(-1) for t in tiles]
    for k in range(math.prod(shape)):
        vals = tuple(Tile(f[k], t.dtype).tolist() for f, t in zip(flat, tiles))
        builtins.print(format % vals, end="")


def print(*args, sep=" ", end="\n"):
    builtins.print(*[str(a) for a in args], sep=sep, end=end)


def assert_(cond, /, message=None):
    c = as_tile(cond, "ct.assert_")
    if not bool(torch.all(c._t != 0 if not c.dtype.is_bool else c._t)):
        raise AssertionError(f"ct.assert_ failed in block {STATE.bid}"
                             + (f": {message}" if message else ""))


def static_eval(expr, /):
    return expr


def static_assert(condition, message=None, /):
    if isinstance(condition, Tile):
        raise TileStaticAssertionError("ct.static_assert: the condition is not a compile-time "
                                       "constant")
    if not condition:
        raise TileStaticAssertionError("Static assertion failed"
                                       + (f": {message}" if message is not None else ""))


def static_iter(iterable):
    return iterable


def static_exception(exc, /):
    return StaticException(exc)


def ensure_constant(value, /):
    if isinstance(value, Tile):
        raise TileStaticAssertionError("Argument of ensure_constant() is not a compile-time "
                                       "constant")
    return value


def grid_dependency_control_wait():
    return None


def grid_dependency_control_launch_dependents():
    return None
