"""Launch interception: every `ct.launch` of a program becomes a job for the checker.

The wrapper snapshots the launch's arguments (before the kernel runs), hands the snapshot to a
sink, and then runs the original launch, so the program goes on with the original's results.

- CPU backend: `cuda.tile` is the reference interpreter's fake module (``interp.install()``),
  whose `launch` is wrapped.
- GPU backend: the real `cuda.tile.launch` is wrapped (the device is synchronized before the
  snapshot).

`install_from_env()` is what the generated sitecustomize calls in a program started by
`tile2triton check --exec`; it reads T2T_CHECK_SPOOL (where job files go) and T2T_CHECK_BACKEND.
"""
from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import operator
import os
import sys
import threading
import time
from pathlib import Path

from ..parse import ENUM_MEMBERS

ENV_SPOOL = "T2T_CHECK_SPOOL"
ENV_BACKEND = "T2T_CHECK_BACKEND"
ENV_LABEL = "T2T_CHECK_LABEL"
ENV_TEST = "T2T_CHECK_TEST"


def kernel_function(kernel):
    """The Python function behind a cuTile kernel object (real or interpreted)."""
    from ..live import kernel_function as unwrap
    return unwrap(kernel)


class Unjudged:
    """Why a launch gets no comparison: `verdict` is "translate-error" (the kernel does not
    translate; `detail` holds its located diagnostics) or "not-checked" (no source to work from)."""

    def __init__(self, verdict: str, detail: str, diagnostics: str | None = None):
        self.verdict, self.detail, self.diagnostics = verdict, detail, diagnostics
        self.artifact = None        # the record of what the launch would be judged against

    def finding(self) -> dict:
        f = dict(kind=self.verdict, detail=self.detail)
        if self.diagnostics:
            f["diagnostics"] = self.diagnostics
        return f


def translate_launched(kernel, args=None):
    """The translation of the launched kernel object itself (its source, globals and closure
    values, wherever it was defined), or an `Unjudged` saying why there is none. Each launch is
    judged on its own kernel: other kernels and host code of its file play no part. A kernel
    that only translates for given arguments is translated for this launch's `args`
    (live.translate_kernel)."""
    from ..diagnostics import TranslationError
    from ..live import translate_kernel
    try:
        return translate_kernel(kernel, args)
    except TranslationError as e:
        text = str(e) if type(e).__name__ == "KernelTranslationError" else e.diagnostic.format()
        name = getattr(kernel_function(kernel), "__name__", "?")
        if e.diagnostic.code == "T2T110":
            return Unjudged("not-checked", e.diagnostic.message, text)
        return Unjudged("translate-error", f"kernel `{name}` did not translate", text)
    except Exception as e:  # noqa: BLE001 - a translator crash is this launch's verdict
        import traceback
        return Unjudged("translate-error", f"the translator crashed: {type(e).__name__}: {e}",
                        "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:])


def _importable(kernel, func) -> bool:
    """True when the worker can import the launched object from its module by name."""
    mod = sys.modules.get(getattr(func, "__module__", None) or "")
    return mod is not None and getattr(mod, func.__name__, None) is kernel \
        and getattr(mod, "__file__", None) is not None


class SpoolSink:
    """Writes each job to `<spool>/<prefix>-<n>.pt` (and notes to `.json` files)."""

    def __init__(self, spool, prefix=None):
        self.spool = Path(spool)
        self.spool.mkdir(parents=True, exist_ok=True)
        self.prefix = prefix or f"p{os.getpid()}-{int(time.time() * 1000) % 10**8}"
        self._n = itertools.count()
        self._lock = threading.Lock()

    def _name(self, ext):
        with self._lock:
            return self.spool / f"{self.prefix}-{next(self._n):06d}.{ext}"

    def job(self, meta, snap):
        from . import snapshot as S
        path = self._name("pt")
        S.save(path, meta, snap)
        return path

    def note(self, record: dict):
        path = self._name("json")
        tmp = Path(f"{path}.tmp")
        tmp.write_text(json.dumps(record, default=str))
        os.replace(tmp, path)
        return path


class Recorder:
    """Turns launches into jobs for a sink. `context` labels the jobs (case, config, seed...)."""

    def __init__(self, sink, backend: str, source: str = "exec", mode: str | None = None,
                 overrides: dict | None = None):
        from .artifacts import ENV_MODE, MODES
        self.sink = sink
        self.backend = backend
        self.source = source
        # what launches are judged against (artifacts.py): the static translation of the
        # kernel's module (what `convert` writes) or the live one; --translation overrides
        self.mode = mode or os.environ.get(ENV_MODE) or "static"
        if self.mode not in MODES:
            raise ValueError(f"unknown checking mode {self.mode!r} (static or live)")
        if overrides is None:
            from .artifacts import ENV_OVERRIDES
            overrides = json.loads(os.environ.get(ENV_OVERRIDES) or "{}")
        self.overrides = dict(overrides)
        self.context: dict = {}
        self.declared_outputs: set = set()   # data pointers of arrays known to be outputs
        self._count = itertools.count()
        self.jobs: list = []
        self.enabled = True
        # launches made while a CUDA graph was being captured: checked once capture has ended
        # (copying or synchronizing during capture would invalidate it)
        self.deferred: list = []
        self.rejection_depth = 0    # > 0 inside pytest.raises: the test expects an error
        # per kernel name, what ct.tune.exhaustive_search chose last (config, grid, hints)
        self.tuned: dict = {}

    def _aux_file(self, kind, name, text) -> str:
        """Write a generated module next to the jobs (once per content)."""
        import hashlib
        spool = Path(getattr(self.sink, "spool", None) or _aux_dir())
        digest = hashlib.sha1(text.encode()).hexdigest()[:12]
        path = spool / f"{kind}-{name}-{digest}.py"
        if not path.exists():
            tmp = Path(f"{path}.{os.getpid()}.tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
        return str(path)

    def _plan(self, kernel, func, name, kfile, kernel_args):
        return _plan_launch(self, kernel, func, name, kfile, kernel_args)

    def _planned_only(self, meta, plan) -> None:
        """Measuring what the artifacts serve (tools/static_launches.py): nothing is run."""
        meta.update(plan.meta, artifact=dict(plan.artifact), verdict="not-checked",
                    planned=True, findings=[dict(kind="not-checked", detail=(
                        f"{ENV_PLAN_ONLY} is set: the launch has a translation to be checked "
                        "against, and is not run"))])
        self.jobs.append(self.sink.note(dict(type="launch", **meta)))

    def record(self, kernel, grid, kernel_args):
        from . import snapshot as S
        index = next(self._count)
        func = kernel_function(kernel)
        name = getattr(func, "__name__", None) or getattr(kernel, "__name__", "?")
        try:
            kfile = inspect.getsourcefile(func) if func is not None else None
        except TypeError:
            kfile = None
        kfile = kfile or getattr(getattr(func, "__code__", None), "co_filename", None)
        meta = dict(self.context)
        meta.update(kernel=name, kernel_file=os.path.abspath(kfile) if kfile else None,
                    module=getattr(func, "__module__", None), launch_index=index,
                    grid=list(_grid(grid)), sys_path=[p for p in sys.path if p],
                    cwd=os.getcwd(), source=self.source, backend=self.backend,
                    pid=os.getpid(), hints=kernel_hints(kernel))
        chosen = self.tuned.get(name)
        if chosen and not meta.get("tuning") and chosen["grid"] == meta["grid"] \
                and chosen["hints"] == meta["hints"]:
            meta["tuned_config"] = chosen["config"]
        meta["source_file"] = meta["kernel_file"]
        if func is None:
            plan = Unjudged("not-checked", f"{kernel!r} is not a cuTile kernel with Python source")
        else:
            plan = self._plan(kernel, func, name, meta["kernel_file"], kernel_args)
        if isinstance(plan, Unjudged):
            if plan.artifact is not None:
                meta["artifact"] = plan.artifact
            meta.update(verdict=plan.verdict, findings=[plan.finding()])
            self.jobs.append(self.sink.note(dict(type="launch", **meta)))
            return
        if os.environ.get(ENV_PLAN_ONLY):
            return self._planned_only(meta, plan)
        try:
            meta.update(plan.meta)
            if plan.text is not None:
                meta["translation"] = self._aux_file(plan.kind, plan.stem, plan.text)
            meta["artifact"] = dict(plan.artifact, file=meta["translation"])
            if not _importable(kernel, func):
                # the worker rebuilds the original from its extracted cuTile module
                from ..live import extract
                meta.update(kernel_file=self._aux_file("cutile", name, extract(kernel).text),
                            module=None, original_extracted=True)
        except OSError as e:
            meta.update(verdict="error", findings=[dict(
                kind="error", detail=f"could not write the translation: {e}")])
            self.jobs.append(self.sink.note(dict(type="launch", **meta)))
            return
        except Exception as e:  # noqa: BLE001 - the original cannot be rebuilt: not judged
            meta.update(verdict="not-checked", findings=[dict(
                kind="not-checked", detail=f"could not extract kernel `{name}`'s source to "
                f"run the original in the checker: {type(e).__name__}: {e}")])
            self.jobs.append(self.sink.note(dict(type="launch", **meta)))
            return
        kfile = meta["kernel_file"]
        if self.backend == "gpu":
            import torch
            torch.cuda.synchronize()
        try:
            if kfile is None or not os.path.exists(kfile):
                raise RuntimeError(f"the source file of kernel {name!r} is unknown")
            snap = S.take(tuple(kernel_args))
        except Exception as e:  # noqa: BLE001 - recorded as this launch's verdict
            meta.update(verdict="error", findings=[dict(
                kind="error", detail=f"could not snapshot the launch: {e}")])
            self.jobs.append(self.sink.note(dict(type="launch", **meta)))
            return
        # what tells launches apart beside the kernel and grid (bench times each distinct one)
        meta["signature"] = [[list(t.shape), list(t.stride), str(t.dtype).replace("torch.", "")]
                             for t in snap.tensors]
        meta["constants"] = constants_text(snap.tree)
        if self.declared_outputs:
            meta["declared_outputs"] = [i for i, t in enumerate(snap.tensors)
                                        if t.ptr in self.declared_outputs]
        self.jobs.append(self.sink.job(meta, snap))


# set (to anything): launches are only matched to their translation (recorded `planned`,
# verdict not-checked, or the translate-error that matching gives), never run or compared
ENV_PLAN_ONLY = "T2T_CHECK_PLAN_ONLY"


class _Plan:
    """What a launch is checked against: `text` written next to the jobs (None: `file` as it
    is), the launcher to call and its keyword arguments (`meta`), and the artifact's record."""

    def __init__(self, kind, stem, text, artifact, meta=None):
        self.kind, self.stem, self.text = kind, stem, text
        self.artifact, self.meta = artifact, dict(meta or {})


def _plan_launch(self, kernel, func, name, kfile, kernel_args):
    from . import artifacts as A
    named = A.override_for(self.overrides, kfile, name)
    if named is not None:
        key, override = named
        text = Path(override).read_text()
        return _Plan(None, name, None, dict(mode="override", key=key, sha256=A.sha256(text),
                                            module=kfile), dict(translation=override))
    why = None if self.mode == "live" else _no_module(func, kfile)
    if self.mode == "live" or why is not None:
        # (static mode: a kernel built from a string has no module for `convert` to
        # translate; `translate_kernel` is how such a kernel is translated: judged on that)
        plan = translate_launched(kernel, _as_tuple(kernel_args))
        extra = dict(reason=why) if why else {}
        if isinstance(plan, Unjudged):
            plan.artifact = dict(mode="live", file=None, sha256=None, module=kfile, **extra)
            return plan
        return _Plan("triton", name, plan.source, dict(mode="live", sha256=A.sha256(
            plan.source), module=kfile, **extra))
    return _static_plan(kernel, func, name, kfile)


def _no_module(func, kfile) -> str | None:
    """Why kernel function `func` has no module that `convert` could translate, or None: its
    code was compiled from a string (`exec(compile(src, path, "exec"), {"ct": ct})`, as
    cuTile's tests build kernels), so its names are the exec's globals, not those of a module
    imported from `kfile` (which, where it exists at all, is only a copy of the string)."""
    scope = getattr(func, "__globals__", None)
    if not isinstance(scope, dict) or not kfile:
        return None
    own = scope.get("__file__")
    if own and os.path.realpath(own) == os.path.realpath(kfile):
        return None
    if own is None and scope.get("__name__") not in (None, "builtins"):
        return None         # a module without __file__ (a namespace made by a loader)
    return (f"kernel `{func.__name__}` was built from a string (exec); it has no module "
            "for `convert` to translate: judged against its live translation")


def _static_plan(kernel, func, name, kfile):
    """The launch against the static translation of its kernel's module (artifacts.py)."""
    from . import artifacts as A
    if not kfile or not os.path.isfile(kfile):
        return Unjudged("not-checked", f"kernel `{name}` has no source file for `convert` to "
                        "translate (a kernel built from a string); check it with --mode live")
    try:
        art = A.module_artifact(kfile)
    except Exception as e:  # noqa: BLE001 - a translator crash is this launch's verdict
        import traceback
        u = Unjudged("translate-error", f"the translator crashed on {kfile}: "
                     f"{type(e).__name__}: {e}", "".join(traceback.format_exception(
                         type(e), e, e.__traceback__))[-3000:])
        u.artifact = dict(mode="static", file=None, sha256=None, module=kfile)
        return u
    record = art.record(None)
    if art.text is None:
        u = Unjudged("translate-error", f"{kfile} does not translate", art.module_diagnostics)
        u.artifact = record
        return u
    rep, launcher = art.find(func)
    if rep is None:
        u = Unjudged("translate-error", launcher)
        u.artifact = record
        return u
    if rep.status != "translated":
        u = Unjudged("translate-error", f"kernel `{name}` did not translate",
                     "\n\n".join(d.format() for d in rep.diagnostics))
        u.artifact = record
        return u
    extra = dict(launcher=launcher)
    if rep.closure:         # a kernel of a host function: its launcher takes those values
        values = _closure_values(func, rep.closure, getattr(rep, "choices", ()),
                                 getattr(rep, "dtypes", ()))
        if isinstance(values, str):
            u = Unjudged("not-checked", values)
            u.artifact = record
            return u
        extra["launcher_kwargs"] = values
    stem = Path(kfile).stem
    return _Plan("static", stem, art.text, record, extra)


def _closure_values(func, names, choices=(), dtypes=()):
    """The values a nested kernel reads from its host function, as JSON, or why not. A
    function value the kernel calls (`choices`: a factory's `reduce_op`) is passed by its
    name, and a cuTile enum member it passes on by its own ("RoundingMode.RZ"), which the
    translation chooses by (`_choice_name` in the translated module); a dtype it passes to a
    construct (`dtypes`: `ct.astype(t, to_dtype)`) by the dtype's name ("float16"), which the
    launcher makes a Triton dtype of (`_dtype_value`)."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    out = {}
    for n in names:
        try:
            v = cells[n].cell_contents if n in cells else func.__globals__[n]
        except (KeyError, ValueError):
            return f"the value of `{n}`, which kernel `{func.__name__}` reads from its host " \
                "function, is not known"
        if n in choices and callable(v) and isinstance(getattr(v, "__name__", None), str):
            # (an operator function by its module, as _choice_name)
            v = f"operator.{v.__name__}" if getattr(operator, v.__name__, None) is v \
                else v.__name__
        elif n in choices and (type(v).__name__ in ENUM_MEMBERS or hasattr(
                type(v), "__members__")) and isinstance(getattr(v, "name", None), str):
            v = f"{type(v).__name__}.{v.name}"      # an enum member, as _choice_name
        elif n in dtypes and _dtype_name(v) is not None:
            v = _dtype_name(v)
        if not _plain(v):
            return f"`{n}` = {v!r}, which kernel `{func.__name__}` reads from its host " \
                "function, cannot be passed to the checker's worker"
        out[n] = v
    return out


def _dtype_name(v):
    """The name of a dtype (torch's, NumPy's or its scalar type, cuTile's, the reference
    interpreter's) as `_dtype_value` reads it: "float16", "bool"; None for anything else."""
    if isinstance(v, str):
        return v
    if isinstance(v, type):
        name = v.__name__ if v.__module__ == "numpy" else None
    elif type(v).__module__.startswith("torch"):
        name = str(v)
    else:
        name = getattr(v, "name", None)
    return name.rpartition(".")[2] if isinstance(name, str) else None


def _plain(v) -> bool:
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    return isinstance(v, (tuple, list)) and all(_plain(x) for x in v)
def constants_text(tree) -> str:
    """The launch's non-array arguments as text, arrays shown as `A0`, `A1`, ... in argument
    order: `(A0, A1, A2, 128, 256, 64)`. Deterministic (no object addresses)."""
    from . import snapshot as S

    def text(v):
        if isinstance(v, S._TensorRef):
            return f"A{v.index}"
        if isinstance(v, tuple):
            return "(" + ", ".join(text(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if isinstance(v, list):
            return "[" + ", ".join(text(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k!r}: {text(x)}" for k, x in v.items()) + "}"
        if isinstance(v, S._DataclassRef):
            return f"{v.cls.__name__}(" + ", ".join(f"{k}={text(x)}" for k, x in v.fields.items()) + ")"
        if isinstance(v, (bool, int, float, complex, str, bytes, type(None))):
            return repr(v)
        return str(v)                       # dtypes and other picklable values
    return text(tree)


def resolve_hint(value, target: str | None):
    """A hint's value for `target` ("sm_90"): a ByTarget (real cuTile's or the interpreter's)
    gives its entry for the target, else its default (None when it has none); anything else
    is itself."""
    by_target = getattr(value, "_by_target", getattr(value, "value_by_target", None))
    if not isinstance(by_target, dict):
        return value
    if target in by_target:
        return by_target[target]
    default = getattr(value, "_default", getattr(value, "default", None))
    return None if type(default).__name__ == "_UnspecifiedType" else default


def device_target() -> str | None:
    """"sm_90" for the current CUDA device, None without one."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return f"sm_{major}{minor}"
    except Exception:  # noqa: BLE001
        pass
    return None


def kernel_hints(kernel, target: str | None = "device") -> dict:
    """The hints a launch of `kernel` compiles with (num_ctas, occupancy, ...), ByTarget values
    resolved for `target` (default: the current device), unset ones left out. They are part of
    a launch's identity: `replace_hints` makes another kernel of the same function."""
    if target == "device":
        target = device_target()
    options = getattr(kernel, "_compiler_options", None)
    if options is not None and dataclasses.is_dataclass(options):
        raw = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
        defaults = {f.name: f.default for f in dataclasses.fields(options)}
    else:
        raw, defaults = dict(getattr(kernel, "_options", None) or {}), {}
    out = {}
    for key, value in sorted(raw.items()):
        value = resolve_hint(value, target)
        if value is None or (key in defaults and value == defaults[key]):
            continue
        out[key] = value if isinstance(value, (int, float, str, bool)) else repr(value)
    return out


def wrap_tune(module, recorder):
    """Wrap `module.tune.exhaustive_search` so that launches made while it searches are marked
    as tuning candidates, and its choice (config, grid, hints) is noted: a later launch of that
    kernel on that grid with those hints is the configuration the tuner chose. Returns an undo
    function (None when the module has no tuner)."""
    tune = getattr(module, "tune", None)
    original = getattr(tune, "exhaustive_search", None)
    if original is None or getattr(original, "_t2t_recording", False):
        return None

    def exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None,
                          *args, **kwargs):
        saved = recorder.context
        recorder.context = dict(saved, tuning="ct.tune.exhaustive_search")
        try:
            result = original(search_space, stream, grid_fn, kernel, args_fn, hints_fn,
                              *args, **kwargs)
        finally:
            recorder.context = saved
        try:
            _note_tuned(recorder, result, grid_fn, kernel, hints_fn, len(search_space))
        except Exception:  # noqa: BLE001 - a note we cannot make must not break the program
            pass
        return result

    exhaustive_search._t2t_recording = True
    exhaustive_search.__doc__ = original.__doc__
    tune.exhaustive_search = exhaustive_search

    def undo():
        tune.exhaustive_search = original
    return undo


def _note_tuned(recorder, result, grid_fn, kernel, hints_fn, candidates: int) -> None:
    config = result.best.config
    chosen = kernel if callable(getattr(kernel, "replace_hints", None)) else kernel(config)
    if hints_fn is not None:
        chosen = chosen.replace_hints(**hints_fn(config))
    func = kernel_function(chosen)
    name = getattr(func, "__name__", None) or "?"
    entry = dict(config=repr(config), grid=list(_grid(grid_fn(config))),
                 hints=kernel_hints(chosen))
    recorder.tuned[name] = entry
    recorder.jobs.append(recorder.sink.note(dict(
        type="tune", kernel=name, candidates=candidates,
        best_us=getattr(result.best, "mean_us", None), **entry, **recorder.context)))


def _as_tuple(args):
    """The launch's arguments as a tuple, or None when they are not a sequence (the original
    launch reports that)."""
    try:
        return tuple(args)
    except TypeError:
        return None


def _grid(grid):
    if isinstance(grid, int):
        return (grid,)
    return tuple(int(g) for g in grid)


_AUX: list = []


def _aux_dir():
    if not _AUX:
        import tempfile
        _AUX.append(tempfile.mkdtemp(prefix="t2t_aux_"))
    return _AUX[0]


_ACTIVE: list = []
_KEEP: list = []


def wrap_launch(module, recorder):
    """Replace `module.launch` with a recording wrapper; returns an undo function."""
    original = module.launch
    if getattr(original, "_t2t_recording", False):
        original = original._t2t_original

    def launch(stream, grid, kernel, kernel_args, /, *args, **kwargs):
        if not recorder.enabled:
            return original(stream, grid, kernel, kernel_args, *args, **kwargs)
        if recorder.backend == "gpu" and capturing():
            entry = (kernel, grid, kernel_args, dict(recorder.context))
            recorder.deferred.append(entry)
            try:
                return original(stream, grid, kernel, kernel_args, *args, **kwargs)
            except BaseException as e:
                # rejected while capturing: nothing to check later; writing a note is safe
                # during capture (no device work)
                recorder.deferred.remove(entry)
                _rejected_in_capture(recorder, kernel, grid, e)
                raise
        if recorder.deferred:
            flush_deferred(recorder)
        items = getattr(recorder.sink, "items", None)
        first = len(items) if items is not None else 0
        recorder.record(kernel, grid, kernel_args)
        new = items[first:] if items is not None else []
        try:
            out = original(stream, grid, kernel, kernel_args, *args, **kwargs)
        except BaseException as e:
            _mark(new, recorder, e)
            raise
        for _, _, meta in new:
            meta["program_ok"] = True       # the original launch went through in the program
        return out

    launch._t2t_recording = True
    launch._t2t_original = original
    launch.__doc__ = original.__doc__
    module.launch = launch
    _ACTIVE.append(recorder)

    def undo():
        module.launch = original
    return undo


def _mark(items, recorder, exc) -> None:
    """The original raised in the program. Inside pytest.raises the test expects exactly that:
    the launch is an expected rejection, left out of the figures, and not checked."""
    for _, _, meta in items:
        meta["program_raised"] = f"{type(exc).__name__}: {exc}"[:1000]
        if recorder.rejection_depth:
            meta["expected_rejection"] = True
            meta["verdict"] = "expected-rejection"
            meta["findings"] = [dict(kind="expected-rejection", detail=(
                "the test expects cuTile to reject this launch (pytest.raises), and it did: "
                f"{type(exc).__name__}: {str(exc)[:300]}"))]


def _rejected_in_capture(recorder, kernel, grid, exc) -> None:
    func = kernel_function(kernel)
    name = getattr(func, "__name__", None) or getattr(kernel, "__name__", "?")
    why = f"{type(exc).__name__}: {str(exc)[:300]}"
    if recorder.rejection_depth:
        verdict, detail = "expected-rejection", (
            f"the test expects cuTile to reject this launch (pytest.raises), and it did: {why}")
    else:
        verdict, detail = "original-failed", f"cuTile raised during graph capture: {why}"
    rec = dict(recorder.context, kernel=name, grid=list(_grid(grid)), verdict=verdict,
               graph_capture=True, source=recorder.source, backend=recorder.backend,
               findings=[dict(kind=verdict, detail=detail)])
    if verdict == "expected-rejection":
        rec["expected_rejection"] = True
    recorder.jobs.append(recorder.sink.note(dict(type="launch", **rec)))


def capturing() -> bool:
    """True while the current CUDA stream is capturing a graph."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    try:
        return bool(torch.cuda.is_available() and torch.cuda.is_current_stream_capturing())
    except Exception:  # noqa: BLE001
        return False


def flush_deferred(recorder) -> None:
    """Record the launches deferred during a graph capture, now that it has ended: their
    arguments are snapshotted as they are at the end of capture (a captured kernel has not
    run yet), and the check replays them eagerly."""
    pending, recorder.deferred = recorder.deferred, []
    saved = recorder.context
    try:
        for kernel, grid, kernel_args, context in pending:
            recorder.context = dict(context, graph_capture=True)
            recorder.record(kernel, grid, kernel_args)
    finally:
        recorder.context = saved


def hook_graph_capture() -> None:
    """Flush every recorder's deferred launches right after a torch CUDA graph capture ends."""
    try:
        import torch
        cls = torch.cuda.CUDAGraph
    except Exception:  # noqa: BLE001
        return
    original = cls.capture_end
    if getattr(original, "_t2t_hooked", False):
        return

    def capture_end(self, *a, **kw):
        out = original(self, *a, **kw)
        for rec in list(_ACTIVE):
            if rec.deferred and not capturing():
                flush_deferred(rec)
        return out

    capture_end._t2t_hooked = True
    try:
        cls.capture_end = capture_end
    except (AttributeError, TypeError):
        pass                    # a build whose class cannot be patched: flushed at test end


def install(recorder):
    """Install interception for recorder.backend; returns an undo function."""
    if recorder.backend == "cpu":
        from .. import interp
        cm = interp.install()
        fake = cm.__enter__()
        interp.allow_private_imports()       # upstream test helpers import private submodules
        _KEEP.append(cm)        # a generator context manager that is collected exits itself
        undo_wrap = wrap_launch(fake, recorder)
        undo_tune = wrap_tune(fake, recorder)

        def undo():
            undo_wrap()
            if undo_tune is not None:
                undo_tune()
            if cm in _KEEP:
                _KEEP.remove(cm)
                cm.__exit__(None, None, None)
        return undo
    import cuda.tile as ct
    hook_graph_capture()
    undo_wrap = wrap_launch(ct, recorder)
    try:
        import cuda.tile.tune  # noqa: F401 - a submodule: ct.tune is bound once imported
    except Exception:  # noqa: BLE001
        pass
    undo_tune = wrap_tune(ct, recorder)

    def undo():
        undo_wrap()
        if undo_tune is not None:
            undo_tune()
    return undo


def install_from_env():
    spool = os.environ.get(ENV_SPOOL)
    if not spool:
        return None
    backend = os.environ.get(ENV_BACKEND, "cpu")
    if backend == "cpu":
        os.environ.setdefault("T2T_INTERP_SEED", "0")
        # a child of an upstream test on the CPU backend allocates on "cuda" too
        from .cuda_on_cpu import enable_from_env
        enable_from_env()
    recorder = Recorder(SpoolSink(spool), backend, source="exec")
    label = os.environ.get(ENV_LABEL)
    if label:
        recorder.context["case"] = label
    test = os.environ.get(ENV_TEST)
    if test:                       # a child process of a test, under the pytest plugin
        recorder.context.update(case=test, test=test, subprocess=True)
    install(recorder)
    import atexit
    atexit.register(lambda: recorder.deferred and flush_deferred(recorder))
    return recorder
