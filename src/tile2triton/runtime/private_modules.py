"""Stand-ins for the private cuda.tile modules that real programs import on the host.

cuTile's own samples and op libraries reach past the public API in a few places: to ask the
GPU's compute capability (`cuda.tile._cext.get_compute_capability`), which TileIR bytecode
the compiler takes (`cuda.tile._compile._get_max_supported_bytecode_version`,
`cuda.tile._bytecode.version.BytecodeVersion`), or to import an enum or a dtype from the module
that defines it (`from cuda.tile._numeric_semantics import RoundingMode`, `from
cuda.tile._datatype import float16`). Under the runtime these answer for what serves the
launches (Triton), so such a program runs the path it runs under cuTile: BlockScaledMatMul
skips itself before Blackwell here as there. Anything else of cuTile's internals stays absent:
importing it fails as before (docs/runtime.md).
"""
from __future__ import annotations

import enum
import types

from . import api_types


class BytecodeVersion(enum.IntEnum):
    """The TileIR bytecode versions cuda-tile 1.7 names (major * 10000 + minor * 100)."""
    V_13_1 = 130100
    V_13_2 = 130200
    V_13_3 = 130300
    V_13_4 = 130400
    V_13_5 = 130500     # a development version: offered only with dev features on

    def major(self) -> int:
        return self.value // 10000

    def minor(self) -> int:
        return self.value // 100 % 100


def get_compute_capability(device_id: int = 0) -> tuple:
    """(major, minor) of CUDA device `device_id`, as torch reports it (under `run --cpu`, the
    emulated device's)."""
    import torch
    return tuple(torch.cuda.get_device_capability(device_id))


def dev_features_enabled() -> bool:
    """cuTile's development features: never on under the runtime."""
    return False


def _get_max_supported_bytecode_version(temp_dir: str = "", allow_dev: bool = False):
    """The newest bytecode the compiler takes. No TileIR compiler runs here: the launches are
    Triton's, so the newest released version is reported (the features it gates, such as
    block-scaled products, translate to Triton's; each launch then compiles for the GPU at
    hand or fails with its own error)."""
    return BytecodeVersion.V_13_5 if allow_dev else BytecodeVersion.V_13_4


def _module(name: str, doc: str, **names) -> types.ModuleType:
    mod = types.ModuleType(name, doc)
    mod.__dict__.update(names)
    mod.__all__ = sorted(n for n in names if not n.startswith("__"))
    return mod


def modules() -> dict:
    """sys.modules entries for the stand-ins, by dotted name."""
    dtypes = dict(api_types.DTYPES)
    bytecode = _module("cuda.tile._bytecode", "tile2triton's stand-in: the version module only")
    bytecode.__path__ = []
    version = _module("cuda.tile._bytecode.version", "tile2triton's stand-in",
                      BytecodeVersion=BytecodeVersion)
    bytecode.version = version
    return {
        "cuda.tile._cext": _module(
            "cuda.tile._cext", "tile2triton's stand-in: the host queries programs make",
            get_compute_capability=get_compute_capability,
            dev_features_enabled=dev_features_enabled, DType=api_types.DType, **dtypes),
        "cuda.tile._compile": _module(
            "cuda.tile._compile", "tile2triton's stand-in: the bytecode version query",
            _get_max_supported_bytecode_version=_get_max_supported_bytecode_version),
        "cuda.tile._bytecode": bytecode,
        "cuda.tile._bytecode.version": version,
        "cuda.tile._numeric_semantics": _module(
            "cuda.tile._numeric_semantics", "tile2triton's stand-in: cuTile's enums",
            RoundingMode=api_types.RoundingMode, PaddingMode=api_types.PaddingMode),
        "cuda.tile._datatype": _module(
            "cuda.tile._datatype", "tile2triton's stand-in: cuTile's dtypes",
            DType=api_types.DType, **dtypes),
    }
