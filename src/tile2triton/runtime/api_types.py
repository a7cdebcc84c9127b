"""The values of cuTile's Python API that host code makes and passes: dtypes, enums, the
exception classes, parameter annotations and ByTarget (`tile2triton.cutile` exports them)."""
from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Generic, TypeVar, Union

T = TypeVar("T")


# -- dtypes ----------------------------------------------------------------------------------

class DType:
    """A cuTile element type: its name and width in bits."""

    __slots__ = ("name", "bitwidth")

    def __init__(self, name: str, bitwidth: int):
        self.name, self.bitwidth = name, bitwidth

    def __repr__(self):
        return f"<DType {self.name!r}>"

    def __str__(self):
        return self.name

    def __reduce__(self):
        return (_dtype_named, (self.name,))


bool_ = DType("bool_", 8)
int8, int16, int32, int64 = (DType(f"int{b}", b) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (DType(f"uint{b}", b) for b in (8, 16, 32, 64))
float16, float32, float64 = (DType(f"float{b}", b) for b in (16, 32, 64))
bfloat16 = DType("bfloat16", 16)
tfloat32 = DType("tfloat32", 32)
float8_e4m3fn = DType("float8_e4m3fn", 8)
float8_e5m2 = DType("float8_e5m2", 8)
float8_e8m0fnu = DType("float8_e8m0fnu", 8)
float8_e5m3fnu = DType("float8_e5m3fnu", 8)
float4_e2m1fn = DType("float4_e2m1fn", 4)

DTYPES = {d.name: d for d in (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
    bfloat16, tfloat32, float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float8_e5m3fnu,
    float4_e2m1fn)}


def _dtype_named(name: str) -> DType:
    return DTYPES[name]


def foreign_pointer_dtype(*args, **kwargs):
    """cuTile's pointer dtype for foreign memory: not translated."""
    raise TileUnsupportedFeatureError(
        "ct.foreign_pointer_dtype has no Triton translation (tile2triton runtime)")


# -- enums -----------------------------------------------------------------------------------

class PaddingMode(enum.Enum):
    UNDETERMINED = "undetermined"
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class RoundingMode(enum.Enum):
    RN = "nearest_even"
    RZ = "zero"
    RM = "negative_inf"
    RP = "positive_inf"
    RA = "nearest_away"
    FULL = "full"
    APPROX = "approx"
    RZI = "nearest_int_to_zero"


class MemoryOrder(enum.Enum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class MemoryScope(enum.Enum):
    NONE = "none"
    BLOCK = "block"
    CLUSTER = "cluster"
    DEVICE = "device"
    SYS = "sys"


# -- exceptions ------------------------------------------------------------------------------

class TileError(Exception):
    """Base of cuTile's errors."""


class KernelNotTranslated(TileError):
    """A kernel that does not translate to Triton, raised at its launches: `diagnostics` are
    the translator's, located in the user's files; str() is their text."""

    def __init__(self, kernel: str, diagnostics: list, text: str):
        super().__init__(text)
        self.kernel, self.diagnostics = kernel, diagnostics


class TileSyntaxError(TileError):
    pass


class TileTypeError(TileError):
    pass


class TileValueError(TileError):
    pass


class TileRecursionError(TileError):
    pass


class TileUnsupportedFeatureError(TileError):
    pass


class TileInternalError(TileError):
    pass


class TileCompilerExecutionError(TileInternalError):
    pass


class TileCompilerTimeoutError(TileInternalError):
    pass


class TileStaticEvalError(TileError):
    pass


class StaticException(TileStaticEvalError):
    pass


class TileStaticAssertionError(TileError):
    pass


# -- annotations -----------------------------------------------------------------------------

class ConstantAnnotation:
    """`typing.Annotated` metadata: the parameter is a compile-time constant."""

    def __repr__(self):
        return "ConstantAnnotation()"

    def __eq__(self, other):
        return isinstance(other, ConstantAnnotation)

    def __hash__(self):
        return hash(ConstantAnnotation)


Constant = Annotated[T, ConstantAnnotation()]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ArrayAnnotation:
    """`typing.Annotated` metadata of an array parameter: index width, static dims."""
    index_dtype: DType = int32
    static_shape_dims: tuple = ()
    static_stride_dims: tuple = ()


@dataclasses.dataclass(frozen=True)
class ScalarAnnotation:
    """`typing.Annotated` metadata of an integer scalar parameter: int32 or int64."""
    dtype: DType

    def __post_init__(self):
        if self.dtype not in (int32, int64):
            raise ValueError(f"`dtype` must be int32 or int64, got {self.dtype}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ListAnnotation:
    """`typing.Annotated` metadata of a list-of-arrays parameter."""
    element: Any


IndexedWithInt64 = Annotated[T, ArrayAnnotation(index_dtype=int64)]
ScalarInt64 = Annotated[T, ScalarAnnotation(int64)]


class _TileType:
    """A type named in annotations (`x: ct.Array`); tile code only."""

    def __init__(self, *args, **kwargs):
        raise TypeError(f"ct.{type(self).__name__} values exist only in tile code")


class Array(_TileType):
    pass


class Tile(_TileType):
    pass


class TiledView(_TileType):
    pass


class Slice(_TileType):
    pass


Scalar = Union[int, float, Tile]


# -- ByTarget --------------------------------------------------------------------------------

_UNSPECIFIED = object()


class ByTarget(Generic[T]):
    """A value per GPU architecture (`ByTarget(sm_100=2, default=1)`), chosen at launch for the
    GPU the launch runs on; off NVIDIA GPUs (and on the CPU) the default."""

    def __init__(self, *, default=_UNSPECIFIED, **value_by_target):
        for sm in value_by_target:
            if not (sm.startswith("sm_") and sm[3:].isdigit()):
                raise ValueError(f"Invalid GPU architecture name: {sm}, expected "
                                 "sm_<major><minor>")
        self._default = default
        self._by_target = dict(value_by_target)

    def __repr__(self):
        items = [f"{k}={v!r}" for k, v in self._by_target.items()]
        if self._default is not _UNSPECIFIED:
            items.append(f"default={self._default!r}")
        return f"ByTarget({', '.join(items)})"

    def __eq__(self, other):
        return isinstance(other, ByTarget) and self._default == other._default \
            and self._by_target == other._by_target

    def __hash__(self):
        return hash((repr(self._default), tuple(sorted(self._by_target.items()))))

    def resolve(self, arch: str | None):
        """The value for `arch` ("sm_90"), else the default (None when there is none)."""
        if arch is not None and arch in self._by_target:
            return self._by_target[arch]
        return None if self._default is _UNSPECIFIED else self._default
