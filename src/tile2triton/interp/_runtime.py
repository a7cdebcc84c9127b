"""Kernels, launches, annotations, and the fake ``cuda.tile`` module itself."""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import inspect
import itertools
import numbers
import os
import sys
import threading
import types
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import torch

from . import _dtypes as D
from ._errors import TileTypeError
from ._memory import Array
from ._paths import path_checked
from ._state import STATE
from ._tile import Tile

# ---------------------------------------------------------------------------------------------
# Annotations (same shapes as cuda.tile's: typing.Annotated metadata)


class ConstantAnnotation:
    def __repr__(self):
        return "ConstantAnnotation()"


T = TypeVar("T")
Constant = Annotated[T, ConstantAnnotation()]


@dataclass(frozen=True, kw_only=True)
class ArrayAnnotation:
    index_dtype: Any = D.int32
    static_shape_dims: tuple = ()
    static_stride_dims: tuple = ()


@dataclass(frozen=True, kw_only=True)
class ScalarAnnotation:
    dtype: Any


@dataclass(frozen=True, kw_only=True)
class ListAnnotation:
    element: Any


IndexedWithInt64 = Annotated[T, ArrayAnnotation(index_dtype=D.int64)]
ScalarInt64 = Annotated[T, ScalarAnnotation(dtype=D.int64)]


class ByTarget:
    """Per-target compiler option values; the interpreter ignores compiler options."""

    def __init__(self, *, default=None, **value_by_target):
        self.default = default
        self.value_by_target = value_by_target

    def __repr__(self):
        return f"ByTarget(default={self.default!r}, **{self.value_by_target!r})"


@dataclass
class _ParamInfo:
    constant: bool = False
    scalar_dtype: Any = None
    array: Any = None


def _param_infos(func):
    try:
        anns = inspect.get_annotations(func, eval_str=True)
    except Exception:
        anns = dict(getattr(func, "__annotations__", {}) or {})
    infos = {}
    for name, ann in anns.items():
        info = _ParamInfo()
        if isinstance(ann, str):
            info.constant = "Constant" in ann
            if "ScalarInt64" in ann:
                info.scalar_dtype = D.int64
            if "IndexedWithInt64" in ann:
                info.array = ArrayAnnotation(index_dtype=D.int64)
        else:
            for meta in getattr(ann, "__metadata__", ()) or ():
                cls = type(meta).__name__
                if cls == "ConstantAnnotation":
                    info.constant = True
                elif cls == "ScalarAnnotation":
                    info.scalar_dtype = D.as_dtype(meta.dtype)
                elif cls == "ArrayAnnotation":
                    info.array = meta
                elif cls == "ListAnnotation":
                    info.array = getattr(meta, "element", None)
        infos[name] = info
    return infos


# ---------------------------------------------------------------------------------------------
# Decorators

def _tile_aware_minmax(name, builtin, elementwise):
    def f(*args, **kwargs):
        if not kwargs and len(args) >= 2 and builtins.any(isinstance(a, Tile) for a in args):
            r = args[0]
            for a in args[1:]:
                r = elementwise(r, a)
            return r
        return builtin(*args, **kwargs)
    f.__name__ = name
    f.__qualname__ = name
    f._t2t_tile_aware = True
    return f


def _inject_builtins(func):
    """Make the builtins cuTile overloads for tiles (``min``, ``max``) tile-aware in the module of
    ``func``; they behave exactly like the builtins for non-tile arguments."""
    from ._tile import minimum, maximum
    g = getattr(func, "__globals__", None)
    if g is None:
        return
    for name, builtin, ew in (("min", builtins.min, minimum), ("max", builtins.max, maximum)):
        if name not in g:
            g[name] = _tile_aware_minmax(name, builtin, ew)


def function(func=None, /, *, host=False, tile=True):
    """``@ct.function``: a tile function.  The interpreter calls it as plain Python."""
    def deco(f):
        _inject_builtins(f)
        return f
    return deco if func is None else deco(func)


class kernel:
    """``@ct.kernel`` / ``@ct.kernel(**options)``: a kernel run by :func:`launch`."""

    def __new__(cls, function=None, /, **options):
        if function is None:
            return lambda f: kernel(f, **options)
        return super().__new__(cls)

    def __init__(self, function=None, /, **options):
        if not isinstance(function, types.FunctionType):
            raise TypeError("`kernel` decorator must be applied to a Python function")
        self._function = function
        self._options = options
        _inject_builtins(function)
        self._params = None
        functools_update(self, function)

    @property
    def _pyfunc(self):
        return self._function

    @property
    def pyfunc(self):
        return self._function

    def replace_hints(self, **hints):
        return kernel(self._function, **{**self._options, **hints})

    def __call__(self, *args, **kwargs):
        raise TypeError("Tile kernels cannot be called directly. Use cuda.tile.launch() instead.")

    def __repr__(self):
        return f"<interpreted cuTile kernel {self._function.__qualname__}>"


def functools_update(obj, f):
    for a in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            object.__setattr__(obj, a, getattr(f, a))
        except (AttributeError, TypeError):
            pass


# ---------------------------------------------------------------------------------------------
# Launch

def _convert_arg(v, info: _ParamInfo, device_box, path):
    if isinstance(v, torch.Tensor):
        if device_box[0] is None:
            device_box[0] = v.device
        ann = info.array
        if ann is not None:
            return Array(v, index_dtype=D.as_dtype(getattr(ann, "index_dtype", D.int32)),
                         static_shape_dims=tuple(getattr(ann, "static_shape_dims", ())),
                         static_stride_dims=tuple(getattr(ann, "static_stride_dims", ())))
        return Array(v)
    if isinstance(v, (Array, Tile)):
        return v
    if info.constant:
        return v
    if isinstance(v, bool):
        return Tile(torch.tensor(v), D.bool_)
    if isinstance(v, numbers.Integral):
        v = int(v)
        d = info.scalar_dtype or (D.int32 if -2**31 <= v < 2**31 else D.int64)
        return Tile(D.scalar_tensor(v, d, torch.device("cpu")), d)
    if isinstance(v, numbers.Real):
        return Tile(torch.tensor(float(v), dtype=torch.float32), D.float32)
    if isinstance(v, list):
        return [_convert_arg(x, info, device_box, path) for x in v]
    if isinstance(v, tuple):
        return tuple(_convert_arg(x, info, device_box, path) for x in v)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return dataclasses.replace(v, **{
            f.name: _convert_arg(getattr(v, f.name), info, device_box, path + "." + f.name)
            for f in dataclasses.fields(v) if f.init})
    if hasattr(v, "__cuda_array_interface__") or hasattr(v, "__dlpack__"):
        try:
            return _convert_arg(torch.from_dlpack(v), info, device_box, path)
        except Exception:
            pass
    if type(v).__module__ == "numpy" and hasattr(v, "shape"):
        return _convert_arg(torch.from_numpy(v), info, device_box, path)
    return v     # strings, None, dtypes, enums, ...: passed through as constants


def _grid3(grid):
    if isinstance(grid, numbers.Integral):
        grid = (grid,)
    g = tuple(int(x) for x in grid)
    if not 1 <= len(g) <= 3:
        raise TileTypeError(f"ct.launch: grid must have 1 to 3 dimensions, got {grid!r}")
    if builtins.any(x < 0 for x in g):
        raise TileTypeError(f"ct.launch: grid dimensions must be non-negative, got {grid!r}")
    return g + (1,) * (3 - len(g))


_RUN_LOCK = threading.RLock()


def run_kernel(kern, grid, args, *, block_order=None):
    """Run ``kern`` over ``grid`` (1 to 3 ints) with kernel arguments ``args`` (a tuple, as
    for ``ct.launch``).  Each block runs the kernel's Python function once, sequentially.

    ``kern`` may be an interpreter kernel (from a module imported under :func:`install`) or a
    kernel of the real cuda.tile, whose function is then re-bound to the interpreter.
    ``block_order`` may be ``"reverse"`` or ``"shuffle"`` to run blocks in another order.
    """
    func = _kernel_function(kern)
    checked = path_checked(func)     # loops whose carried types change are rejected
    g = _grid3(grid)
    sig = inspect.signature(func)
    infos = _param_infos(func)
    params = list(sig.parameters.values())
    args = tuple(args)
    if len(args) > len(params) and not builtins.any(p.kind == p.VAR_POSITIONAL for p in params):
        raise TypeError(f"ct.launch: kernel {func.__name__} takes {len(params)} argument(s), "
                        f"got {len(args)}")
    device_box = [None]
    conv = []
    for i, a in enumerate(args):
        p = params[i] if i < len(params) else None
        info = infos.get(p.name, _ParamInfo()) if p is not None else _ParamInfo()
        conv.append(_convert_arg(a, info, device_box, p.name if p else f"arg{i}"))
    device = device_box[0] or torch.device("cpu")
    if device.type != "cpu":
        conv = [_to_device(c, device) for c in conv]
    blocks = list(itertools.product(range(g[2]), range(g[1]), range(g[0])))
    blocks = [(x, y, z) for z, y, x in blocks]
    if block_order == "reverse":
        blocks.reverse()
    elif block_order == "shuffle":
        import random
        random.Random(0).shuffle(blocks)
    with _RUN_LOCK:
        saved = (STATE.bid, STATE.grid, STATE.device, STATE.kernel_name)
        STATE.grid, STATE.device, STATE.kernel_name = g, device, func.__qualname__
        try:
            for b in blocks:
                STATE.bid = b
                try:
                    checked(*conv)
                except Exception as e:
                    if not getattr(e, "_t2t_noted", False):
                        e.add_note(f"[cuTile interpreter] in kernel {func.__qualname__}, block "
                                   f"bid={b}, grid={g}")
                        e._t2t_noted = True
                    raise
        finally:
            STATE.bid, STATE.grid, STATE.device, STATE.kernel_name = saved


def _to_device(c, device):
    if isinstance(c, Tile):
        return Tile(c._t.to(device), c.dtype)
    if isinstance(c, list):
        return [_to_device(x, device) for x in c]
    if isinstance(c, tuple):
        return tuple(_to_device(x, device) for x in c)
    return c


def launch(stream, grid, kernel_, kernel_args, /, *, programmatic_dependent_launch=False):
    """``ct.launch``: run the kernel on the interpreter (the stream is ignored)."""
    if not isinstance(kernel_args, (tuple, list)):
        raise TypeError("ct.launch: kernel_args must be a tuple")
    run_kernel(kernel_, grid, kernel_args)


def _kernel_function(kern):
    if isinstance(kern, kernel):
        return kern._function
    f = getattr(kern, "_pyfunc", None) or getattr(kern, "pyfunc", None)
    if f is None and isinstance(kern, types.FunctionType):
        f = kern
    if f is None:
        raise TypeError(f"ct.launch: {kern!r} is not a kernel")
    return rebind_to_interpreter(f)


# ---------------------------------------------------------------------------------------------
# Re-binding functions written against the real cuda.tile

_REBOUND = {}


def rebind_to_interpreter(func):
    """A copy of ``func`` whose module globals refer to the interpreter's cuda.tile instead of
    the real one (module objects and names imported from it), recursively for the plain
    functions of the same module.  Functions already bound to the interpreter are returned."""
    g = func.__globals__
    real = sys.modules.get("cuda.tile")
    fake = FAKE_CT
    if real is None or real is fake:
        if not builtins.any(_is_real_ct_value(v) for v in g.values()):
            return func
    key = id(g)
    if key in _REBOUND and _REBOUND[key][0] is g:
        new_g = _REBOUND[key][1]
    else:
        new_g = dict(g)
        fake_names = {}
        for name in dir(fake):
            fake_names[name] = getattr(fake, name)
        done = {}
        for name, v in g.items():
            nv = _rebind_value(v, fake, fake_names, g, new_g, done)
            if nv is not v:
                new_g[name] = nv
        _inject_builtins(types.FunctionType((lambda: None).__code__, new_g))
        _REBOUND[key] = (g, new_g)
    return _copy_function(func, new_g)


def _is_real_ct_value(v):
    mod = getattr(v, "__module__", None) or ""
    if isinstance(v, types.ModuleType):
        return v.__name__ in ("cuda.tile", "cuda") and v is not FAKE_CT and v is not FAKE_CUDA
    return mod.startswith("cuda.tile")


def _rebind_value(v, fake, fake_names, g, new_g, done):
    if isinstance(v, types.ModuleType):
        if v.__name__ == "cuda.tile" and v is not fake:
            return fake
        if v.__name__ == "cuda" and v is not FAKE_CUDA:
            return FAKE_CUDA
        return v
    mod = getattr(v, "__module__", None) or ""
    if mod.startswith("cuda.tile"):
        name = getattr(v, "__name__", None)
        if name in fake_names:
            return fake_names[name]
        real = sys.modules.get("cuda.tile")
        if real is not None:
            for n in dir(real):
                try:
                    if getattr(real, n) is v and n in fake_names:
                        return fake_names[n]
                except Exception:
                    pass
        return v
    if hasattr(v, "_pyfunc") and type(v).__module__.startswith("cuda.tile"):
        return kernel(_copy_function(v._pyfunc, new_g) if v._pyfunc.__globals__ is g
                      else v._pyfunc)
    if getattr(v, "_cutile_function_wrapper", False) and hasattr(v, "__wrapped__"):
        w = v.__wrapped__
        return _copy_function(w, new_g) if w.__globals__ is g else w
    if isinstance(v, types.FunctionType) and v.__globals__ is g:
        return _copy_function(v, new_g)
    return v


def _copy_function(f, new_g):
    if f.__globals__ is new_g:
        return f
    nf = types.FunctionType(f.__code__, new_g, f.__name__, f.__defaults__, f.__closure__)
    nf.__kwdefaults__ = f.__kwdefaults__
    nf.__annotations__ = dict(getattr(f, "__annotations__", {}))
    nf.__qualname__ = f.__qualname__
    nf.__dict__.update(f.__dict__)
    return nf


# ---------------------------------------------------------------------------------------------
# The fake module, install(), load_module_with_interpreter()

FAKE_CT: types.ModuleType = None     # set by _module.build()
FAKE_CUDA: types.ModuleType = None


@contextlib.contextmanager
def install():
    """Context manager: while active, ``import cuda.tile`` (and ``from cuda.tile import ...``)
    gives the interpreter's module.  Modules imported inside keep it after the block exits."""
    names = [n for n in sys.modules if n == "cuda" or n == "cuda.tile"
             or n.startswith("cuda.tile.")]
    saved = {n: sys.modules[n] for n in names}
    try:
        for n in names:
            del sys.modules[n]
        sys.modules["cuda"] = FAKE_CUDA
        sys.modules["cuda.tile"] = FAKE_CT
        yield FAKE_CT
    finally:
        for n in list(sys.modules):
            if n == "cuda" or n == "cuda.tile" or n.startswith("cuda.tile."):
                if sys.modules[n] is FAKE_CT or sys.modules[n] is FAKE_CUDA \
                        or n.startswith("cuda.tile."):
                    del sys.modules[n]
        sys.modules.update(saved)


_LOAD_COUNTER = itertools.count()


def load_module_with_interpreter(path, name=None):
    """Import the Python file ``path`` with ``cuda.tile`` bound to the interpreter and return
    the module.  Its ``ct.launch`` calls then run on the interpreter."""
    path = os.fspath(path)
    if name is None:
        stem = os.path.splitext(os.path.basename(path))[0]
        parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
        name = f"_t2t_interp_{parent}_{stem}_{next(_LOAD_COUNTER)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__["min"] = _tile_aware_minmax("min", builtins.min, _lazy("minimum"))
    mod.__dict__["max"] = _tile_aware_minmax("max", builtins.max, _lazy("maximum"))
    sys.modules[name] = mod
    try:
        with install():
            spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


def _lazy(name):
    from . import _tile
    return getattr(_tile, name)


def is_interpreter_module(m) -> bool:
    return m is FAKE_CT
