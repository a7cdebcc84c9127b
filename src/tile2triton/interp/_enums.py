"""Enumerations of cuda.tile (same member names and values as the documented ones)."""

from enum import Enum


class RoundingMode(Enum):
    RN = "nearest_even"
    RZ = "zero"
    RM = "negative_inf"
    RP = "positive_inf"
    RA = "nearest_away"
    FULL = "full"
    APPROX = "approx"
    RZI = "nearest_int_to_zero"


class PaddingMode(Enum):
    UNDETERMINED = "undetermined"
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class MemoryScope(Enum):
    NONE = "none"
    BLOCK = "block"
    CLUSTER = "cluster"
    DEVICE = "device"
    SYS = "sys"


class MemoryOrder(Enum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


def padding_value_name(mode, what):
    """Accept this module's PaddingMode, the real cuda.tile one (same values), or None."""
    if mode is None:
        return "undetermined"
    v = getattr(mode, "value", None)
    if v in {m.value for m in PaddingMode}:
        return v
    raise TypeError(f"{what}: padding_mode must be a ct.PaddingMode, got {mode!r}")
