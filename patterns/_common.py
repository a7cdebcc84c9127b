"""Static reasoning shared by patterns: dtypes (promotion, float or int), tile shapes and their
broadcasting. Reading arguments is `_args.py`."""
from __future__ import annotations

import re

from tile2triton.model import (FLOAT_DTYPES, INT_DTYPES, PROMOTION_ORDER, ConstExprV, ConstV,
                               Lowered, TileV)


def shape_code(dims: list) -> str:
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def dtype_of(low: Lowered):
    v = low.val
    if isinstance(v, TileV):
        return v.dtype
    if isinstance(v, ConstV):
        if isinstance(v.value, bool):
            return "bool_"
        if isinstance(v.value, int):
            return "weak_int"
        if isinstance(v.value, float):
            return "weak_float"
    return None


def is_float(d) -> bool:
    return d in FLOAT_DTYPES or d == "weak_float"


def is_int(d) -> bool:
    return d in INT_DTYPES or d == "weak_int"


_RANK = PROMOTION_ORDER


def promote(a, b):
    """Static result dtype of a binary op when both are known (None otherwise)."""
    if "scalar_param" in (a, b):
        # a runtime scalar parameter (fp32 or an int in Triton): fp32/fp64 tiles keep their dtype
        other = b if a == "scalar_param" else a
        return other if other in ("float32", "float64") else None
    if a is None or b is None:
        return None
    if a == b:
        return None if a.startswith("weak") else a
    if a.startswith("weak") and not b.startswith("weak"):
        a, b = b, a
    if b.startswith("weak"):  # python scalar: the tile's dtype wins within its category
        if b == "weak_float" and not is_float(a):
            return "float32"
        return a
    if a == "tfloat32" or b == "tfloat32":
        return "float32"
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    if a in _RANK and b in _RANK:
        return max(a, b, key=_RANK.index)
    return None


def broadcast_shapes(s1, s2):
    if s1 is None or s2 is None:
        return None
    out = []
    for i in range(max(len(s1), len(s2))):
        d1 = s1[len(s1) - 1 - i] if i < len(s1) else 1
        d2 = s2[len(s2) - 1 - i] if i < len(s2) else 1
        if str(d1) == "1":
            out.append(d2)
        elif str(d2) == "1" or str(d1) == str(d2):
            out.append(d1)
        else:
            # sizes known only per specialization (`MASK_N`, `X_N`): broadcasting makes them
            # equal or one of them 1, so the result is the left one unless it is 1; Triton
            # folds the conditional per specialization (and the launcher can evaluate it)
            a = str(d1) if re.fullmatch(r"[\w.]+", str(d1)) else f"({d1})"
            out.append(f"({a} if {a} != 1 else {d2})")
    return tuple(reversed(out))


def tile_shape(low: Lowered):
    v = low.val
    if isinstance(v, TileV):
        return v.shape
    if isinstance(v, (ConstV, ConstExprV)):
        return ()
    return None

