"""The contract between the lowering engine and the files in `patterns/`.

A pattern claims one or more cuTile constructs by name (`"load"` for `ct.load`, `"add"` for both
`ct.add` and the `+` operator), declares cuTile's signature as a Python function so that calls are
bound exactly as cuTile binds them, and turns a bound call into Triton source.

Each pattern carries its own examples: small kernels with the Triton text they must produce, and
invalid uses with the diagnostic code they must get. `tests/test_patterns.py` runs all of them and
`docs/constructs.md` is generated from the same objects.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Optional

import libcst as cst

from .model import Lowered, Val


@dataclass
class Example:
    """A cuTile kernel (imports are added) and what its translation must contain.

    `expect`: substrings of the translated module, in order. `error`: the diagnostic code an
    invalid example must raise, with `message` a substring of its message.
    """
    cutile: str
    expect: list = field(default_factory=list)
    error: Optional[str] = None
    message: str = ""


class BoundCall:
    """A call bound to the pattern's cuTile signature. Arguments are lowered on first access."""

    def __init__(self, node: cst.CSTNode, name: str, nodes: dict, defaults: dict, lowerer,
                 pre_lowered: Optional[dict] = None):
        self.node = node  # the whole call (or operator) node, for diagnostics
        self.name = name
        self._nodes = nodes  # parameter name -> cst expression (or None when defaulted)
        self._defaults = defaults
        self._lowerer = lowerer
        self._cache: dict = dict(pre_lowered or {})

    def has(self, param: str) -> bool:
        return self._nodes.get(param) is not None or param in self._cache

    def node_of(self, param: str) -> cst.CSTNode:
        return self._nodes.get(param) or self.node

    def arg(self, param: str) -> Optional[Lowered]:
        if param in self._cache:
            return self._cache[param]
        node = self._nodes.get(param)
        if node is None:
            default = self._defaults.get(param, inspect.Parameter.empty)
            value = None if default is inspect.Parameter.empty else default
            low = self._lowerer.const(value)
        else:
            low = self._lowerer.expr(node)
        self._cache[param] = low
        return low

    def val(self, param: str) -> Val:
        return self.arg(param).val


class Pattern:
    """Base class. Subclasses set `constructs`, `signature`, `lower`, `summary`, `examples`."""

    constructs: tuple = ()
    summary: str = ""
    triton: str = ""  # how it reads in Triton, for the docs table
    examples: list = []
    signature: Callable = None  # a function whose parameters are cuTile's

    def lower(self, call: BoundCall, cx) -> Lowered:  # pragma: no cover - abstract
        raise NotImplementedError


def signature_of(pattern: Pattern) -> inspect.Signature:
    """cuTile's signature as declared by the pattern (a plain function in the class body)."""
    for klass in type(pattern).__mro__:
        fn = klass.__dict__.get("signature")
        if fn is not None:
            return inspect.signature(getattr(fn, "__func__", fn))
    raise TypeError(f"{type(pattern).__name__} declares no signature")


def bind(pattern: Pattern, name: str, call: cst.Call, lowerer, receiver=None) -> BoundCall:
    """Bind a cst.Call to the pattern's signature; errors are located diagnostics."""
    sig = signature_of(pattern)
    params = list(sig.parameters.values())
    positional = []
    keywords = {}
    for arg in call.args:
        if arg.star:
            raise lowerer.error(arg, "T2T102", f"`*`/`**` arguments to ct.{name} are not supported",
                                help="pass the arguments explicitly")
        if arg.keyword is None:
            positional.append(arg.value)
        else:
            keywords[arg.keyword.value] = arg.value
    pre = {}
    if receiver is not None:  # method form: tile.astype(...) == ct.astype(tile, ...)
        positional.insert(0, None)
        pre[params[0].name] = receiver
    try:
        ba = sig.bind(*positional, **keywords)
    except TypeError as e:
        raise lowerer.error(call, "T2T102", f"ct.{name}: {e}",
                            help=f"cuTile's signature is ct.{name}{sig}") from None
    nodes = dict(ba.arguments)
    defaults = {p.name: p.default for p in params}
    return BoundCall(call, name, nodes, defaults, lowerer, pre)
