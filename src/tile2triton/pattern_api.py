"""The contract between the lowering engine and the files in `patterns/`.

A pattern claims one or more cuTile constructs by name (`"load"` for `ct.load`, `"add"` for both
`ct.add` and the `+` operator), declares cuTile's signature as a Python function so that calls are
bound exactly as cuTile binds them, and turns a bound call into Triton source. It talks to the
engine only through the `LoweringContext` it is given (`cx`) and the `BoundCall` (`call`); it
imports only this module and `model` of tile2triton. The user's syntax is part of the contract:
`call.syntax(p)`, `call.node_of(p)` and the nodes `cx` takes are libcst nodes, so a pattern that
reads the syntax as written (a format string, a lambda combiner, a tuple of indices) imports
libcst too, and nothing else outside the standard library.

Each pattern carries its own examples: small kernels with the Triton text they must produce, and
invalid uses with the diagnostic code they must get. `tests/test_patterns.py` runs all of them and
`docs/constructs.md` is generated from the same objects.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Optional, Protocol, Sequence, Union

import jinja2
import libcst as cst

from .diagnostics import TranslationError
from .model import Lowered, Val

__all__ = ["BoundCall", "DeviceHelper", "Example", "LoweringContext", "Pattern",
           "TranslationError", "bind", "signature_of"]


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


@dataclass(frozen=True)
class DeviceHelper:
    """A `@triton.jit` function that generated code calls, declared by the pattern that uses it.

    `name` may contain `{option}` fields (`"_load_tile_{rank}d"`): one function is rendered per
    distinct name a module requests. `source` is a Jinja template of the function's text that
    receives the options (`{{ rank }}`), or a callable taking the options and returning the
    text. `requires`: helpers the text calls, rendered with it.
    """
    name: str
    source: Union[str, Callable[..., str]]
    requires: tuple = ()

    def emitted_name(self, **options) -> str:
        return self.name.format(**options)

    def render(self, **options) -> str:
        if callable(self.source):
            text = self.source(**options)
        else:
            text = _template(self.source).render(**options)
        return text.strip("\n")


@lru_cache(maxsize=None)
def _template(source: str) -> jinja2.Template:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    return env.from_string(source)


class LoweringContext(Protocol):
    """The services the engine offers a pattern while it lowers one call (`cx`)."""

    def error(self, node: cst.CSTNode, code: str, message: str,
              help: Optional[str] = None) -> TranslationError:
        """A located diagnostic to `raise` (codes: tile2triton.diagnostics.CODES)."""

    def need(self, helper: Union[DeviceHelper, str], **options) -> str:
        """Request a device helper for this module; returns the name to call it by."""

    def expr(self, node: cst.BaseExpression) -> Lowered:
        """Lower an expression of the user's code (e.g. an element of `*args`)."""

    def static_expr(self, node: cst.BaseExpression) -> Lowered:
        """Lower an expression cuTile evaluates while compiling (ct.static_eval, the condition
        of ct.static_assert): a plain Python function of the module called there on
        compile-time values runs when Triton compiles (`@triton.constexpr_function`)."""

    def const(self, value) -> Lowered:
        """A translation-time value (number, bool, string, None, tuple, enum) as Triton source."""

    def fold(self, node: cst.CSTNode, fn: Callable, *values) -> Lowered:
        """`fn(*values)` on compile-time constants, with Python's rules as cuTile folds them;
        what Python would raise (division by zero, overflow, ...) is a located T2T120."""

    def lower_callable(self, node: cst.BaseExpression, call: cst.CSTNode,
                       args: Sequence[Val]) -> tuple[str, int]:
        """Translate a module-level function or a lambda passed as a value (a combiner) into a
        @triton.jit function for arguments of these kinds: (its name, its parameter count).
        What it needs (helpers, debug mode, dot) is merged into the caller."""

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name a Name/Attribute refers to (`cuda.tile.maximum`, `operator.add`,
        `builtins.max`), or None (a local, a parameter, a module function, an expression)."""

    def source_of(self, node: cst.CSTNode) -> str:
        """The user's source text of a node."""

    def is_nonneg(self, low: Lowered) -> bool:
        """Whether a value is provably >= 0."""

    def is_positive(self, low: Lowered) -> bool:
        """Whether a value is provably >= 1 (a tile dimension, `n + TILE`, a constant >= 1)."""

    def offset_dtype(self) -> str:
        """The name of the function's offset dtype (tl.int64 when the launcher chose 64-bit
        offsets, else tl.int32): one constexpr defined at the top of the function, so that
        every inline access widens its tile index with one cast."""

    def fresh_name(self, hint: str) -> str:
        """A variable name no other name of the function uses (`hint`, else `hint_2`, ...)."""

    def before(self, *lines: str) -> bool:
        """Put statements (lines of source, nested ones indented by four spaces) just before
        the statement being lowered; False, and nothing is put, where no statement can go
        (the test of a `while` or `elif`)."""

    def note_tile(self, shape) -> None:
        """Record a tile shape (the launcher sizes warps from them)."""

    def mark_debug(self) -> None:
        """The function uses device asserts: emit it with @triton.jit(debug=True)."""

    def mark_dot(self, fma: bool = False, tf32: bool = False, rows=None) -> None:
        """The function uses tl.dot (the launcher picks matrix-kernel settings). `fma`: the dot
        is an fp32 product without tensor cores (input_precision="ieee"); `tf32`: it may ask
        for tf32 (the launcher lets GPUs without tf32 compute it in fp32); `rows`: the
        product's M dimension (a tile size), where known."""

    def read_only_arrays(self) -> frozenset:
        """The array parameters the function only reads (never stored to, atomically updated,
        or handed to a helper)."""

    def note_tf32_operands(self, b_array: str, a_array: str) -> None:
        """A tf32 product's B and A operands are tiles loaded from these array parameters,
        which the launcher hands the kernel rounded to tf32 (B K-major where that pays)."""

    def tensor_descriptor(self, call_node, array, shape) -> Optional[str]:
        """The name of a TMA descriptor parameter the launcher builds for `shape` tiles of
        `array` (an ArrayInfo) loaded by `call_node`, or None where the load keeps its pointer
        form only (not a kernel parameter, written by the kernel, not a matrix operand)."""


class BoundCall:
    """A call bound to the pattern's cuTile signature. Arguments are lowered on first access.

    Public API: `name`, `node`, `has`, `arg`, `val`, `node_of`, `syntax`, `move`, `forward`.
    """

    def __init__(self, node: cst.CSTNode, name: str, nodes: dict, defaults: dict,
                 cx: LoweringContext, pre_lowered: Optional[dict] = None):
        self.node = node  # the whole call (or operator) node, for diagnostics
        self.name = name
        self._nodes = nodes  # parameter name -> cst expression (or None when defaulted)
        self._defaults = defaults
        self._cx = cx
        self._cache: dict = dict(pre_lowered or {})

    def with_value(self, param: str, low: Lowered) -> "BoundCall":
        """The same call with `param` already lowered to `low` (the arguments lowered so far
        are shared, not lowered again)."""
        return BoundCall(self.node, self.name, self._nodes, self._defaults, self._cx,
                         {**self._cache, param: low})

    def has(self, param: str) -> bool:
        """Whether the call passes `param` (or it was supplied already lowered)."""
        return self._nodes.get(param) is not None or param in self._cache

    def node_of(self, param: str) -> cst.CSTNode:
        """Where to point a diagnostic about `param` (the call itself when it was not passed)."""
        node = self._nodes.get(param)
        return node if isinstance(node, cst.CSTNode) else self.node

    def syntax(self, param: str):
        """The user's expression for `param` as written (a tuple of them for `*args`), or None
        when it was not passed."""
        return self._nodes.get(param)

    def arg(self, param: str) -> Optional[Lowered]:
        """`param` lowered (its default when it was not passed)."""
        if param in self._cache:
            return self._cache[param]
        node = self._nodes.get(param)
        if node is None:
            default = self._defaults.get(param, inspect.Parameter.empty)
            value = None if default is inspect.Parameter.empty else default
            low = self._cx.const(value)
        else:
            low = self._cx.expr(node)
        self._cache[param] = low
        return low

    def val(self, param: str) -> Val:
        return self.arg(param).val

    def move(self, src: str, dst: str) -> None:
        """Treat the argument passed as `src` as if it had been passed as `dst` (for constructs
        whose positional meaning depends on the construct, e.g. ct.zeros(shape, dtype))."""
        self._nodes[dst], self._nodes[src] = self._nodes.get(src), None
        if src in self._cache:
            self._cache[dst] = self._cache.pop(src)
        else:
            self._cache.pop(dst, None)

    def forward(self, pattern: "Pattern", overrides: dict) -> Lowered:
        """Lower this call with another pattern, some of its arguments already lowered (a view
        method that is a plain ct.load with the view's array and shape)."""
        sig = signature_of(pattern)
        nodes = {k: self._nodes.get(k) for k in sig.parameters if k in self._nodes}
        defaults = {p.name: p.default for p in sig.parameters.values()}
        call = BoundCall(self.node, self.name.split(".")[-1], nodes, defaults, self._cx,
                         overrides)
        return pattern.lower(call, self._cx)


class Pattern:
    """Base class. Subclasses set `constructs`, `signature`, `lower`, `summary`, `examples`."""

    constructs: tuple = ()
    summary: str = ""
    triton: str = ""  # how it reads in Triton, for the docs table
    examples: list = []
    signature: Callable = None  # a function whose parameters are cuTile's
    # Python syntax this pattern also lowers: operator symbol ("+", "<", "unary -") -> construct
    operators: dict = {}
    # methods that are the construct with the receiver first: "Tile.astype" (constructs named
    # "Array.slice" / "TiledView.load" are methods only)
    methods: tuple = ()
    # for recognize: the parameter that is an array, and those whose tuple length is its rank
    array_param: Optional[str] = None
    index_param: Optional[str] = None
    shape_param: Optional[str] = None
    # constructs that cuda-tile releases after 1.7 add: lowered only where the installed
    # cuda-tile defines them (cuTile itself cannot compile them otherwise)
    newer: tuple = ()

    def lower(self, call: BoundCall, cx: LoweringContext) -> Lowered:  # pragma: no cover
        raise NotImplementedError


def signature_of(pattern: Pattern) -> inspect.Signature:
    """cuTile's signature as declared by the pattern (a plain function in the class body)."""
    for klass in type(pattern).__mro__:
        fn = klass.__dict__.get("signature")
        if fn is not None:
            return inspect.signature(getattr(fn, "__func__", fn))
    raise TypeError(f"{type(pattern).__name__} declares no signature")


def bind_operands(pattern: Pattern, node: cst.CSTNode, name: str, operands: Sequence[Lowered],
                  cx: LoweringContext) -> BoundCall:
    """An operator (`a + b`) as a call of its construct with already-lowered operands."""
    sig = signature_of(pattern)
    return BoundCall(node, name, {}, {p.name: p.default for p in sig.parameters.values()}, cx,
                     dict(zip(list(sig.parameters), operands)))


def bind(pattern: Pattern, name: str, call: cst.Call, cx: LoweringContext,
         receiver: Optional[Lowered] = None) -> BoundCall:
    """Bind a cst.Call to the pattern's signature; errors are located diagnostics."""
    sig = signature_of(pattern)
    params = list(sig.parameters.values())
    positional = []
    keywords = {}
    for arg in call.args:
        if arg.star:
            raise cx.error(arg, "T2T102", f"`*`/`**` arguments to ct.{name} are not supported",
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
        raise cx.error(call, "T2T102", f"ct.{name}: {e}",
                       help=f"cuTile's signature is ct.{name}{sig}") from None
    nodes = dict(ba.arguments)
    defaults = {p.name: p.default for p in params}
    return BoundCall(call, name, nodes, defaults, cx, pre)
