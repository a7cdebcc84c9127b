"""`cuda.tile.compilation` (ahead-of-time export of cuTile kernels) has no Triton counterpart
here: its names exist, and using one says so. `CallingConvention.cutile_python_v1()` answers,
since programs evaluate it as a default argument when they define their export helpers."""


def _unsupported(name: str):
    from .api_types import TileUnsupportedFeatureError
    return TileUnsupportedFeatureError(
        f"cuda.tile.compilation.{name}: ahead-of-time export of cuTile kernels is not "
        "supported by tile2triton's runtime (translate with `tile2triton convert` instead)")


class CallingConvention:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"CallingConvention({self.name!r})"

    @classmethod
    def cutile_python_v1(cls) -> "CallingConvention":
        return cls("cutile_python_v1")


class KernelSignature:
    def __init__(self, *args, **kwargs):
        raise _unsupported("KernelSignature")

    @classmethod
    def from_kernel_args(cls, *args, **kwargs):
        raise _unsupported("KernelSignature.from_kernel_args")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _unsupported(name)
