"""Elements whose value cuTile leaves undefined, so that the checker does not compare them.

cuTile's `ct.load` pads the out-of-bounds part of a tile with `padding_mode`, and the default,
`PaddingMode.UNDETERMINED`, promises nothing about those lanes (the stub's docstring: "By
default, the padding value is undetermined"). A kernel that stores such a lane, or computes from
one, leaves an element whose value is whatever the hardware had: NaN on the H200, random
stand-ins in the reference interpreter. The translation fills the same lanes with Triton's
masked-load default. Comparing those elements reports a difference that is not one.

The checker finds those elements by running one side a second time with other undetermined
values, on the same inputs: an element that changes is undetermined, and is left out of every
comparison (and reported as such).

- CPU backend (the default probe, "original"): the reference interpreter runs the original again
  with its undetermined values drawn from another seed. Only the original decides which
  elements are undefined, so a translation that lets padding reach an element the original
  computes from data is still compared there (and differs).
- GPU backend ("translation"): cuTile's padding cannot be changed, so the translation runs again
  with every undetermined masked load filling `FILL` instead of Triton's default. This assumes
  that the translation reads padding where the original does, which it does by construction
  (each load keeps its mask and its padding mode); the elements left out are counted in the
  record.

`T2T_UNDETERMINED_PROBE=original|translation` overrides the choice (tests use it to exercise the
GPU's probe on the CPU).

The probe costs one more run, and only for a launch that would otherwise get `drift`,
`unwritten` or `race`; on the CPU only when the original produced undetermined values at all.
"""
from __future__ import annotations

import ast
import os

import torch

from .snapshot import same_bits

# The variant's value for undetermined lanes: an int32 constant, which tl.load casts to the
# pointer's element type. Non-zero in every dtype (Triton's default fill is 0): 1.5e9 as a
# float32, inf as a float16, 91 as an int8, True as a bool.
FILL = 0x5A5A5A5B


def probe_kind(backend: str) -> str:
    env = os.environ.get("T2T_UNDETERMINED_PROBE", "").strip()
    if env in ("original", "translation"):
        return env
    return "original" if backend == "cpu" else "translation"


def _is_tl_load(node: ast.Call) -> bool:
    f = node.func
    return isinstance(f, ast.Attribute) and f.attr == "load" and \
        isinstance(f.value, ast.Name) and f.value.id == "tl"


def _kw(node: ast.Call, name: str):
    for k in node.keywords:
        if k.arg == name:
            return k
    return None


def fill_variant(text: str) -> str | None:
    """The translation's source with every undetermined masked load filling FILL: a `tl.load`
    with a mask and no `other=` (or `other=None`), and a helper parameter defaulting to None
    that is a masked load's `other=` (the tile helpers' `PADDING`; callers leave it out for
    UNDETERMINED). None when the source has no such load."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    changed = False
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        others = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and _is_tl_load(node) and _kw(node, "mask"):
                other = _kw(node, "other")
                if other is None:
                    node.keywords.append(ast.keyword(arg="other", value=ast.Constant(FILL)))
                    changed = True
                elif isinstance(other.value, ast.Constant) and other.value.value is None:
                    other.value = ast.Constant(FILL)
                    changed = True
                elif isinstance(other.value, ast.Name):
                    others.add(other.value.id)
        args = fn.args
        params = args.posonlyargs + args.args
        for a, d in zip(params[len(params) - len(args.defaults):], args.defaults):
            if a.arg in others and isinstance(d, ast.Constant) and d.value is None:
                i = args.defaults.index(d)
                args.defaults[i] = ast.Constant(FILL)
                changed = True
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            if a.arg in others and isinstance(d, ast.Constant) and d.value is None:
                args.kw_defaults[args.kw_defaults.index(d)] = ast.Constant(FILL)
                changed = True
    if not changed:
        return None
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def changed_elements(a: list, b: list) -> list:
    """Per array, the elements whose bits differ between two runs on the same inputs (None
    where nothing changed)."""
    out = []
    for x, y in zip(a, b):
        m = ~same_bits(x, y.to(x.device))
        out.append(m if bool(m.any()) else None)
    return out


def exclude(masks: list, reference: list | None, other: list | None) -> list | None:
    """`other` with the elements of `masks` replaced by `reference`'s (so that no comparison
    of the two sees them)."""
    if other is None or reference is None:
        return other
    out = []
    for m, ref, x in zip(masks, reference, other):
        out.append(x if m is None else torch.where(m, ref.to(x.device), x))
    return out
