"""Translate a live kernel object: `tile2triton.translate_kernel(kernel)`.

cuTile compiles a kernel from its Python source plus the values its names have when it is
compiled: module globals, closure cells, helpers imported from other modules. We do the same in
two steps:

1. **extract**: from the function's source (`inspect`, which also finds sources of functions
   exec'd from a file or registered in `linecache`), its `__globals__` and `__closure__`, build a
   standalone cuTile module: imports of the modules it names, one `NAME = <literal>` line per
   constant (so closure values and module constants become compile-time constants), the source
   of every helper it calls (recursively, wherever the helper was defined), then the kernel at
   top level. This module is itself runnable cuTile (the checker runs it as the original of a
   kernel it could not import by name).
2. **translate** that module with the ordinary pipeline (`translate_source`); diagnostics are
   mapped back to the user's files and lines.

Results are cached per (function, extracted module), i.e. per kernel and closure values.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import enum
import hashlib
import importlib.util
import inspect
import linecache
import math
import operator
import os
import sys
import tempfile
import threading
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .diagnostics import Diagnostic, TranslationError
from .parse.names import comment_safe, launcher_name

_SOURCES: dict = {}          # code object -> source text, for functions built from strings


def register_source(func, source: str) -> None:
    """Tell tile2triton the source of a function built from a string (exec) whose source
    `inspect` cannot find (no file, nothing in `linecache`)."""
    _SOURCES[getattr(func, "__code__", func)] = source


# --------------------------------------------------------------------------------------------
# Unwrapping kernel objects

def kernel_function(obj):
    """The Python function behind a cuTile kernel or tile function (real or interpreted), a
    staticmethod, or the function itself; None if there is none."""
    seen = 0
    while seen < 8:
        seen += 1
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
            continue
        for attr in ("_function", "_pyfunc", "pyfunc"):
            f = getattr(obj, attr, None) if not isinstance(obj, types.FunctionType) else None
            if f is not None and f is not obj:
                obj = f
                break
        else:
            if isinstance(obj, types.FunctionType):
                wrapped = getattr(obj, "__wrapped__", None)
                if isinstance(wrapped, types.FunctionType):
                    obj = wrapped
                    continue
                return obj
            return None
    return obj if isinstance(obj, types.FunctionType) else None


def _ct_modules() -> list:
    """cuda.tile module objects a kernel's globals may hold: the real one and the interpreter's."""
    mods = []
    m = sys.modules.get("cuda.tile")
    if m is not None:
        mods.append(m)
    fake = sys.modules.get("tile2triton.interp.module")
    if fake is not None and getattr(fake, "ct", None) is not None and fake.ct not in mods:
        mods.append(fake.ct)
    runtime = sys.modules.get("tile2triton.cutile")      # the runtime backend's cuda.tile
    if runtime is not None and runtime not in mods:
        mods.append(runtime)
    return mods


def _is_ct_module(v) -> bool:
    return isinstance(v, types.ModuleType) and (
        v.__name__ == "cuda.tile" or getattr(v, "__cutile_api__", False) is True)


def _kernel_options(kernel) -> dict:
    """Non-default compiler options of a kernel object created by calling ct.kernel(fn, ...)."""
    opts = getattr(kernel, "_options", None)            # interpreter
    if opts is None:
        co = getattr(kernel, "_compiler_options", None)  # cuda.tile
        opts = dict(vars(co)) if co is not None and hasattr(co, "__dict__") else {}
        if opts.get("opt_level") == 3:
            opts.pop("opt_level")
    return {k: v for k, v in opts.items() if v is not None}


# --------------------------------------------------------------------------------------------
# Sources

@dataclass
class _Segment:
    """Lines [start, end] of the extracted module come from `path` from line `first`;
    columns there are `shift` more than in the extracted text."""
    start: int
    end: int
    path: str
    first: int
    shift: int


def _function_source(func) -> tuple[list[str], int, str]:
    """(lines, first line number, path) of a function's definition, decorators included."""
    code = func.__code__
    path = code.co_filename
    if code in _SOURCES:
        return _SOURCES[code].splitlines(True), 1, path
    try:
        lines, first = inspect.findsource(func)
        block = inspect.getblock(lines[first:])
        return list(block), first + 1, path
    except (OSError, TypeError, IndexError):
        pass
    raise _Unsupported(f"the source of `{func.__qualname__}` is not available (it was built "
                       "from a string that is neither in a file nor in linecache)",
                       help="write the source to a file before exec'ing it, register it with "
                            "linecache, or call tile2triton.live.register_source(fn, source)")


def _dedent(lines: list[str]) -> tuple[str, int]:
    """Remove the definition's own indentation (continuation lines may be less indented)."""
    first = next((ln for ln in lines if ln.strip()), "")
    shift = len(first) - len(first.lstrip())
    out = []
    for ln in lines:
        if ln[:shift].strip() == "":
            out.append(ln[shift:] if len(ln) > shift else ln.lstrip(" \t"))
        else:
            out.append(ln.lstrip(" \t"))
    text = "".join(out)
    if not text.endswith("\n"):
        text += "\n"
    return text, shift


class _Unsupported(Exception):
    def __init__(self, message, help=None, line=0, col=0, path=None):
        super().__init__(message)
        self.help = help
        self.line, self.col, self.path = line, col, path


# --------------------------------------------------------------------------------------------
# Names a function needs

def _local_names(fdef) -> set:
    """Names the function binds itself (parameters, assignments, nested defs, imports)."""
    names = set()
    a = fdef.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            names.add(arg.arg)
    # a comprehension's own targets live in the comprehension's scope, not the function's
    comp_targets = {id(n) for c in ast.walk(fdef) if isinstance(c, ast.comprehension)
                    for n in ast.walk(c.target)}
    for node in ast.walk(fdef):
        if node is fdef:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if id(node) not in comp_targets:
                names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for al in node.names:
                names.add((al.asname or al.name).split(".")[0])
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _free_names(fdef) -> dict:
    """Name -> first node using it, for names the function reads but does not bind."""
    local = _local_names(fdef)
    out: dict = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                and node.id not in local and node.id not in out:
            out[node.id] = node
    for dec in fdef.decorator_list:           # decorators and annotations are evaluated outside
        for node in ast.walk(dec):
            if isinstance(node, ast.Name) and node.id not in out:
                out[node.id] = node
    return out


# --------------------------------------------------------------------------------------------
# Values as source

_MISSING = object()


class _Namespace:
    """The extracted module being built: one binding per name."""

    def __init__(self):
        self.imports: dict = {}      # name -> import line
        self.assigns: dict = {}      # name -> `NAME = expr` line
        self.values: dict = {}       # name -> the value bound (for conflict detection)
        self.functions: list = []    # (name, func) in emission order
        self.func_names: dict = {}   # id(func) -> name
        self.classes: dict = {}      # name -> `class NAME(enum.Enum): ...` (user enums)
        self.class_names: dict = {}  # id(enum class or dataclass) -> name
        # dataclass name -> [(line in its text, lines, path, first line, column shift)] of the
        # methods written in it (for diagnostics)
        self.class_segments: dict = {}
        self.late: set = set()       # assigns naming helpers: written after the helpers
        self.names_function = False  # set by _expr when the value it writes names a helper
        self.ct_alias: Optional[str] = None

    def taken(self, name) -> bool:
        return name in self.values

    def fresh(self, base) -> str:
        name, i = base, 0
        while self.taken(name):
            i += 1
            name = f"_{base}{i}"
        return name

    def bind(self, name, value, where) -> None:
        if name in self.values:
            if self.values[name] is value or _same(self.values[name], value):
                return
            raise _Unsupported(
                f"`{name}` means different things in the kernel and in a helper it calls "
                f"({_describe(self.values[name])} and {_describe(value)})",
                help="give the two values different names", **where)
        self.values[name] = value
        self._emit(name, value, where)

    def module_name(self, modname, prefer) -> str:
        """A name bound to `import modname` (reusing one if the namespace has it)."""
        for n, line in self.imports.items():
            if line in (f"import {modname} as {n}", f"import {modname}") and \
                    (n == modname.split(".")[0] if line == f"import {modname}" else True):
                if line == f"import {modname}" and "." in modname:
                    continue
                return n
        name = prefer if not self.taken(prefer) else self.fresh(prefer)
        self.values[name] = sys.modules.get(modname, modname)
        self.imports[name] = f"import {modname} as {name}" if name != modname \
            else f"import {modname}"
        return name

    def ct(self) -> str:
        if self.ct_alias is None:
            self.ct_alias = self.module_name("cuda.tile", "ct")
        return self.ct_alias

    def _emit(self, name, value, where) -> None:
        if isinstance(value, types.ModuleType):
            modname = value.__name__
            if _is_ct_module(value):
                modname = "cuda.tile"        # (tile2triton.cutile is cuda.tile to translate)
                self.ct_alias = self.ct_alias or name
            if modname == name:
                self.imports[name] = f"import {modname}"
            elif "." in modname and modname.rsplit(".", 1)[1] == name:
                self.imports[name] = f"from {modname.rsplit('.', 1)[0]} import {name}"
            else:
                self.imports[name] = f"import {modname} as {name}"
            return
        if value is contextlib.contextmanager:
            self.imports[name] = "from contextlib import contextmanager" + (
                f" as {name}" if name != "contextmanager" else "")
            return
        member = _is_ct_member(value)
        if member is not None:       # `from cuda.tile import load` keeps the import style
            self.imports[name] = f"from cuda.tile import {member}" + (
                f" as {name}" if name != member else "")
            return
        if _is_user_enum(value):
            self.enum_class(value, name)
            return
        if _is_user_dataclass(value):
            self.record_class(value, name, where)
            return
        f = kernel_function(value) if not isinstance(value, type) else None
        if f is not None:
            if id(f) in self.func_names and self.func_names[id(f)] != name:
                self.assigns[name] = f"{name} = {self.func_names[id(f)]}"
                return
            self.func_names[id(f)] = name
            self.functions.append((name, f, value))
            return
        if isinstance(value, types.BuiltinFunctionType) and value.__module__ == "builtins" \
                and getattr(builtins, value.__name__, None) is value:
            # `divmod_func = divmod`: kernels may call some builtins (the translator says which)
            self.assigns[name] = f"{name} = {value.__name__}"
            return
        if value is typing.Annotated:          # in a kernel's signature
            self.imports[name] = "from typing import Annotated" + (
                f" as {name}" if name != "Annotated" else "")
            return
        if isinstance(value, types.BuiltinFunctionType) and value.__module__ in (
                "_operator", "operator") and getattr(operator, value.__name__, None) is value:
            # `func = operator.add`: kernels may call the operator functions
            self.imports[name] = f"from operator import {value.__name__}" + (
                f" as {name}" if name != value.__name__ else "")
            return
        outer, self.names_function = self.names_function, False
        expr = _expr(self, value)
        if self.names_function:
            self.late.add(name)
        self.names_function = outer
        if expr is None:
            raise _Unsupported(
                f"`{name}` is {_describe(value)}, which tile2triton cannot turn into a "
                "compile-time constant", help="kernels may use numbers, strings, tuples, "
                "dtypes, cuTile enums, modules and functions from their globals and closures",
                **where)
        self.assigns[name] = f"{name} = {expr}"


    def enum_class(self, cls, name=None) -> str:
        """The name of a user enum class in the extracted module, whose definition (members
        and their values, without methods) is written there: cuTile evaluates `Op.ADD`,
        `Op(k)`, `.value` and `.name` while compiling, so the translator needs the members."""
        if id(cls) in self.class_names:
            have = self.class_names[id(cls)]
            if name is not None and name != have:
                self.assigns[name] = f"{name} = {have}"
            return have
        if name is None:
            name = cls.__name__ if not self.taken(cls.__name__) else self.fresh(cls.__name__)
            self.values[name] = cls
        self.class_names[id(cls)] = name
        base = next((b for b in ("IntFlag", "Flag", "IntEnum", "StrEnum", "Enum")
                     if getattr(enum, b, None) is not None
                     and issubclass(cls, getattr(enum, b))), "Enum")
        mod = self.module_name("enum", "enum")
        lines = [f"class {name}({mod}.{base}):"]
        for member, m in cls.__members__.items():
            expr = _expr(self, m.value)
            if expr is None:
                raise _Unsupported(f"member `{cls.__name__}.{member}` has the value "
                                   f"{_describe(m.value)}, which tile2triton cannot write as "
                                   "a constant", help="give enum members numbers or strings")
            lines.append(f"    {member} = {expr}")
        if len(lines) == 1:
            lines.append("    pass")
        self.classes[name] = "\n".join(lines)
        return name


    def record_class(self, cls, name=None, where=None) -> str:
        """The name of a user dataclass in the extracted module, whose definition is written
        there: the decorator's options, the fields (annotated `typing.Any`, with their
        defaults), class constants and the user's methods (their source, whose names are
        bound like a helper's). Base classes come first."""
        if id(cls) in self.class_names:
            have = self.class_names[id(cls)]
            if name is not None and name != have:
                self.assigns[name] = f"{name} = {have}"
            return have
        where = where or {}
        bases = []
        for b in cls.__bases__:
            if b is object:
                continue
            if not _is_user_dataclass(b):
                raise _Unsupported(f"dataclass `{cls.__qualname__}` derives from "
                                   f"{_describe(b)}, which tile2triton cannot write out",
                                   help="derive dataclasses from dataclasses only", **where)
            bases.append(self.record_class(b, None, where))
        if name is None:
            name = cls.__name__ if not self.taken(cls.__name__) else self.fresh(cls.__name__)
            self.values[name] = cls
        self.class_names[id(cls)] = name
        dc = self.module_name("dataclasses", "dataclasses")
        lines, segments = [], []
        params = cls.__dict__.get("__dataclass_params__")
        if params is not None:            # (a plain subclass of a dataclass has none)
            opts = [f"{k}={not d}" for k, d in (("frozen", False), ("init", True))
                    if getattr(params, k, d) != d]
            lines.append(f"@{dc}.dataclass" + (f"({', '.join(opts)})" if opts else ""))
        lines.append(f"class {name}" + (f"({', '.join(bases)})" if bases else "") + ":")
        fields = {f.name: f for f in dataclasses.fields(cls)} if params is not None else {}
        self._record_fields(cls, fields, dc, lines, where)
        self._record_members(cls, fields, lines, segments, where)
        if len(lines) == 1 + (params is not None):
            lines.append("    pass")
        self.classes[name] = "\n".join(lines)
        self.class_segments[name] = segments
        return name

    def _record_fields(self, cls, fields: dict, dc: str, lines: list, where: dict) -> None:
        """The dataclass's own fields, annotated `typing.Any` (or their builtin type), with
        their defaults, as lines of its definition."""
        own = cls.__dict__.get("__annotations__", {})
        for fname in own:
            f = fields.get(fname)
            if f is None:
                continue             # a ClassVar
            ann = _type_expr(self, f.type) if isinstance(f.type, type) else None
            ann = ann if ann in ("int", "float", "bool", "str") else \
                f"{self.module_name('typing', 'typing')}.Any"
            if f.default_factory is not dataclasses.MISSING:
                raise _Unsupported(f"field `{cls.__qualname__}.{fname}` has a default_factory, "
                                   "which cuTile does not support in kernels",
                                   help="give the field a plain default", **where)
            default = None
            if f.default is not dataclasses.MISSING:
                default = _expr(self, f.default)
                if default is None:
                    raise _Unsupported(f"field `{cls.__qualname__}.{fname}` has the default "
                                       f"{_describe(f.default)}, which tile2triton cannot "
                                       "write as a constant", **where)
            if not f.init:
                default = f"{dc}.field(init=False" + (
                    f", default={default})" if default is not None else ")")
            lines.append(f"    {fname}: {ann}" + (f" = {default}" if default is not None else ""))

    def _record_members(self, cls, fields: dict, lines: list, segments: list,
                        where: dict) -> None:
        """The class's methods (their source; `segments` maps the lines back to it) and
        constants, as lines of its definition."""
        for k, v in cls.__dict__.items():
            if k.startswith("__") and k.endswith("__") and not callable(v) or k in fields:
                continue
            func = v.fget if isinstance(v, property) else v.__func__ if isinstance(
                v, (staticmethod, classmethod)) else v
            while isinstance(getattr(func, "__wrapped__", None), types.FunctionType):
                func = func.__wrapped__          # @contextmanager
            if isinstance(func, types.FunctionType):
                if k in _DATACLASS_MADE and func.__code__.co_filename == "<string>":
                    continue                     # written by @dataclass itself
                if getattr(func, "_cutile_python_static_def", False) or getattr(
                        v, "_cutile_python_static_def", False):
                    raise _Unsupported(f"`{cls.__qualname__}.{k}` is a static_def (Python "
                                       "that cuTile runs while compiling), which tile2triton "
                                       "does not translate",
                                       help="write the method as ordinary kernel code", **where)
                mlines, first, path = _function_source(func)
                text, shift = _dedent(mlines)
                fdef = _parse_def(text, path, first, func.__qualname__)
                _bind_free_names(self, func, fdef, fdef.decorator_list, None, path, first,
                                 shift)
                body = text.rstrip("\n").split("\n")
                segments.append((len(lines), len(body), path, first, shift - 4))
                lines.extend("    " + ln if ln.strip() else "" for ln in body)
                continue
            if k.startswith("_"):
                continue
            expr = _expr(self, v)
            if expr is None:
                raise _Unsupported(f"`{cls.__qualname__}.{k}` is {_describe(v)}, which "
                                   "tile2triton cannot write as a constant", **where)
            lines.append(f"    {k} = {expr}")


_DATACLASS_MADE = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                   "__lt__", "__le__", "__gt__", "__ge__", "__getstate__", "__setstate__")


def _is_user_dataclass(value) -> bool:
    """A class made by @dataclasses.dataclass (or deriving from one) outside cuda.tile."""
    return isinstance(value, type) and dataclasses.is_dataclass(value) \
        and _is_ct_member(value) is None and not issubclass(value, enum.Enum)


def _is_user_enum(value) -> bool:
    """An enum class defined outside cuda.tile (cuTile's own enums are imported)."""
    return isinstance(value, type) and issubclass(value, enum.Enum) \
        and _is_ct_member(value) is None


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _describe(v) -> str:
    r = repr(v)
    if len(r) > 60:
        r = r[:57] + "..."
    return f"a {type(v).__name__} ({r})"


def _is_ct_member(value) -> Optional[str]:
    """'float32' when value is cuda.tile.float32 (real or interpreted)."""
    for m in _ct_modules():
        for n in getattr(m, "__all__", None) or dir(m):
            try:
                if getattr(m, n) is value:
                    return n
            except AttributeError:
                continue
    return None


def _expr(ns: _Namespace, v) -> Optional[str]:
    """Python source for a constant value, or None."""
    for part in (_plain_expr, _named_expr, _typing_expr, _instance_expr):
        out = part(ns, v)
        if out is not _OTHER:
            return out
    if isinstance(v, type):
        return _type_expr(ns, v)
    return None


# what a part of _expr returns for a value it does not handle (None: cannot be written)
_OTHER = object()


def _plain_expr(ns: _Namespace, v):
    """Python's own values: None, numbers, strings, tuples, lists, dicts."""
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return 'float("nan")'
        if math.isinf(v):
            return 'float("inf")' if v > 0 else '-float("inf")'
        return repr(v)
    if isinstance(v, complex):
        return repr(v)
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        items = [_expr(ns, x) for x in v]
        if any(i is None for i in items):
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, list):
        items = [_expr(ns, x) for x in v]
        return None if any(i is None for i in items) else "[" + ", ".join(items) + "]"
    if isinstance(v, dict):
        parts = [(_expr(ns, k), _expr(ns, x)) for k, x in v.items()]
        if any(a is None or b is None for a, b in parts):
            return None
        return "{" + ", ".join(f"{a}: {b}" for a, b in parts) + "}"
    return _OTHER


def _named_expr(ns: _Namespace, v):
    """cuTile's names and enum members, the user's enums, operator functions and the
    builtins kernels call, and helpers (inside a table): copied in."""
    member = _is_ct_member(v)
    if member is not None:
        return f"{ns.ct()}.{member}"
    if isinstance(v, enum.Enum):
        cls = _is_ct_member(type(v))
        if cls is not None:
            return f"{ns.ct()}.{cls}.{v.name}"
        return f"{ns.enum_class(type(v))}.{v.name}"
    if _is_user_enum(v):
        return ns.enum_class(v)
    if isinstance(v, types.BuiltinFunctionType) and v.__module__ in ("_operator", "operator") \
            and getattr(operator, v.__name__, None) is v:
        return f"{ns.module_name('operator', 'operator')}.{v.__name__}"
    if isinstance(v, types.BuiltinFunctionType) and v.__module__ == "builtins" \
            and getattr(builtins, v.__name__, None) is v and v.__name__ in ("min", "max", "abs"):
        return v.__name__
    f = kernel_function(v) if not isinstance(v, type) else None
    if f is not None:          # a helper inside a table (`{Op.ADD: add_helper}`): copied in
        ns.names_function = True
        if id(f) in ns.func_names:
            return ns.func_names[id(f)]
        name = f.__name__ if not ns.taken(f.__name__) else ns.fresh(f.__name__)
        ns.bind(name, v, {})
        return name
    return _OTHER


def _typing_expr(ns: _Namespace, v):
    """Annotations: `tuple[...]`, `torch.Tensor`, `typing.Annotated[...]`."""
    if typing.get_origin(v) is tuple and type(v) is types.GenericAlias:
        # `tuple[ct.IndexedWithInt64, torch.Tensor]`, `tuple[int, ...]`
        items = [("..." if a is Ellipsis else _expr(ns, a)) for a in typing.get_args(v)]
        return None if not items or None in items else f"tuple[{', '.join(items)}]"
    if v is _torch_tensor_type():
        return f"{ns.module_name('torch', 'torch')}.Tensor"
    if typing.get_origin(v) is typing.Annotated:
        args = typing.get_args(v)
        inner = _type_expr(ns, args[0])
        metas = [type(m).__name__ for m in args[1:]]
        if inner is not None and metas == ["ConstantAnnotation"]:
            return f"{ns.ct()}.Constant[{inner}]"
        # `Annotated[list, ct.ListAnnotation(...)]`, `Annotated[ct.Array, ct.ArrayAnnotation(...)]`
        parts = [inner] + [_expr(ns, m) for m in args[1:]]
        if any(p is None for p in parts):
            return None
        return f"{ns.module_name('typing', 'typing')}.Annotated[{', '.join(parts)}]"
    return _OTHER


def _instance_expr(ns: _Namespace, v):
    """Instances: the user's dataclasses, cuTile's annotation objects, torch dtypes,
    numpy types and scalars."""
    if not isinstance(v, type) and _is_user_dataclass(type(v)):
        # an instance of the user's dataclass (a global `cfg = Config(4, 8)`): built again
        fields = [(f.name, _expr(ns, getattr(v, f.name))) for f in dataclasses.fields(v)
                  if f.init]
        if any(e is None for _, e in fields) or not all(f.init for f in dataclasses.fields(v)):
            return None
        return f"{ns.record_class(type(v))}(" + ", ".join(f"{n}={e}" for n, e in fields) + ")"
    if dataclasses.is_dataclass(v) and not isinstance(v, type) \
            and _is_ct_member(type(v)) is not None:
        # cuTile's annotation objects (ct.ArrayAnnotation(static_stride_dims=(0,)), ...)
        fields = [(f.name, _expr(ns, getattr(v, f.name))) for f in dataclasses.fields(v)
                  if f.init]
        if any(e is None for _, e in fields):
            return None
        return f"{ns.ct()}.{_is_ct_member(type(v))}(" + ", ".join(
            f"{n}={e}" for n, e in fields) + ")"
    mod = type(v).__module__
    if mod == "torch" and type(v).__name__ == "dtype":
        return f"{ns.module_name('torch', 'torch')}.{str(v).split('.')[-1]}"
    if isinstance(v, type) and v.__module__ == "numpy":
        return f"{ns.module_name('numpy', 'np')}.{v.__name__}"
    if mod == "numpy" or mod.startswith("numpy."):
        if type(v).__name__.endswith("DType") or type(v).__name__ == "dtype":
            return f"{ns.module_name('numpy', 'np')}.dtype({str(v)!r})"
        if hasattr(v, "item") and getattr(v, "shape", None) == ():
            if type(v).__name__ in _NUMPY_INT_SCALARS:
                # a strictly typed constant in cuTile (`np.int16(4).dtype` is int16)
                return f"{ns.module_name('numpy', 'np')}.{type(v).__name__}({v.item()!r})"
            return _expr(ns, v.item())
        return None
    return _OTHER

_NUMPY_INT_SCALARS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def _type_expr(ns, t) -> Optional[str]:
    if t in (int, float, bool, str, complex, list, tuple):
        return t.__name__
    member = _is_ct_member(t)
    if member is not None:
        return f"{ns.ct()}.{member}"
    return None


# --------------------------------------------------------------------------------------------
# Extraction

@dataclass
class Extracted:
    """A kernel and everything it needs, as one standalone cuTile module."""
    name: str
    text: str
    path: str              # the kernel's source file
    line: int              # the kernel's first line there
    segments: list = field(default_factory=list)

    def locate(self, d: Diagnostic) -> Diagnostic:
        """Map a diagnostic on the extracted text back to the user's file."""
        for s in self.segments:
            if s.start <= d.line <= s.end:
                line = s.first + d.line - s.start
                src = linecache.getline(s.path, line) or None
                return Diagnostic(d.code, d.message, s.path, line,
                                  d.col + s.shift if d.col else d.col, d.help,
                                  src.rstrip("\n") if src else d.source_line,
                                  d.end_col + s.shift if d.end_col else d.end_col)
        return Diagnostic(d.code, d.message, self.path, self.line, 1, d.help,
                          (linecache.getline(self.path, self.line) or "").rstrip("\n") or None)


def _resolve(func, name):
    code = func.__code__
    if func.__closure__ and name in code.co_freevars:
        try:
            return func.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:      # an empty cell: assigned later in the enclosing function
            return _MISSING
    g = func.__globals__
    if name in g:
        return g[name]
    return _MISSING


def _parse_def(text, path, first, qualname):
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise _Unsupported(f"the source of `{qualname}` does not parse on its own: {e.msg}",
                           path=path, line=first + (e.lineno or 1) - 1) from None
    fdefs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not fdefs:
        raise _Unsupported(f"the source of `{qualname}` is not a `def` (a lambda?)",
                           help="define kernels and helpers with `def`", path=path, line=first)
    return fdefs[0]


def _decorator_is_ct(func, dec, role) -> bool:
    """True when a decorator expression is `ct.kernel`/`ct.kernel(...)` (role 'kernel') or
    `ct.function`/`ct.function(...)` (role 'function')."""
    expr = dec.func if isinstance(dec, ast.Call) else dec
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return False
    v = _resolve(func, expr.id)
    for p in reversed(parts):
        v = getattr(v, p, _MISSING) if v is not _MISSING else v
    for m in _ct_modules():
        if v is getattr(m, role, None):
            return True
    return False


def extract(kernel) -> Extracted:
    """The standalone cuTile module for `kernel` (a kernel object or a plain function).
    Raises TranslationError when it cannot be built."""
    func = kernel_function(kernel)
    if func is None:
        raise TranslationError(Diagnostic(
            "T2T110", f"{kernel!r} is not a cuTile kernel or a Python function",
            help="pass the object ct.kernel returned, or the function itself"))
    try:
        return _extract(kernel, func)
    except _Unsupported as e:
        path = e.path or func.__code__.co_filename
        line = e.line or func.__code__.co_firstlineno
        src = linecache.getline(path, line) or None
        raise TranslationError(Diagnostic(
            "T2T110", f"{e} (kernel `{func.__name__}`)", path, line, e.col or 1,
            e.help, src.rstrip("\n") if src else None)) from None


def _is_contextmanager(func, dec) -> bool:
    expr = dec
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return False
    v = _resolve(func, expr.id)
    for p in reversed(parts):
        v = getattr(v, p, _MISSING) if v is not _MISSING else v
    return v is contextlib.contextmanager


def _bind_free_names(ns, f, fdef, keep, name, path, first, shift) -> list:
    """Bind each name function `f` reads but does not bind (its definition `fdef`, whose
    decorators `keep` are kept) to its value in `ns`; the helper functions this adds."""
    added = []
    a = fdef.args
    annotated = {arg.annotation.id: arg.arg for arg in a.posonlyargs + a.args + a.kwonlyargs
                 if isinstance(arg.annotation, ast.Name)}
    for n, node in _free_names(fdef).items():
        if n == name:
            continue
        skip_dec = any(node in set(ast.walk(d)) for d in fdef.decorator_list
                       if d not in keep)
        if skip_dec:
            continue
        v = _resolve(f, n)
        if v is _MISSING and n in annotated:
            # a name used only as a parameter's annotation (`def k(pair: annotation)` in a
            # factory) is no free variable of the code: its value is the annotation itself
            v = getattr(f, "__annotations__", {}).get(annotated[n], _MISSING)
            if isinstance(v, str):
                v = _MISSING
        if v is _MISSING:
            continue        # a builtin, or undefined (the translator reports it)
        if n in vars(builtins) and (getattr(builtins, n) is v
                                    or getattr(v, "_t2t_tile_aware", False)):
            continue        # (the interpreter makes min/max tile-aware in module globals)
        where = dict(path=path, line=first + node.lineno - 1,
                     col=node.col_offset + 1 + shift)
        before = len(ns.functions)
        ns.bind(n, v, where)
        added.extend(ns.functions[before:])
    return added


def _extract(kernel, func) -> Extracted:
    ns = _Namespace()
    kname = func.__name__
    pieces = []       # (name, func, value, text, path, first, shift)
    done = set()
    ns.values[kname] = kernel
    ns.func_names[id(func)] = kname
    queue = [(kname, func, kernel, "kernel")]
    while queue:
        name, f, obj, role = queue.pop(0)
        if id(f) in done:
            continue
        done.add(id(f))
        lines, first, path = _function_source(f)
        text, shift = _dedent(lines)
        fdef = _parse_def(text, path, first, f.__qualname__)
        # decorators: keep ct.kernel(...)/ct.function(...), drop the rest (staticmethod, ...)
        keep = []
        for dec in fdef.decorator_list:
            if _decorator_is_ct(f, dec, "kernel") and role == "kernel" or \
                    _decorator_is_ct(f, dec, "function") and role != "kernel":
                keep.append(dec)
            elif role != "kernel" and _is_contextmanager(f, dec):
                keep.append(dec)    # a generator context manager entered by `with`
        for fn_name, hf, hv in _bind_free_names(ns, f, fdef, keep, name, path, first, shift):
            queue.append((fn_name, hf, hv, "helper"))
        text, added = _rewrite_header(ns, text, fdef, keep, name, role, kernel)
        pieces.append((name, text, path, first - added, shift))
    # assemble: imports, constants, helpers (in discovery order), kernel last
    origin = comment_safe(func.__code__.co_filename)
    out = [f"# cuTile kernel `{func.__qualname__}` from {origin}, with the "
           "values of its globals and closure (extracted by tile2triton)"]
    if ns.ct_alias is None:
        ns.ct()
    imports = sorted(set(ns.imports.values()))
    out.extend(imports)
    out.append("")
    segments = []
    for n in ns.classes:          # user enums, before the constants that name their members
        for at, count, path, first, shift in ns.class_segments.get(n, ()):
            start = len(out) + at + 1
            segments.append(_Segment(start, start + count - 1, path, first, shift))
        out.extend(ns.classes[n].split("\n") + [""])
    out.extend(ns.assigns[n] for n in sorted(ns.assigns) if n not in ns.late)
    text_lines = "\n".join(out).split("\n")
    order = pieces[1:] + pieces[:1]
    for name, text, path, first, shift in order:
        if name == kname and ns.late:      # tables of helpers, once the helpers exist
            text_lines += [""] + [ns.assigns[n] for n in sorted(ns.late)]
        text_lines += ["", ""]
        start = len(text_lines) + 1
        body = text.rstrip("\n").split("\n")
        text_lines += body
        segments.append(_Segment(start, start + len(body) - 1, path, first, shift))
    full = "\n".join(text_lines) + "\n"
    return Extracted(kname, full, func.__code__.co_filename, func.__code__.co_firstlineno,
                     segments)


def _rewrite_header(ns, text, fdef, keep, name, role, kernel) -> tuple[str, int]:
    """Replace the decorator lines by the kept decorators (plus `@ct.kernel` when the kernel was
    made by calling ct.kernel(fn)); rename the def when the function is bound to another name.
    Returns the text and how many lines it gained in front of the `def` (for line mapping)."""
    lines = text.split("\n")
    def_line = fdef.lineno - 1                  # 0-based index of the `def` line
    decs = ["@" + ast.get_source_segment(text, d) for d in keep]
    if role == "kernel" and not keep:
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(_kernel_options(kernel).items())
                         if isinstance(v, (int, float, str, bool)))
        decs = [f"@{ns.ct()}.kernel({args})" if args else f"@{ns.ct()}.kernel"]
    decs = [d.replace("\n", " ") for d in decs]
    added = max(0, len(decs) - def_line)
    head = [""] * (def_line + added)
    if decs:
        head[len(head) - len(decs):] = decs
    def_text = lines[def_line]
    if fdef.name != name:
        def_text = def_text.replace(f"def {fdef.name}(", f"def {name}(", 1)
    return "\n".join(head + [def_text] + lines[def_line + 1:]), added


# --------------------------------------------------------------------------------------------
# Translation

class KernelTranslation:
    """The Triton translation of one live kernel.

    `source`: the Triton module (kernels, helpers, `launch_<name>`); `cutile_source`: the
    standalone cuTile module it was translated from; `launcher`: `launch_<name>(stream, grid,
    *args)` from that module, imported on first use."""

    def __init__(self, name: str, source: str, extracted: Extracted):
        self.name = name
        self.source = source
        self.extracted = extracted
        self._launcher = None
        self._lock = threading.Lock()

    @property
    def cutile_source(self) -> str:
        return self.extracted.text

    @property
    def module(self):
        return _load_module(self.source, self.name)

    @property
    def launcher(self):
        with self._lock:
            if self._launcher is None:
                self._launcher = getattr(self.module, launcher_name(self.name))
            return self._launcher

    def __call__(self, stream, grid, *args):
        return self.launcher(stream, grid, *args)

    def __repr__(self):
        return f"<KernelTranslation of `{self.name}` from {self.extracted.path}>"


class KernelTranslationError(TranslationError):
    """A kernel that does not translate: every diagnostic, located in the user's files."""

    def __init__(self, kernel: str, diagnostics: list):
        super().__init__(diagnostics[0])
        self.kernel = kernel
        self.diagnostics = diagnostics

    def __str__(self):
        return "\n\n".join(d.format() for d in self.diagnostics)


_CACHE: dict = {}
_CACHE_LOCK = threading.Lock()
_MODULES: dict = {}


def _cache_dir() -> Path:
    d = Path(tempfile.gettempdir()) / f"tile2triton-live-{os.getuid() if hasattr(os, 'getuid') else 0}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _load_module(text: str, name: str):
    """Import generated Triton source from a file (Triton's JIT reads its functions' source)."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    if digest in _MODULES:
        return _MODULES[digest]
    path = _cache_dir() / f"{name}_{digest}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    modname = f"_t2t_live_{name}_{digest}"
    spec = importlib.util.spec_from_file_location(modname, str(path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    _MODULES[digest] = mod
    return mod


def translate_kernel(kernel, args=None) -> KernelTranslation:
    """Translate a live cuTile kernel (what `ct.kernel` returns) or a plain Python function,
    using its source, globals and closure values. Cached per kernel and closure values.

    `args`: the arguments of one launch. A kernel that does not translate on its own (an array
    indexed with different ranks in compile-time branches, `keepdims=` from a ct.Constant
    parameter) is then translated for this launch, as cuTile compiles it: the arguments' ranks
    decide the ranks its indexing leaves open, and its ct.Constant parameters take their values
    (see `launch_specialization`).

    Raises `KernelTranslationError` (a `TranslationError`) with located diagnostics naming the
    kernel when it does not translate."""
    ex = extract(kernel)
    func = kernel_function(kernel)
    key = (func.__code__, hashlib.sha1(ex.text.encode()).hexdigest())
    hit = _cached(key, lambda: _translate_extracted(ex))
    if isinstance(hit, KernelTranslationError) and args is not None:
        spec = launch_specialization(func, args)
        if spec is not None:
            kinds = tuple(type(v).__name__ for _, v in spec.values)     # True and 1 differ
            hit = _cached(key + (spec, kinds), lambda: _translate_extracted(ex, spec))
    if isinstance(hit, KernelTranslationError):
        raise hit
    return hit


def _cached(key, make):
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = make()
        with _CACHE_LOCK:
            _CACHE[key] = hit
    return hit


_SCALARS = (bool, int, float, str)


def launch_specialization(func, args):
    """The `model.Specialization` of one launch of `func`: the rank of each array argument
    (anything with an integer `ndim`: torch tensors, numpy arrays) and the value of each
    bool/int/float/str argument, by parameter name. None when there is nothing to say or the
    arguments do not fit the parameters."""
    from .model import Specialization
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) \
            or len(args) > len(params):
        return None
    ranks, values = [], []
    for p, a in zip(params, args):
        nd = getattr(a, "ndim", None)
        if isinstance(nd, int) and not isinstance(a, _SCALARS) and hasattr(a, "shape"):
            ranks.append((p.name, nd))
        elif isinstance(a, _SCALARS):
            values.append((p.name, a))
    if not ranks and not values:
        return None
    return Specialization(func.__name__, tuple(ranks), tuple(values))


def _translate_extracted(ex: Extracted, spec=None):
    from .translate import translate_source
    res = translate_source(ex.text, ex.path, specialize=spec)
    if res.ok:
        return KernelTranslation(ex.name, res.output, ex)
    diags = []
    for d in res.diagnostics():
        d = ex.locate(d)
        if f"`{ex.name}`" not in d.message:
            d.message = f"{d.message} (kernel `{ex.name}`)"
        diags.append(d)
    if not diags:
        diags = [Diagnostic("T2T900", f"kernel `{ex.name}` produced no translation", ex.path,
                            ex.line, 1, "this is a tile2triton bug; please report it")]
    return KernelTranslationError(ex.name, diags)
