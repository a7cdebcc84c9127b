"""Make `import cuda.tile` give tile2triton's runtime (`tile2triton.cutile`)."""
from __future__ import annotations

import os
import sys
import types

from . import launching, private_modules
from .launching import ENV_CUDA_ON_CPU, ENV_KEEP_CUTILE


# -- installing cuda.tile ----------------------------------------------------------------------

def install(keep_cutile: bool = False) -> bool:
    """Make `import cuda.tile` give tile2triton's runtime (`tile2triton.cutile`). With
    `keep_cutile`, a cuda-tile that imports is kept and nothing is installed. True when the
    runtime serves cuda.tile afterwards."""
    if keep_cutile:
        try:
            import cuda.tile  # noqa: F401
            if not getattr(sys.modules.get("cuda.tile"), "__cutile_api__", False):
                return False
        except Exception:  # noqa: BLE001 - absent or broken: the runtime serves it
            for name in [m for m in sys.modules if m == "cuda.tile"
                         or m.startswith("cuda.tile.")]:
                del sys.modules[name]
    from .. import cutile as ct
    cuda = sys.modules.get("cuda")
    if cuda is None:
        try:
            import cuda  # a namespace package of other cuda-* wheels (cuda.bindings, ...)
        except ImportError:
            cuda = types.ModuleType("cuda", "namespace of tile2triton's cuda.tile")
            cuda.__path__ = []
            sys.modules["cuda"] = cuda
    sys.modules["cuda.tile"] = ct
    sys.modules["cuda.tile.tune"] = ct.tune
    sys.modules["cuda.tile.compilation"] = ct.compilation
    # the private modules programs import on the host (a capability query, an enum's home)
    private = private_modules.modules()
    sys.modules.update(private)
    for name, module in private.items():   # `from cuda.tile import _datatype` finds them too
        if name.count(".") == 2:
            setattr(ct, name.rsplit(".", 1)[1], module)
    cuda.tile = ct
    return True


def install_from_env() -> None:
    """What the sitecustomize of `tile2triton run` calls in each Python process."""
    if os.environ.get(ENV_CUDA_ON_CPU) == "1":
        from . import emulation
        emulation.enable()
        launching.emulate()
    install(keep_cutile=os.environ.get(ENV_KEEP_CUTILE) == "1")
