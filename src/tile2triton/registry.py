"""Discovers the patterns: every module in `tile2triton.patterns` (the top-level `patterns/`
folder) that defines `Pattern` subclasses. A construct claimed twice is a bug caught at load."""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from .pattern_api import Pattern, signature_of


def _patterns_package():
    """`tile2triton.patterns` when installed; the repo's top-level patterns/ when run from src/."""
    try:
        return importlib.import_module("tile2triton.patterns")
    except ModuleNotFoundError:
        import importlib.util as _util
        import sys
        from pathlib import Path
        folder = Path(__file__).resolve().parents[2] / "patterns"
        spec = _util.spec_from_file_location(
            "tile2triton.patterns", folder / "__init__.py",
            submodule_search_locations=[str(folder)])
        module = _util.module_from_spec(spec)
        sys.modules["tile2triton.patterns"] = module
        spec.loader.exec_module(module)
        return module


def pattern_modules():
    pkg = _patterns_package()
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{pkg.__name__}.{info.name}")


def all_patterns() -> list[Pattern]:
    found = []
    for mod in pattern_modules():
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, Pattern) and obj is not Pattern \
                    and obj.__module__ == mod.__name__ and obj.constructs:
                found.append(obj())
        for obj in getattr(mod, "PATTERNS", []):
            found.append(obj)
    return found


@lru_cache(maxsize=1)
def load_patterns() -> dict:
    table = {}
    for p in all_patterns():
        for c in p.constructs:
            if c in table:
                raise RuntimeError(f"construct {c!r} claimed by {type(table[c]).__name__} "
                                   f"and {type(p).__name__}")
            table[c] = p
    return table


@dataclass(frozen=True)
class Registry:
    """What the engine asks the patterns: which pattern lowers a construct, which Python operator
    is which construct, which methods tiles, arrays and views have, and where a construct's
    array argument and index/shape arguments sit. (cuTile's enums are `parse.ENUM_MEMBERS`.)"""
    constructs: dict  # construct name -> Pattern
    operators: dict  # Python operator symbol ("+", "<", "unary -") -> construct
    methods: dict  # "Tile.astype" / "Array.slice" / "TiledView.load" -> construct
    array_access: dict  # construct -> Pattern whose `array_param` names an array argument

    def get(self, construct: str):
        return self.constructs.get(construct)

    def method(self, receiver: str, attr: str) -> Optional[str]:
        return self.methods.get(f"{receiver}.{attr}")

    def signature(self, construct: str):
        """cuTile's signature of `construct` (inspect.Signature), None if no pattern has it."""
        pattern = self.constructs.get(construct)
        return signature_of(pattern) if pattern is not None else None


@lru_cache(maxsize=1)
def load_registry() -> Registry:
    constructs = load_patterns()
    operators, methods, access = {}, {}, {}
    for name, p in constructs.items():
        if "." in name:  # `Array.slice`: a method only
            methods[name] = name
        if p.array_param is not None:
            access[name] = p
    for p in {id(p): p for p in constructs.values()}.values():
        for sym, construct in p.operators.items():
            operators[sym] = construct
        for m in p.methods:
            methods[m] = m.split(".", 1)[1]
    return Registry(constructs, operators, methods, access)
