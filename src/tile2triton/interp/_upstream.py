"""Stand-ins for cuda.tile's private submodules, so that cuTile's own test suite imports on a
machine without a GPU.

The upstream tests' helpers import a handful of private names at module level
(`cuda.tile._cext.get_compute_capability`, `cuda.tile._compile.get_sm_arch`,
`cuda.tile._ir.typing_support.to_dtype`, `cuda.tile._exception.TileTypeError`, ...). The real
submodules cannot be used under the interpreter: `_cext` loads libcuda, and the others build on
the real package's types. While the interpreter is `cuda.tile` and `allow_private_imports()` was
called, `import cuda.tile.<private>` gives a stand-in instead:

- names the interpreter has an equivalent for map to it (exceptions, dtypes, enums, `to_dtype`);
- the CPU backend stands for the H200 target (compute capability 9.0, `sm_90`);
- any other name is an `Unavailable` placeholder: it can be imported, called and chained at
  import time (default arguments, decorators), and a test that relies on what it would compute
  fails on the CPU backend, as it should.

Only the conformance runner and the pytest plugin's CPU session call this; `interp.install()`
alone keeps `cuda.tile` a plain module.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

from . import _dtypes, _enums, _errors

PREFIX = "cuda.tile."


class Unavailable:
    """A private cuda.tile name the interpreter does not emulate."""

    def __init__(self, name: str):
        self._t2t_name = name

    def __call__(self, *args, **kwargs):
        return Unavailable(self._t2t_name + "()")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Unavailable(f"{self._t2t_name}.{name}")

    def __mro_entries__(self, bases):
        return (object,)

    def __getitem__(self, key):                    # generic aliases: Result[Any]
        return self

    def __iter__(self):                            # empty (and no endless __getitem__ walk)
        return iter(())

    def __contains__(self, item):
        return False

    def __lt__(self, other):                       # version gates: neither side is "older"
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __repr__(self) -> str:
        return f"<{self._t2t_name}: not emulated by the tile2triton interpreter>"


def _to_dtype(d):
    return _dtypes.as_dtype(d)


def _can_autocast_dtypes(src, dst) -> bool:
    try:
        _dtypes.check_implicit_cast(_dtypes.as_dtype(src), _dtypes.as_dtype(dst), "autocast")
    except (_errors.TileTypeError, _errors.TileValueError):
        return False
    return True


def _known(fullname: str) -> dict:
    """The names a stand-in module defines besides its placeholders."""
    sub = fullname[len(PREFIX):]
    if sub == "_exception":
        return {k: v for k, v in vars(_errors).items() if isinstance(v, type)}
    if sub == "_cext":
        return dict(get_compute_capability=lambda *a: (9, 0),
                    cconv_v3_enabled=lambda *a: False)
    if sub == "_compile":
        return dict(get_sm_arch=lambda *a: "sm_90")
    if sub == "_ir.typing_support":
        return dict(to_dtype=_to_dtype)
    if sub == "_datatype":
        names = {d.name: d for d in _dtypes.ALL_DTYPES.values()}
        names.update(DType=_dtypes.DType, can_autocast_dtypes=_can_autocast_dtypes)
        return names
    if sub == "_numeric_semantics":
        return dict(RoundingMode=_enums.RoundingMode, PaddingMode=_enums.PaddingMode)
    if sub == "_memory_model":
        return dict(MemoryOrder=_enums.MemoryOrder, MemoryScope=_enums.MemoryScope)
    return {}


def _module(fullname: str) -> types.ModuleType:
    mod = types.ModuleType(fullname, "stand-in of a private cuda.tile module (tile2triton "
                           "interpreter)")
    mod.__path__ = []                 # a package: its own submodules get stand-ins too
    vars(mod).update(_known(fullname))

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Unavailable(f"{fullname}.{name}")
    mod.__getattr__ = __getattr__
    return mod


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        from . import _runtime
        if not fullname.startswith(PREFIX) or sys.modules.get("cuda.tile") is not _runtime.FAKE_CT:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        from . import _runtime
        own = getattr(_runtime.FAKE_CT, spec.name[len(PREFIX):], None)
        if isinstance(own, types.ModuleType) and spec.name.count(".") == 2 \
                and getattr(own, "__name__", "").startswith(__package__):
            return own                # a submodule the interpreter implements (cuda.tile.tune)
        return _module(spec.name)

    def exec_module(self, module):
        pass


_FINDER = _Finder()


def allow_private_imports() -> None:
    """From now on, while the interpreter is `cuda.tile`, its private submodules import as
    stand-ins (see the module docstring)."""
    from . import _runtime
    if not hasattr(_runtime.FAKE_CT, "__path__"):
        _runtime.FAKE_CT.__path__ = []
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
