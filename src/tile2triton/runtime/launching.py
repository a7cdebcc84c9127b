"""Launching: cuTile kernels whose every `ct.launch` is served by a Triton translation.

`tile2triton.cutile` is the API a program imports (`import tile2triton.cutile as ct`, or
`import cuda.tile as ct` under `tile2triton run`); this module is its engine:

- `Kernel` (`ct.kernel`) keeps the user's function and hints. Its first launch translates it
  with `live.translate_kernel`, the translator `convert` and `check` use (extracted from the
  function's source, globals and closure values, so the translation is what `convert` writes
  for the same kernel), imports the translation and keeps its `launch_<kernel>` launcher; every
  later launch calls that launcher directly. A kernel that translates only per launch (ranks
  or constants that its code leaves open) keeps one launcher per such specialization. Triton
  compiles and caches one binary per specialization of each, as for the static output.
- A kernel that does not translate raises `ct.KernelNotTranslated` (a `ct.TileError`) at its first
  launch, with the translator's located diagnostics; later launches raise it again.
- `install.install()` makes `cuda.tile` (and `cuda.tile.tune`, `cuda.tile.compilation`) this
  API in `sys.modules`; `tile2triton run` does that in every Python process of the command it
  runs (a generated sitecustomize.py on PYTHONPATH), so programs and the test suites they
  start run unmodified.

Environment (set by `tile2triton run`): T2T_RUNTIME=1 installs at interpreter start;
T2T_RUNTIME_CUDA_ON_CPU=1 runs GPU programs on the CPU (`--cpu`: cuda devices are the CPU,
Triton's interpreter runs the kernels); T2T_RUN_RECORD=DIR writes one file per translated
specialization (its translation, grid and arguments) for `python -m tile2triton.portability
launches DIR`.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import types

from .api_types import ByTarget, KernelNotTranslated

ENV_CUDA_ON_CPU = "T2T_RUNTIME_CUDA_ON_CPU"
ENV_RECORD = "T2T_RUN_RECORD"
ENV_KEEP_CUTILE = "T2T_RUNTIME_KEEP_CUTILE"

_SCALARS = (bool, int, float, str)


# -- kernels and functions -------------------------------------------------------------------

_HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps")
_DEFAULT_HINTS = dict(num_ctas=None, occupancy=None, opt_level=3, num_worker_warps=None)


class Kernel:
    """`@ct.kernel` / `@ct.kernel(num_ctas=..., occupancy=..., opt_level=...,
    num_worker_warps=...)` / `ct.kernel(fn, **hints)`: a kernel whose launches run its Triton
    translation."""

    def __new__(cls, function=None, /, **hints):
        if function is None:
            return lambda f: cls(f, **hints)
        return super().__new__(cls)

    def __init__(self, function=None, /, *, num_ctas=None, occupancy=None, opt_level=3,
                 num_worker_warps=None):
        if not isinstance(function, types.FunctionType):
            raise TypeError("`kernel` decorator must be applied to a Python function")
        self._function = function
        functools.update_wrapper(self, function, updated=())
        hints = dict(num_ctas=num_ctas, occupancy=occupancy, opt_level=opt_level,
                     num_worker_warps=num_worker_warps)
        # non-default hints: live.py writes them into the extracted module when the kernel
        # was made by calling ct.kernel(fn, ...) rather than decorating
        self._options = {k: v for k, v in hints.items() if v != _DEFAULT_HINTS[k]}
        self._hints = hints
        self._replaced = False      # made by replace_hints: its hints go to the launcher
        self._fast = None           # the launcher, once a translation for every launch exists
        self._generic = None        # None: not tried; an error: translates only per launch
        self._per_launch: dict = {}
        self._lock = threading.Lock()

    @property
    def _pyfunc(self):
        return self._function

    def replace_hints(self, **hints):
        """A new kernel with these hints changed (its own translations and compiled
        kernels), as in cuTile."""
        bad = sorted(set(hints) - set(_HINTS))
        if bad:
            raise TypeError(f"replace_hints: unknown hint(s) {', '.join(bad)} "
                            f"(known: {', '.join(_HINTS)})")
        k = Kernel(self._function, **(self._hints | hints))
        k._replaced = True
        return k

    def __call__(self, *args, **kwargs):
        raise TypeError("Tile kernels cannot be called directly. Use cuda.tile.launch() "
                        "instead.")

    def __repr__(self):
        return f"<tile2triton kernel {self._function.__qualname__}>"

    # -- translation ---------------------------------------------------------------------

    def _launcher_of(self, translation):
        launcher = translation.launcher
        _record_translation(self, translation)
        if self._replaced:
            return functools.partial(launcher, hints=_launch_hints(self._hints))
        return launcher

    def _launch_slow(self, stream, grid, args):
        from ..diagnostics import TranslationError
        from ..live import translate_kernel
        with self._lock:
            if self._generic is None:
                try:
                    self._fast = self._launcher_of(translate_kernel(self))
                    self._generic = True
                except TranslationError as e:
                    self._generic = e
        if self._fast is not None:
            return _recorded(self, self._fast, stream, grid, args)
        key = _specialization_key(args)
        launcher = self._per_launch.get(key)
        if launcher is None:
            try:
                translation = translate_kernel(self, args)
            except TranslationError as e:
                raise _not_translated(self, e) from None
            launcher = self._per_launch[key] = self._launcher_of(translation)
        return _recorded(self, launcher, stream, grid, args)


def _specialization_key(args) -> tuple:
    """What live.launch_specialization reads of a launch: ranks of arrays, values of scalars."""
    return tuple((type(a), a) if isinstance(a, _SCALARS) else getattr(a, "ndim", None)
                 for a in args)


def _not_translated(kernel, error):
    diags = getattr(error, "diagnostics", None) or [error.diagnostic]
    text = "\n\n".join(d.format() for d in diags)
    name = kernel._function.__name__
    return KernelNotTranslated(name, diags, f"kernel `{name}` does not translate to Triton:\n{text}")


def _launch_hints(hints: dict) -> dict:
    """Hints as the launcher takes them: ByTarget values chosen for the current GPU."""
    out = {}
    for k, v in hints.items():
        if isinstance(v, ByTarget):
            v = v.resolve(_current_arch())
        if v is not None:
            out[k] = v
    return out


def _current_arch():
    try:
        import torch
        if torch.cuda.is_available() and torch.version.hip is None:
            major, minor = torch.cuda.get_device_capability()
            return f"sm_{major}{minor}"
    except Exception:  # noqa: BLE001 - no GPU: the default value
        pass
    return None


def function(func=None, /, *, host=False, tile=True):
    """`@ct.function`: a function callable from tile code (translated with the kernels that
    call it). With `host=True` it is also an ordinary host function."""
    def mark(f):
        if host:
            f._cutile_tile_function = tile
            return f

        @functools.wraps(f)
        def tile_only(*args, **kwargs):
            raise TypeError(f"`{f.__qualname__}` is a tile function: call it from a kernel "
                            "(or declare it @ct.function(host=True))")
        tile_only._cutile_tile_function = tile
        return tile_only
    return mark if func is None else mark(func)


def launch(stream, grid, kernel, kernel_args, /, *, programmatic_dependent_launch=False):
    """`ct.launch`: run `kernel` over `grid` (an int or up to three) on `stream` with
    `kernel_args`, through its Triton translation. `programmatic_dependent_launch` has no
    Triton counterpart and is accepted without effect."""
    fast = getattr(kernel, "_fast", None)
    if fast is not None and _PLAIN:
        return fast(stream, grid, *kernel_args)
    if not isinstance(kernel, Kernel):
        raise TypeError(f"ct.launch: {kernel!r} is not a kernel (decorate it with @ct.kernel)")
    if not isinstance(kernel_args, (tuple, list)):
        raise TypeError("ct.launch: kernel_args must be a tuple of the kernel's arguments")
    return kernel._launch_slow(stream, grid, kernel_args)


# -- recording launches (T2T_RUN_RECORD) and the CPU emulation ---------------------------------

_RECORD = os.environ.get(ENV_RECORD) or None
_RECORDED: set = set()
_EMULATED = False     # `run --cpu`: launches run with tensors telling their real device
_PLAIN = _RECORD is None   # neither: ct.launch calls the launcher and nothing else


def emulate() -> None:
    """Launches from now on run with tensors telling their real device (`run --cpu`)."""
    global _EMULATED, _PLAIN
    _EMULATED, _PLAIN = True, False


def _record_translation(kernel, translation) -> None:
    kernel._translation_file = getattr(translation.module, "__file__", None)


def _recorded(kernel, launcher, stream, grid, args):
    if _RECORD is not None:
        _record(kernel, grid, args)
    if _EMULATED:
        from .emulation import real_devices
        with real_devices():
            return launcher(stream, grid, *args)
    return launcher(stream, grid, *args)


def _record(kernel, grid, args) -> None:
    """One file per kernel, translation and argument types (dtype and rank of each array,
    value of each scalar): what `tile2triton.portability` compiles for other GPUs."""
    import hashlib

    import torch
    tfile = getattr(kernel, "_translation_file", None)
    if tfile is None:
        return

    def kind(a):
        if isinstance(a, torch.Tensor):
            return ("T", str(a.dtype), a.dim())
        if isinstance(a, (list, tuple)):
            return tuple(kind(x) for x in a)
        return (type(a).__name__, a if isinstance(a, _SCALARS) else None)

    try:
        key = (tfile, repr(grid), repr(tuple(kind(a) for a in args)),
               repr(_launch_hints(kernel._hints)) if kernel._replaced else "")
    except Exception:  # noqa: BLE001
        return
    if key in _RECORDED:
        return
    _RECORDED.add(key)

    def cpu(a):
        if isinstance(a, torch.Tensor):
            return a.detach().to("cpu", copy=True)
        if isinstance(a, (list, tuple)):
            return type(a)(cpu(x) for x in a)
        return a

    digest = hashlib.sha1(repr(key).encode()).hexdigest()[:16]
    name = kernel._function.__name__
    rec = dict(translation=tfile, launcher=f"launch_{name}",
               kernel=name, grid=grid, args=tuple(cpu(a) for a in args),
               program=os.path.basename(sys.argv[0]) if sys.argv else "?")
    os.makedirs(_RECORD, exist_ok=True)
    path = os.path.join(_RECORD, f"{name}-{digest}.pt")
    torch.save(rec, path + ".tmp")
    os.replace(path + ".tmp", path)
