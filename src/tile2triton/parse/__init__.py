"""parse: the user's module as the translator reads it.

source.py: the libcst module, the names that refer to cuda.tile resolved from its imports and
aliases, positions for diagnostics. prescan.py: a bracket-depth prescan run before libcst (whose
parser recurses on nesting). names.py: the spellings of the names tile2triton generates and
the identifiers a module uses. packages.py: imports between the user's own modules."""
from .source import ENUM_MEMBERS, MAX_SOURCE_CHARS, ParsedModule, parse_source

__all__ = ["ENUM_MEMBERS", "MAX_SOURCE_CHARS", "ParsedModule", "parse_source"]
