"""The interpreter's drop-in ``cuda.tile`` module: ``from tile2triton.interp.module import ct``.

Every public name of cuda.tile that kernels use is defined here on top of torch; see
``docs/interpreter.md`` for what is covered.
"""

from __future__ import annotations

import contextlib
import importlib.util
import types
from typing import Union

from . import _dtypes, _errors, _enums, _memory, _ops, _runtime, _tile

__version__ = "interp"

ct = types.ModuleType("cuda.tile", "cuTile reference interpreter (tile2triton.interp) on torch")


def _compiler_timeout(*args, **kwargs):
    return contextlib.nullcontext()


class _Unsupported(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _errors.InterpreterUnsupported(
            f"{self.__name__}.{name} is not supported by the cuTile interpreter")


_NAMES = {
    # dtypes
    "DType": _dtypes.DType,
    **{name: d for name, d in _dtypes.ALL_DTYPES.items()},
    "foreign_pointer_dtype": _dtypes.foreign_pointer_dtype,
    # enums
    "PaddingMode": _enums.PaddingMode,
    "RoundingMode": _enums.RoundingMode,
    "MemoryOrder": _enums.MemoryOrder,
    "MemoryScope": _enums.MemoryScope,
    # exceptions
    "TileError": _errors.TileError,
    "TileSyntaxError": _errors.TileSyntaxError,
    "TileTypeError": _errors.TileTypeError,
    "TileValueError": _errors.TileValueError,
    "TileRecursionError": _errors.TileRecursionError,
    "TileUnsupportedFeatureError": _errors.TileUnsupportedFeatureError,
    "TileInternalError": _errors.TileInternalError,
    "TileCompilerExecutionError": _errors.TileCompilerExecutionError,
    "TileCompilerTimeoutError": _errors.TileCompilerTimeoutError,
    "TileStaticEvalError": _errors.TileStaticEvalError,
    "TileStaticAssertionError": _errors.TileStaticAssertionError,
    "StaticException": _errors.StaticException,
    # types and annotations
    "Array": _memory.Array,
    "Tile": _tile.Tile,
    "TiledView": _memory.TiledView,
    "RawArrayMemory": _memory.RawArrayMemory,
    "Slice": _memory.Slice,
    "Scalar": Union[int, float, _tile.Tile],
    "Constant": _runtime.Constant,
    "ConstantAnnotation": _runtime.ConstantAnnotation,
    "ArrayAnnotation": _runtime.ArrayAnnotation,
    "ScalarAnnotation": _runtime.ScalarAnnotation,
    "ListAnnotation": _runtime.ListAnnotation,
    "IndexedWithInt64": _runtime.IndexedWithInt64,
    "ScalarInt64": _runtime.ScalarInt64,
    "ByTarget": _runtime.ByTarget,
    # decorators and launch
    "kernel": _runtime.kernel,
    "function": _runtime.function,
    "launch": _runtime.launch,
    "compiler_timeout": _compiler_timeout,
    # block indices and tile spaces
    "bid": _ops.bid,
    "num_blocks": _ops.num_blocks,
    "num_tiles": _memory.num_tiles,
    "cdiv": _ops.cdiv,
    "assume_divisible_by": _ops.assume_divisible_by,
    # memory
    "load": _memory.load,
    "store": _memory.store,
    "gather": _memory.gather,
    "scatter": _memory.scatter,
    "load_advanced_indexing": _memory.load_advanced_indexing,
    "store_advanced_indexing": _memory.store_advanced_indexing,
    "atomic_cas": _memory.atomic_cas,
    "atomic_xchg": _memory.atomic_xchg,
    "atomic_add": _memory.atomic_add,
    "atomic_max": _memory.atomic_max,
    "atomic_min": _memory.atomic_min,
    "atomic_and": _memory.atomic_and,
    "atomic_or": _memory.atomic_or,
    "atomic_xor": _memory.atomic_xor,
    # factories
    "full": _ops.full,
    "zeros": _ops.zeros,
    "ones": _ops.ones,
    "arange": _ops.arange,
    "astile": _ops.astile,
    # matrix products
    "mma": _ops.mma,
    "mma_scaled": _ops.mma_scaled,
    "matmul": _ops.matmul,
    # shape and dtype
    "expand_dims": _tile.expand_dims,
    "cat": _tile.cat,
    "broadcast_to": _tile.broadcast_to,
    "reshape": _tile.reshape,
    "permute": _tile.permute,
    "transpose": _tile.transpose,
    "astype": _tile.astype,
    "bitcast": _ops.bitcast,
    "pack_to_bytes": _ops.pack_to_bytes,
    "unpack_from_bytes": _ops.unpack_from_bytes,
    "extract": _tile.extract,
    "insert": _tile.insert,
    "where": _tile.where,
    # reductions and scans
    "sum": _ops.sum,
    "max": _ops.max,
    "min": _ops.min,
    "prod": _ops.prod,
    "argmax": _ops.argmax,
    "argmin": _ops.argmin,
    "reduce": _ops.reduce,
    "cumsum": _ops.cumsum,
    "cumprod": _ops.cumprod,
    "scan": _ops.scan,
    # binary math
    "add": _tile.add,
    "sub": _tile.sub,
    "mul": _tile.mul,
    "truediv": _tile.truediv,
    "floordiv": _tile.floordiv,
    "mod": _tile.mod,
    "pow": _tile.pow,
    "divmod": _tile.divmod_,
    "atan2": _tile.atan2,
    "minimum": _tile.minimum,
    "maximum": _tile.maximum,
    "bitwise_and": _tile.bitwise_and,
    "bitwise_or": _tile.bitwise_or,
    "bitwise_xor": _tile.bitwise_xor,
    "bitwise_lshift": _tile.bitwise_lshift,
    "bitwise_rshift": _tile.bitwise_rshift,
    "bitwise_not": _tile.bitwise_not,
    # comparisons
    "equal": _tile.equal,
    "not_equal": _tile.not_equal,
    "less": _tile.less,
    "less_equal": _tile.less_equal,
    "greater": _tile.greater,
    "greater_equal": _tile.greater_equal,
    # unary math
    "exp": _tile.exp,
    "exp2": _tile.exp2,
    "log": _tile.log,
    "log2": _tile.log2,
    "sqrt": _tile.sqrt,
    "rsqrt": _tile.rsqrt,
    "sin": _tile.sin,
    "cos": _tile.cos,
    "tan": _tile.tan,
    "sinh": _tile.sinh,
    "cosh": _tile.cosh,
    "tanh": _tile.tanh,
    "floor": _tile.floor,
    "ceil": _tile.ceil,
    "abs": _tile.abs_,
    "negative": _tile.negative,
    "isnan": _tile.isnan,
    # utilities
    "printf": _ops.printf,
    "print": _ops.print,
    "assert_": _ops.assert_,
    "static_eval": _ops.static_eval,
    "static_assert": _ops.static_assert,
    "static_iter": _ops.static_iter,
    "static_exception": _ops.static_exception,
    "ensure_constant": _ops.ensure_constant,
    "grid_dependency_control_wait": _ops.grid_dependency_control_wait,
    "grid_dependency_control_launch_dependents": _ops.grid_dependency_control_launch_dependents,
}

for _k, _v in _NAMES.items():
    setattr(ct, _k, _v)
ct.__version__ = __version__
ct.__all__ = sorted(_NAMES)
from ._tune import tune as _tune_module  # noqa: E402

ct.tune = _tune_module
ct.compilation = _Unsupported("cuda.tile.compilation")
ct.__interpreter__ = True

cuda = types.ModuleType("cuda", "fake cuda package of the cuTile interpreter")
cuda.tile = ct
try:   # let other cuda.* packages (cuda.bindings, cuda.core, ...) still import
    _spec = importlib.util.find_spec("cuda")
    if _spec is not None and _spec.submodule_search_locations:
        cuda.__path__ = list(_spec.submodule_search_locations)
except (ImportError, ValueError):
    pass

_runtime.FAKE_CT = ct
_runtime.FAKE_CUDA = cuda
