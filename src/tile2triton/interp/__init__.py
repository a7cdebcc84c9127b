"""cuTile reference interpreter on torch: run cuTile kernels on the CPU (or on CUDA tensors)
with no GPU compiler.

It is the independent oracle of tile2triton: built only from cuTile's documented semantics,
sharing no code with the translator.

Usage::

    from tile2triton import interp

    mod = interp.load_module_with_interpreter("corpus/vec_add/kernel.py")
    mod.launch(None, x=x, y=y, out=out)          # ct.launch inside runs on the interpreter

    with interp.install():                       # or: import anything under install()
        import my_kernels
    interp.run_kernel(my_kernels.add_kernel, (grid,), (x, y, out, TILE))

See docs/interpreter.md.
"""

from ._dtypes import DType
from ._errors import (TileError, TileTypeError, TileValueError, InterpreterUnsupported,
                      UndefinedBehaviorWarning)
from ._memory import Array
from ._runtime import install, load_module_with_interpreter, run_kernel, launch, \
    rebind_to_interpreter
from ._state import garbage_calls, seed_undetermined
from ._tile import Tile
from ._upstream import allow_private_imports
from .module import ct

__all__ = [
    "ct", "install", "load_module_with_interpreter", "run_kernel", "launch",
    "rebind_to_interpreter", "allow_private_imports", "seed_undetermined", "garbage_calls",
    "Tile", "Array", "DType", "TileError",
    "TileTypeError", "TileValueError", "InterpreterUnsupported", "UndefinedBehaviorWarning",
]
