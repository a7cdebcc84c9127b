"""`import tile2triton.cutile as ct`: cuTile's Python API, with every launch served by Triton.

A drop-in for `cuda.tile` that needs no cuda-tile install and no CUDA 13 driver: a program's
kernels run as their Triton translations (`tile2triton.live.translate_kernel`, the translator
behind `tile2triton convert`), on any GPU Triton targets or, under TRITON_INTERPRET=1, on the
CPU. `tile2triton run -- python prog.py` makes `import cuda.tile as ct` resolve to this module
for an unmodified program (docs/runtime.md; the engine is `tile2triton.runtime`).

What runs on the host is real: `ct.kernel`, `ct.function`, `ct.launch`, `ct.cdiv`,
`ct.Constant` and the other annotations, the dtypes and enums, `ct.ByTarget`,
`kernel.replace_hints`, `ct.tune.exhaustive_search`, `ct.compiler_timeout`, the exception
classes. What runs only in tile code (`ct.load`, `ct.mma`, `ct.bid`, ...) is here so that
programs import and name it; the translator reads kernels from their source and never calls
these functions, and calling one from host code is an error, as in cuTile.
"""
from __future__ import annotations

import contextlib

from .runtime import compilation, tune
from .runtime.api_types import (  # noqa: F401 - the API
    Array, ArrayAnnotation, ByTarget, Constant, ConstantAnnotation, DType, IndexedWithInt64,
    KernelNotTranslated, ListAnnotation, MemoryOrder, MemoryScope, PaddingMode, RoundingMode,
    Scalar, ScalarAnnotation, ScalarInt64, Slice, StaticException, Tile, TiledView,
    TileCompilerExecutionError, TileCompilerTimeoutError, TileError, TileInternalError,
    TileRecursionError, TileStaticAssertionError, TileStaticEvalError, TileSyntaxError,
    TileTypeError, TileUnsupportedFeatureError, TileValueError, bfloat16, bool_, float4_e2m1fn,
    float8_e4m3fn, float8_e5m2, float8_e5m3fnu, float8_e8m0fnu, float16, float32, float64,
    foreign_pointer_dtype, int8, int16, int32, int64, tfloat32, uint8, uint16, uint32, uint64,
    DTYPES as _DTYPES)
from .runtime.launching import Kernel as kernel, function, launch

__version__ = "tile2triton"
# live.py's extraction knows this module as cuda.tile by this mark (it is not named so)
__cutile_api__ = True


def cdiv(x, y, /):
    """Ceiling division of integers (host code; in tile code the translator's)."""
    return -(-x // y)


@contextlib.contextmanager
def compiler_timeout(timeout_sec: float):
    """cuTile's compile time limit: Triton compiles without one, so it is accepted and has
    no effect."""
    yield


# -- tile code --------------------------------------------------------------------------------

_TILE_ONLY = (
    "abs", "add", "arange", "argmax", "argmin", "assert_", "assume_divisible_by", "astile",
    "astype", "atan2", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
    "atomic_or", "atomic_xchg", "atomic_xor", "bitwise_and", "bitwise_lshift", "bitwise_not",
    "bitwise_or", "bitwise_rshift", "bitwise_xor", "bid", "bitcast", "broadcast_to", "cat",
    "ceil", "cos", "cosh", "cumprod", "cumsum", "divmod", "ensure_constant", "equal", "exp",
    "exp2", "expand_dims", "extract", "floor", "floordiv", "full", "gather", "greater",
    "greater_equal", "insert", "less", "less_equal", "load", "load_advanced_indexing", "log",
    "log2", "matmul", "max", "maximum", "min", "minimum", "mma", "mma_scaled", "mod", "mul",
    "negative", "isnan", "not_equal", "num_blocks", "num_tiles", "ones", "pack_to_bytes",
    "permute", "pow", "printf", "print", "prod", "reduce", "reshape", "rsqrt", "scan",
    "scatter", "sin", "sinh", "sqrt", "static_assert", "static_eval", "static_exception",
    "static_iter", "store", "store_advanced_indexing", "sub", "sum", "tan", "tanh",
    "transpose", "truediv", "unpack_from_bytes", "where", "zeros",
    "grid_dependency_control_wait", "grid_dependency_control_launch_dependents",
)


def _tile_only(name):
    def construct(*args, **kwargs):
        raise TypeError(f"ct.{name} is tile code: call it inside a @ct.kernel or @ct.function "
                        "(the kernel runs as its Triton translation)")
    construct.__name__ = construct.__qualname__ = name
    construct.__module__ = __name__
    return construct


for _name in _TILE_ONLY:
    globals()[_name] = _tile_only(_name)
del _name

__all__ = [
    "launch", "ByTarget", "MemoryOrder", "MemoryScope", "PaddingMode", "RoundingMode", "DType",
    *_DTYPES, "foreign_pointer_dtype",
    "TileCompilerExecutionError", "TileCompilerTimeoutError", "TileError", "TileInternalError",
    "TileRecursionError", "TileStaticAssertionError", "TileStaticEvalError", "TileSyntaxError",
    "TileTypeError", "TileUnsupportedFeatureError", "TileValueError", "StaticException",
    "Array", "ArrayAnnotation", "Constant", "ConstantAnnotation", "IndexedWithInt64",
    "ListAnnotation", "Scalar", "ScalarInt64", "Slice", "Tile", "TiledView",
    *_TILE_ONLY, "cdiv", "compiler_timeout", "tune", "function", "kernel", "compilation",
]
