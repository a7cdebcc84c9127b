"""Stand-ins for the private cuda.tile modules that real programs import on the host.

cuTile's own samples and op libraries reach past the public API in a few places: to ask the
GPU's compute capability (`cuda.tile._cext.get_compute_capability`), which TileIR bytecode
the compiler takes (`cuda.tile._compile._get_max_supported_bytecode_version`,
`cuda.tile._bytecode.version.BytecodeVersion`), or to import an enum or a dtype from the module
that defines it (`from cuda.tile._numeric_semantics import RoundingMode`, `from
cuda.tile._datatype import float16`). cuTile's own test harness (test/conftest.py, util.py)
also asks for the GPU's arch string, the compiler's path, the supported bytecode versions, a
dtype conversion and the exception classes' home module. Under the runtime these answer for
what serves the launches (Triton), so such a program runs the path it runs under cuTile:
BlockScaledMatMul skips itself before Blackwell here as there. Anything else of cuTile's
internals stays absent: importing it fails as before (docs/runtime.md).
"""
from __future__ import annotations

import dataclasses
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

    def tag(self) -> int:
        return self.value % 100

    def as_string(self) -> str:
        return f"{self.major()}.{self.minor()}" + (f".{self.tag()}" if self.tag() else "")


# What the compiler accepts without dev features: the released versions.
_SUPPORTED_VERSIONS = [BytecodeVersion.V_13_1, BytecodeVersion.V_13_2, BytecodeVersion.V_13_3,
                       BytecodeVersion.V_13_4]


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


def get_sm_arch(device_id: int = 0) -> str:
    major, minor = get_compute_capability(device_id)
    return f"sm_{major}{minor}"


@dataclasses.dataclass(frozen=True)
class CompilerBin:
    """What `_find_compiler_bin` answers: here the compiler that serves the launches."""
    path: str


def _find_compiler_bin() -> CompilerBin:
    import triton
    return CompilerBin(f"triton {triton.__version__} (tile2triton runtime; no tileiras)")


def to_dtype(x) -> api_types.DType:
    """A cuTile dtype for a cuTile, torch or numpy dtype (cuTile's `_ir.typing_support`)."""
    if isinstance(x, api_types.DType):
        return x
    if hasattr(x, "is_floating_point"):     # torch.float16
        name = str(x).removeprefix("torch.")
    else:                                   # np.dtype("float16")
        name = getattr(x, "name", None)
    name = "bool_" if name == "bool" else name
    if name not in api_types.DTYPES:
        raise TypeError(f"{x} is not a dtype")
    return api_types.DTYPES[name]


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
    ir = _module("cuda.tile._ir", "tile2triton's stand-in: the dtype conversion only")
    ir.__path__ = []
    ir.typing_support = _module("cuda.tile._ir.typing_support", "tile2triton's stand-in",
                                to_dtype=to_dtype)
    errors = {n: getattr(api_types, n) for n in dir(api_types)
              if isinstance(getattr(api_types, n), type)
              and issubclass(getattr(api_types, n), api_types.TileError)}
    return {
        "cuda.tile._cext": _module(
            "cuda.tile._cext", "tile2triton's stand-in: the host queries programs make",
            get_compute_capability=get_compute_capability,
            dev_features_enabled=dev_features_enabled, DType=api_types.DType, **dtypes),
        "cuda.tile._compile": _module(
            "cuda.tile._compile", "tile2triton's stand-in: the bytecode version query",
            _get_max_supported_bytecode_version=_get_max_supported_bytecode_version,
            _SUPPORTED_VERSIONS=_SUPPORTED_VERSIONS, _find_compiler_bin=_find_compiler_bin,
            get_sm_arch=get_sm_arch),
        "cuda.tile._ir": ir,
        "cuda.tile._ir.typing_support": ir.typing_support,
        "cuda.tile._exception": _module(
            "cuda.tile._exception", "tile2triton's stand-in: cuTile's exception classes",
            **errors),
        "cuda.tile._bytecode": bytecode,
        "cuda.tile._bytecode.version": version,
        "cuda.tile._numeric_semantics": _module(
            "cuda.tile._numeric_semantics", "tile2triton's stand-in: cuTile's enums",
            RoundingMode=api_types.RoundingMode, PaddingMode=api_types.PaddingMode),
        "cuda.tile._datatype": _module(
            "cuda.tile._datatype", "tile2triton's stand-in: cuTile's dtypes",
            DType=api_types.DType, **dtypes),
    }
