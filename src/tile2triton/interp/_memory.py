"""Global arrays and every construct that reads or writes them.

An :class:`Array` wraps the torch tensor passed to ``ct.launch`` (any device); stores write into
it in place.  Tile-space loads copy the in-bounds part and fill the rest by padding mode;
``UNDETERMINED`` padding (the default) fills random values from a seedable source (see
``seed_undetermined``) so that results depending on it change from run to run.
"""

from __future__ import annotations

import math
import numbers
import warnings

import torch

from . import _dtypes as D
from ._dtypes import DType
from ._enums import padding_value_name
from ._errors import TileTypeError, TileValueError, InterpreterUnsupported, \
    UndefinedBehaviorWarning
from ._state import STATE, garbage
from ._tile import Tile, _tensor, _kind, const_shape, check_pow2, maximum, minimum, \
    add, bitwise_and, bitwise_or, bitwise_xor


def _ub(msg):
    where = f" (kernel {STATE.kernel_name}, block {STATE.bid})" if STATE.bid is not None else ""
    warnings.warn(msg + where, UndefinedBehaviorWarning, stacklevel=4)


def _typed_int(v: int, d: DType = D.int32) -> Tile:
    if not -2**31 <= v < 2**31:
        d = D.int64
    return Tile(torch.tensor(v, dtype=d.repr_dtype, device=STATE.device), d)


# ---------------------------------------------------------------------------------------------
# Arrays

class Array:
    """A global array (a kernel parameter that was a torch tensor)."""

    __slots__ = ("_t", "_dtype", "_index_dtype", "_static_shape", "_static_strides")

    def __init__(self, t: torch.Tensor, *, index_dtype: DType = D.int32,
                 static_shape_dims=(), static_stride_dims=()):
        self._t = t
        self._dtype = D.from_torch(t.dtype)
        self._index_dtype = index_dtype
        nd = t.dim()
        self._static_shape = {d % nd for d in static_shape_dims} if nd else set()
        self._static_strides = {d % nd for d in static_stride_dims} if nd else set()

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def shape(self) -> tuple:
        """Runtime values: 0-d int32 tiles (Python ints for ``static_shape_dims``)."""
        return tuple(s if i in self._static_shape else _typed_int(s, self._index_dtype)
                     for i, s in enumerate(self._t.shape))

    @property
    def strides(self) -> tuple:
        return tuple(s if i in self._static_strides else _typed_int(s, self._index_dtype)
                     for i, s in enumerate(self._t.stride()))

    @property
    def ndim(self) -> int:
        return self._t.dim()

    def torch(self) -> torch.Tensor:
        """The underlying torch tensor (debugging aid)."""
        return self._t

    def __repr__(self):
        return f"<array[{self._dtype}, {tuple(self._t.shape)}]>"

    def slice(self, axis, start, stop):
        what = "Array.slice"
        nd = self.ndim
        if isinstance(axis, Tile) or not isinstance(axis, numbers.Integral):
            raise TileTypeError(f"{what}: axis must be a constant integer")
        if not -nd <= axis < nd:
            raise TileValueError(f"{what}: axis {axis} out of range for rank {nd}")
        axis %= nd
        # constant bounds (Python ints) make the new extent a compile-time constant, as in
        # cuTile: it can then be a tile shape
        static = isinstance(start, numbers.Integral) and isinstance(stop, numbers.Integral) \
            and not isinstance(start, Tile) and not isinstance(stop, Tile)
        start, stop = _index_int(start, what), _index_int(stop, what)
        n = self._t.shape[axis]
        if not (0 <= start <= stop <= n):
            _ub(f"{what}: start={start}, stop={stop} violate 0 <= start <= stop <= {n}")
            start, stop = max(0, min(start, n)), max(0, min(stop, n))
        t = self._t.narrow(axis, start, stop - start)
        dims = (self._static_shape - {axis}) | ({axis} if static else set())
        return Array(t, index_dtype=self._index_dtype, static_shape_dims=tuple(dims),
                     static_stride_dims=tuple(self._static_strides))

    def tiled_view(self, tile_shape, *, padding_mode=None, traversal_steps=None):
        return TiledView(self, tile_shape, padding_mode, traversal_steps)

    def get_raw_memory(self):
        return RawArrayMemory(self)

    @property
    def foreign_pointer(self):
        raise InterpreterUnsupported("Array.foreign_pointer is not supported by the interpreter")

    @staticmethod
    def from_foreign(pointer, shape, strides):
        raise InterpreterUnsupported("Array.from_foreign is not supported by the interpreter")


def _req_array(a, what) -> Array:
    if isinstance(a, Array):
        return a
    if isinstance(a, torch.Tensor):
        return Array(a)
    raise TileTypeError(f"{what}: expected an array (a kernel parameter that is a tensor), got "
                        f"{type(a).__name__}")


def _index_int(i, what) -> int:
    if isinstance(i, Tile):
        if not i.dtype.is_int:
            raise TileTypeError(f"{what}: index must be an integer, got a {i.dtype} tile")
        if i.ndim != 0:
            raise TileTypeError(f"{what}: index must be a scalar, got a tile of shape {i.shape}")
        return int(i)
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise TileTypeError(f"{what}: index must be an integer, got {i!r}")
    return int(i)


def _index_tuple(index, ndim, what):
    if not isinstance(index, (tuple, list)):
        index = (index,)
    if len(index) != ndim:
        raise TileTypeError(f"{what}: index has {len(index)} element(s) but the array has rank "
                            f"{ndim}")
    return tuple(_index_int(i, what) for i in index)


def _order(order, ndim, what):
    if order == "C" or order is None:
        return tuple(range(ndim))
    if order == "F":
        return tuple(reversed(range(ndim)))
    if isinstance(order, (tuple, list)) and all(isinstance(o, numbers.Integral) for o in order):
        o = tuple(int(x) % ndim if ndim else int(x) for x in order)
        if sorted(o) == list(range(ndim)) and len(o) == ndim:
            return o
    raise TileValueError(f"{what}: order must be 'C', 'F' or a permutation of range({ndim}), "
                         f"got {order!r}")


def _fill(shape, mode, d: DType, device, what):
    if mode == "undetermined":
        return garbage(shape, d, device)
    if d.is_float:
        v = {"zero": 0.0, "neg_zero": -0.0, "nan": math.nan, "pos_inf": math.inf,
             "neg_inf": -math.inf}[mode]
        return D.scalar_tensor(v, d, device).expand(shape).clone()
    if mode in ("zero", "neg_zero"):
        return torch.zeros(shape, dtype=d.repr_dtype, device=device)
    raise TileTypeError(f"{what}: padding_mode {mode.upper()} needs a float array, the array is "
                        f"{d}")


def _window(view_shape, starts, sizes):
    """Source/destination slices of the in-bounds part of a window; None if it is empty."""
    src, dst = [], []
    full = True
    for dim, s, n in zip(view_shape, starts, sizes):
        lo, hi = max(s, 0), min(s + n, dim)
        if hi <= lo:
            return None, None, False
        if lo != s or hi != s + n:
            full = False
        src.append(slice(lo, hi))
        dst.append(slice(lo - s, hi - s))
    return tuple(src), tuple(dst), full


def load_window(arr: Array, view: torch.Tensor, starts, sizes, mode, check_bounds, what):
    d = arr._dtype
    D.check_representable(d, what)
    src, dst, full = _window(view.shape, starts, sizes)
    if full:
        return Tile(D.to_repr_from_array(view[src], d).clone(), d)
    if src is None:
        _ub(f"{what}: the tile at element offset {tuple(starts)} lies entirely outside the "
            f"array of shape {tuple(view.shape)}")
        mode = "undetermined"
    elif not check_bounds:
        _ub(f"{what}: check_bounds=False but the tile at element offset {tuple(starts)} "
            f"extends beyond the array of shape {tuple(view.shape)}")
        mode = "undetermined"
    out = _fill(tuple(sizes), mode, d, view.device, what)
    if src is not None:
        out[dst] = D.to_repr_from_array(view[src], d)
    return Tile(out, d)


def store_window(arr: Array, view: torch.Tensor, starts, values: torch.Tensor, check_bounds,
                 what):
    d = arr._dtype
    src, dst, full = _window(view.shape, starts, values.shape)
    if src is None:
        _ub(f"{what}: the tile at element offset {tuple(starts)} lies entirely outside the "
            f"array of shape {tuple(view.shape)}; nothing is stored")
        return
    if not full and not check_bounds:
        _ub(f"{what}: check_bounds=False but the tile at element offset {tuple(starts)} extends "
            f"beyond the array of shape {tuple(view.shape)}")
    vals = values if full else values[dst]
    view[src] = D.to_array_from_repr(vals, d, view.dtype)


def _tile_shape(shape, ndim, what, allow_scalar=True):
    shape = const_shape(shape, what)
    if shape == () and allow_scalar:
        return (), (1,) * ndim
    if len(shape) != ndim:
        raise TileTypeError(f"{what}: shape {shape} has rank {len(shape)} but the array has rank "
                            f"{ndim}")
    check_pow2(shape, what)
    return shape, shape


def load(array, /, index, shape, *, order="C", padding_mode=None, check_bounds=True,
         latency=None, allow_tma=None, memory_order=None, memory_scope=None):
    what = "ct.load"
    arr = _req_array(array, what)
    nd = arr.ndim
    idx = _index_tuple(index, nd, what)
    out_shape, shp = _tile_shape(shape, nd, what)
    perm = _order(order, nd, what)
    mode = padding_value_name(padding_mode, what)
    view = arr._t.permute(perm) if nd else arr._t
    starts = [i * s for i, s in zip(idx, shp)]
    tile = load_window(arr, view, starts, shp, mode, bool(check_bounds), what)
    if out_shape != shp:
        tile = Tile(tile._t.reshape(out_shape), tile._dtype)
    return tile


def _store_values(arr: Array, tile, what):
    k = _kind(tile, what)
    D.check_implicit_cast(k, arr._dtype, f"{what}: stored tile is incompatible with the "
                                         f"array's dtype")
    return _tensor(tile, arr._dtype, arr._t.device)


def store(array, /, index, tile, *, order="C", check_bounds=True, latency=None, allow_tma=None,
          memory_order=None, memory_scope=None):
    what = "ct.store"
    arr = _req_array(array, what)
    nd = arr.ndim
    idx = _index_tuple(index, nd, what)
    perm = _order(order, nd, what)
    vals = _store_values(arr, tile, what)
    if vals.dim() == 0:
        vals = vals.reshape((1,) * nd)
    elif vals.dim() != nd:
        raise TileTypeError(f"{what}: the tile has rank {vals.dim()} (shape {tuple(vals.shape)}) "
                            f"but the array has rank {nd}; reshape it, or store a 0-d tile")
    view = arr._t.permute(perm) if nd else arr._t
    starts = [i * s for i, s in zip(idx, vals.shape)]
    store_window(arr, view, starts, vals, bool(check_bounds), what)


def num_tiles(array, /, axis, shape, order="C"):
    what = "ct.num_tiles"
    arr = _req_array(array, what)
    nd = arr.ndim
    _, shp = _tile_shape(shape, nd, what)
    perm = _order(order, nd, what)
    if isinstance(axis, Tile) or not isinstance(axis, numbers.Integral) or not -nd <= axis < nd:
        raise TileValueError(f"{what}: axis must be a constant integer in [-{nd}, {nd}), got "
                             f"{axis!r}")
    axis %= nd
    n = arr._t.shape[perm[axis]]
    return _typed_int(-(-n // shp[axis]))


# ---------------------------------------------------------------------------------------------
# Tiled views

class TiledView:
    def __init__(self, array, tile_shape, padding_mode, traversal_steps):
        what = "Array.tiled_view"
        self._arr = _req_array(array, what)
        nd = self._arr.ndim
        ts = const_shape(tile_shape, what)
        if ts == ():
            self._out_shape, self._shape = (), (1,) * nd
        else:
            if len(ts) != nd:
                raise TileTypeError(f"{what}: tile_shape {ts} must have the array's rank {nd}")
            check_pow2(ts, what)
            self._out_shape = self._shape = ts
        self._mode = padding_value_name(padding_mode, what)
        if traversal_steps is None:
            self._steps = self._shape
        else:
            st = const_shape(traversal_steps, what)
            if len(st) != nd or any(s <= 0 for s in st):
                raise TileValueError(f"{what}: traversal_steps {st} must be {nd} positive "
                                     f"integers")
            self._steps = st

    @property
    def dtype(self):
        return self._arr.dtype

    @property
    def tile_shape(self):
        return self._out_shape

    @property
    def traversal_steps(self):
        return self._steps

    def num_tiles(self, axis):
        nd = self._arr.ndim
        axis = int(axis) % nd
        # one tile per origin 0, s, 2s, ... inside the array: cdiv(n, s). (Calibrated on the
        # H200: real cuTile counts this way; with s == tile it is the usual cdiv(n, tile).)
        n, s = self._arr._t.shape[axis], self._steps[axis]
        return _typed_int(-(-n // s))

    def _starts(self, index, what):
        idx = _index_tuple(index, self._arr.ndim, what)
        return [i * s for i, s in zip(idx, self._steps)]

    def load(self, index, *, check_bounds=True, latency=None, allow_tma=None):
        what = "TiledView.load"
        t = load_window(self._arr, self._arr._t, self._starts(index, what), self._shape,
                        self._mode, bool(check_bounds), what)
        if self._out_shape != self._shape:
            t = Tile(t._t.reshape(self._out_shape), t._dtype)
        return t

    def _values(self, tile, what):
        vals = _store_values(self._arr, tile, what)
        try:
            return torch.broadcast_to(vals.reshape(vals.shape if vals.dim() else ()),
                                      self._shape)
        except RuntimeError:
            raise TileTypeError(f"{what}: a tile of shape {tuple(vals.shape)} is not "
                                f"broadcastable to the tile shape {self._shape}") from None

    def store(self, index, tile, *, check_bounds=True, latency=None, allow_tma=None):
        what = "TiledView.store"
        vals = self._values(tile, what)
        store_window(self._arr, self._arr._t, self._starts(index, what), vals,
                     bool(check_bounds), what)

    def _atomic_store(self, index, update, op, what):
        vals = self._values(update, what)
        starts = self._starts(index, what)
        view = self._arr._t
        src, dst, full = _window(view.shape, starts, vals.shape)
        if src is None:
            _ub(f"{what}: the tile lies entirely outside the array")
            return
        d = self._arr._dtype
        old = Tile(D.to_repr_from_array(view[src], d).clone(), d)
        new = op(old, Tile(vals[dst], d))
        view[src] = D.to_array_from_repr(D.convert(new._t, new._dtype, d), d, view.dtype)

    def atomic_store_add(self, index, update, /):
        self._atomic_store(index, update, add, "TiledView.atomic_store_add")

    def atomic_store_max(self, index, update, /):
        self._atomic_store(index, update, maximum, "TiledView.atomic_store_max")

    def atomic_store_min(self, index, update, /):
        self._atomic_store(index, update, minimum, "TiledView.atomic_store_min")

    def atomic_store_and(self, index, update, /):
        self._atomic_store(index, update, bitwise_and, "TiledView.atomic_store_and")

    def atomic_store_or(self, index, update, /):
        self._atomic_store(index, update, bitwise_or, "TiledView.atomic_store_or")

    def atomic_store_xor(self, index, update, /):
        self._atomic_store(index, update, bitwise_xor, "TiledView.atomic_store_xor")


# ---------------------------------------------------------------------------------------------
# Gather / scatter / atomics

def _gs_indices(arr: Array, indices, what):
    nd = arr.ndim
    if not isinstance(indices, (tuple, list)):
        if nd != 1:
            raise TileTypeError(f"{what}: indices must be a tuple of {nd} index tiles for an array "
                                f"of rank {nd}")
        indices = (indices,)
    if len(indices) != nd:
        raise TileTypeError(f"{what}: got {len(indices)} index tile(s) for an array of rank "
                            f"{nd}")
    ts = []
    for i in indices:
        if isinstance(i, Tile):
            if not i.dtype.is_int:
                raise TileTypeError(f"{what}: indices must be integer tiles, got {i.dtype}")
            t = i._t.to(torch.int64)
        else:
            t = torch.tensor(_index_int(i, what), dtype=torch.int64, device=arr._t.device)
        ts.append(t.to(arr._t.device))
    try:
        ts = torch.broadcast_tensors(*ts)
    except RuntimeError:
        raise TileTypeError(f"{what}: index tiles of shapes {[tuple(t.shape) for t in ts]} are "
                            f"not broadcastable") from None
    shape = tuple(ts[0].shape) if ts else ()      # a 0-d array: `()` names its one element
    valid = torch.ones(shape, dtype=torch.bool, device=arr._t.device)
    for t, n in zip(ts, arr._t.shape):
        valid &= (t >= 0) & (t < n)
    safe = tuple(torch.where(valid, t, torch.zeros_like(t)) for t in ts)
    return safe, valid, shape


def _mask(mask, shape, device, what):
    if mask is None:
        return torch.ones(shape, dtype=torch.bool, device=device)
    if isinstance(mask, Tile):
        if not mask.dtype.is_bool:
            raise TileTypeError(f"{what}: mask must be a bool tile, got {mask.dtype}")
        m = mask._t.to(device)
    elif isinstance(mask, bool):
        m = torch.tensor(mask, device=device)
    else:
        raise TileTypeError(f"{what}: mask must be a bool tile, got {mask!r}")
    try:
        return torch.broadcast_to(m, shape)
    except RuntimeError:
        raise TileTypeError(f"{what}: mask of shape {tuple(m.shape)} is not broadcastable to the "
                            f"index shape {shape}") from None


def _operand_values(arr: Array, v, shape, what, name):
    D.check_implicit_cast(_kind(v, what), arr._dtype, f"{what}: {name} is incompatible with the "
                                                      f"array's dtype")
    t = _tensor(v, arr._dtype, arr._t.device)
    try:
        return torch.broadcast_to(t, shape)
    except RuntimeError:
        raise TileTypeError(f"{what}: {name} of shape {tuple(t.shape)} is not broadcastable to "
                            f"the index shape {shape}") from None


def _unsafe(valid, check_bounds, what):
    if not check_bounds and not bool(valid.all()):
        _ub(f"{what}: check_bounds=False with out-of-bounds indices")


def gather(array, indices, /, *, mask=None, padding_value=0, check_bounds=True, latency=None):
    what = "ct.gather"
    arr = _req_array(array, what)
    D.check_representable(arr._dtype, what)
    safe, valid, shape = _gs_indices(arr, indices, what)
    m = _mask(mask, shape, arr._t.device, what)
    pad = _operand_values(arr, padding_value, shape, what, "padding_value")
    vals = D.to_repr_from_array(arr._t[safe], arr._dtype)
    out = torch.where(valid & m, vals, pad)
    if not check_bounds and not bool((valid | ~m).all()):
        _ub(f"{what}: check_bounds=False with out-of-bounds indices")
        g = garbage(shape, arr._dtype, arr._t.device)
        out = torch.where(~valid & m, g, out)
    return Tile(out.clone(), arr._dtype)


def scatter(array, indices, value, /, *, mask=None, check_bounds=True, latency=None):
    what = "ct.scatter"
    arr = _req_array(array, what)
    safe, valid, shape = _gs_indices(arr, indices, what)
    m = _mask(mask, shape, arr._t.device, what)
    vals = _operand_values(arr, value, shape, what, "value")
    _unsafe(valid | ~m, check_bounds, what)
    eff = valid & m
    if not bool(eff.any()):
        return
    if not safe:                                    # a 0-d array
        arr._t[...] = D.to_array_from_repr(vals, arr._dtype, arr._t.dtype)
        return
    idx = tuple(t[eff] for t in safe)
    arr._t[idx] = D.to_array_from_repr(vals[eff], arr._dtype, arr._t.dtype)


def _linear(safe, shape):
    lin = torch.zeros_like(safe[0])
    for t, n in zip(safe, shape):
        lin = lin * n + t
    return lin


def _atomic(what, array, indices, operands, combine, check_bounds, oob_result=None):
    """Apply ``combine(old, *operands) -> (new, written_mask)`` element by element, atomically per
    element, in index order; returns the old values."""
    arr = _req_array(array, what)
    d = arr._dtype
    safe, valid, shape = _gs_indices(arr, indices, what)
    ops = [_operand_values(arr, v, shape, what, name) for name, v in operands]
    _unsafe(valid, check_bounds, what)
    old_all = garbage(shape, d, arr._t.device) if oob_result is None else oob_result(ops).clone()
    if not bool(valid.any()):
        return Tile(old_all, d)
    if not safe:                                    # a 0-d array: its one element
        old = D.to_repr_from_array(arr._t[()], d).clone()
        new = combine(Tile(old, d), *[Tile(o, d) for o in ops])
        arr._t[()] = D.to_array_from_repr(D.convert(new._t, new._dtype, d), d, arr._t.dtype)
        return Tile(old, d)
    flat_idx = tuple(t[valid] for t in safe)
    flat_ops = [o[valid] for o in ops]
    lin = _linear(flat_idx, arr._t.shape)
    if torch.unique(lin).numel() == lin.numel():
        old = D.to_repr_from_array(arr._t[flat_idx], d).clone()
        new = combine(Tile(old, d), *[Tile(o, d) for o in flat_ops])
        arr._t[flat_idx] = D.to_array_from_repr(D.convert(new._t, new._dtype, d), d, arr._t.dtype)
    else:  # duplicate targets: one element at a time, in index order
        olds = []
        for k in range(lin.numel()):
            pos = tuple(t[k] for t in flat_idx)
            o = D.to_repr_from_array(arr._t[pos], d).clone()
            new = combine(Tile(o, d), *[Tile(x[k], d) for x in flat_ops])
            arr._t[pos] = D.to_array_from_repr(D.convert(new._t, new._dtype, d), d, arr._t.dtype)
            olds.append(o)
        old = torch.stack(olds)
    old_all = old_all.clone()
    old_all[valid] = old
    return Tile(old_all, d)


def _rmw(name, combine):
    def f(array, indices, update, /, *, check_bounds=True, memory_order=None, memory_scope=None):
        return _atomic(f"ct.{name}", array, indices, [("update", update)], combine, check_bounds)
    f.__name__ = name
    return f


def _xchg(old, upd):
    return upd


atomic_xchg = _rmw("atomic_xchg", _xchg)
atomic_add = _rmw("atomic_add", lambda o, u: add(o, u))
atomic_max = _rmw("atomic_max", lambda o, u: maximum(o, u))
atomic_min = _rmw("atomic_min", lambda o, u: minimum(o, u))
atomic_and = _rmw("atomic_and", lambda o, u: bitwise_and(o, u))
atomic_or = _rmw("atomic_or", lambda o, u: bitwise_or(o, u))
atomic_xor = _rmw("atomic_xor", lambda o, u: bitwise_xor(o, u))


_SAME_WIDTH_INT = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def _cas(old, expected, desired):
    """The swap happens where the element's bits equal `expected`'s: the GPU's compare-and-swap
    compares bit patterns, so a NaN matches the same NaN and -0.0 does not match 0.0."""
    from ._tile import where, equal
    a, b = old._t, expected._t
    if old._dtype.is_float and a.dtype == b.dtype and a.element_size() in _SAME_WIDTH_INT:
        ints = _SAME_WIDTH_INT[a.element_size()]
        same = Tile(a.contiguous().view(ints) == b.contiguous().view(ints), D.bool_)
        return where(same, desired, old)
    return where(equal(old, expected), desired, old)


def atomic_cas(array, indices, expected, desired, /, *, check_bounds=True, memory_order=None,
               memory_scope=None):
    return _atomic("ct.atomic_cas", array, indices, [("expected", expected),
                                                     ("desired", desired)],
                   _cas, check_bounds, oob_result=lambda ops: ops[0])


# ---------------------------------------------------------------------------------------------
# Raw memory

class RawArrayMemory:
    def __init__(self, arr: Array):
        t = arr._t
        n = t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()
        self._flat = Array(torch.as_strided(t, (n,), (1,)))

    @property
    def dtype(self):
        return self._flat.dtype

    def load_offset(self, offset, /, *, mask=None, padding_value=0, latency=None):
        return gather(self._flat, offset, mask=mask, padding_value=padding_value)

    def store_offset(self, offset, value, /, *, mask=None, latency=None):
        scatter(self._flat, offset, value, mask=mask)

    def _masked(self, name, combine, offset, operands, mask, oob=None):
        if mask is not None:
            safe_off = _masked_offsets(offset, mask)
            return _atomic(name, self._flat, safe_off, operands, combine, True, oob)
        return _atomic(name, self._flat, offset, operands, combine, True, oob)

    def atomic_cas_offset(self, offset, expected, desired, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_cas_offset", _cas, offset,
                            [("expected", expected), ("desired", desired)], mask,
                            lambda ops: ops[0])

    def atomic_xchg_offset(self, offset, update, /, *, mask=None, memory_order=None,
                           memory_scope=None):
        return self._masked("RawArrayMemory.atomic_xchg_offset", _xchg, offset,
                            [("update", update)], mask)

    def atomic_add_offset(self, offset, update, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_add_offset", add, offset,
                            [("update", update)], mask)

    def atomic_max_offset(self, offset, update, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_max_offset", maximum, offset,
                            [("update", update)], mask)

    def atomic_min_offset(self, offset, update, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_min_offset", minimum, offset,
                            [("update", update)], mask)

    def atomic_and_offset(self, offset, update, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_and_offset", bitwise_and, offset,
                            [("update", update)], mask)

    def atomic_or_offset(self, offset, update, /, *, mask=None, memory_order=None,
                         memory_scope=None):
        return self._masked("RawArrayMemory.atomic_or_offset", bitwise_or, offset,
                            [("update", update)], mask)

    def atomic_xor_offset(self, offset, update, /, *, mask=None, memory_order=None,
                          memory_scope=None):
        return self._masked("RawArrayMemory.atomic_xor_offset", bitwise_xor, offset,
                            [("update", update)], mask)


def _masked_offsets(offset, mask):
    """Offsets with masked-off lanes moved out of bounds (-1), so they are skipped."""
    from ._tile import where
    return where(mask, offset, -1)


# ---------------------------------------------------------------------------------------------
# Advanced indexing

class Slice:
    """``ct.Slice(start, length)``: a dense dimension of load/store_advanced_indexing."""

    def __init__(self, start, length, /):
        self.start = start
        self.length = length


def _adv_indices(arr: Array, indices, what):
    nd = arr.ndim
    if not isinstance(indices, (tuple, list)) or len(indices) != nd:
        raise TileTypeError(f"{what}: indices must be a tuple of length {nd} (the array's rank)")
    sparse = [i for i, x in enumerate(indices) if isinstance(x, Tile)]
    if len(sparse) != 1 or indices[sparse[0]].ndim != 1 or not indices[sparse[0]].dtype.is_int:
        raise TileTypeError(f"{what}: exactly one entry must be a 1-D integer tile (the sparse "
                            f"dimension); the others ct.Slice(start, length)")
    shape = []
    for i, x in enumerate(indices):
        if i == sparse[0]:
            shape.append(x.shape[0])
        elif isinstance(x, Slice):
            n = x.length
            if isinstance(n, Tile) or not isinstance(n, numbers.Integral):
                raise TileTypeError(f"{what}: Slice length must be a constant integer")
            shape.append(int(n))
        else:
            raise TileTypeError(f"{what}: entry {i} must be a ct.Slice, got {x!r}")
    check_pow2(shape, what)
    dev = arr._t.device
    ts = []
    for i, x in enumerate(indices):
        view = [1] * nd
        view[i] = shape[i]
        if i == sparse[0]:
            t = x._t.to(torch.int64).to(dev)
        else:
            t = torch.arange(shape[i], device=dev) + _index_int(x.start, what)
        ts.append(t.reshape(view))
    ts = torch.broadcast_tensors(*ts)
    valid = torch.ones(tuple(shape), dtype=torch.bool, device=dev)
    for t, n in zip(ts, arr._t.shape):
        valid &= (t >= 0) & (t < n)
    safe = tuple(torch.where(valid, t, torch.zeros_like(t)) for t in ts)
    return safe, valid, tuple(shape)


def load_advanced_indexing(array, indices, /, *, padding_mode=None, latency=None,
                           allow_tma=None):
    what = "ct.load_advanced_indexing"
    arr = _req_array(array, what)
    safe, valid, shape = _adv_indices(arr, indices, what)
    mode = padding_value_name(padding_mode, what)
    vals = D.to_repr_from_array(arr._t[safe], arr._dtype)
    if bool(valid.all()):
        return Tile(vals.clone(), arr._dtype)
    fill = _fill(shape, mode, arr._dtype, arr._t.device, what)
    return Tile(torch.where(valid, vals, fill), arr._dtype)


def store_advanced_indexing(array, indices, tile, /, *, latency=None, allow_tma=None):
    what = "ct.store_advanced_indexing"
    arr = _req_array(array, what)
    safe, valid, shape = _adv_indices(arr, indices, what)
    vals = _store_values(arr, tile, what)
    if vals.dim() and tuple(vals.shape) != shape:
        raise TileTypeError(f"{what}: the tile's shape {tuple(vals.shape)} must equal the shape "
                            f"implied by the indices {shape}")
    vals = torch.broadcast_to(vals, shape)
    idx = tuple(t[valid] for t in safe)
    arr._t[idx] = D.to_array_from_repr(vals[valid], arr._dtype, arr._t.dtype)
