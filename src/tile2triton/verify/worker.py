"""Worker process: checks launches, one at a time, for a supervisor.

    python -m tile2triton.verify.worker --backend cpu|gpu           (serve jobs on stdin)
    python -m tile2triton.verify.worker --backend gpu --one-shot JOB --result OUT.json

Protocol: one JSON object per line. The supervisor writes {"type": "job", "path": ...} to the
worker's stdin; the worker answers on its original stdout with {"type": "stage", "stage": ...}
before every step (so a timeout can say what hung) and one {"type": "result", ...}. Anything the
checked code prints goes to stderr (the worker's log). After a CUDA error the worker answers,
then exits: its context is no longer trustworthy, and the supervisor starts a fresh one.

A job file holds one launch (see snapshot.py): the kernel's source file and name, the grid, and a
snapshot of the arguments. The worker translates the kernel's file (or uses an override), runs
the original and the translation on identical, sentinel-banded copies (trials T0 and T1, see
verdicts.py), and classifies what it finds. (On the CPU backend the supervisor has already
compiled the translation with Triton's front end, in a separate process: compile_probe.py.)
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

CUDA_ERROR_MARKERS = ("illegal memory access", "CUDA error", "misaligned address",
                      "unspecified launch failure", "illegal instruction",
                      "an illegal memory access", "CUDA_ERROR", "cudaError")


class Fatal(Exception):
    """The process can no longer be trusted (CUDA context lost). `side`: whose run lost it,
    "original" or "translation"."""

    def __init__(self, *args, side: str = "translation", has_assert: bool = False):
        super().__init__(*args)
        self.side, self.has_assert = side, has_assert


def fatal_result(e: Fatal) -> dict:
    """The verdict of a launch whose check lost the CUDA context. A CUDA error while the
    original ran is the original's failure (e.g. a failed ct.assert_ ends a cuTile kernel with
    "unspecified launch failure"), not a fault of the translation."""
    cause = e.__cause__ or e
    if getattr(e, "side", None) == "original":
        return dict(verdict="original-failed", fatal=True, findings=[dict(
            kind="original-failed", cuda_error=True, has_assert=e.has_assert,
            detail=f"the original ended with a CUDA error: {type(cause).__name__}: {cause}",
            traceback=_short_tb(cause))])
    return dict(verdict="illegal-address", fatal=True, findings=[dict(
        kind="illegal-address", detail=f"{type(cause).__name__}: {cause}",
        traceback=_short_tb(cause))])


def failed_assertion(e: BaseException) -> str | None:
    """The message of a failed device assertion, when `e` is one: ct.assert_ in the reference
    interpreter, tl.device_assert under Triton's interpreter (an InterpreterError whose cause is
    the AssertionError)."""
    for x in (e, e.__cause__):
        if isinstance(x, AssertionError):
            return str(x)
    return None


def is_cuda_error(exc: BaseException) -> bool:
    text = f"{type(exc).__name__}: {exc}"
    return any(m in text for m in CUDA_ERROR_MARKERS)


def _short_tb(exc: BaseException, limit: int = 3000) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-limit:]


class Worker:
    def __init__(self, backend: str):
        self.backend = backend
        self.tmp = Path(tempfile.mkdtemp(prefix="t2t_worker_",
                                         dir=os.environ.get("T2T_CHECK_TMP") or None))
        import atexit
        import shutil
        atexit.register(shutil.rmtree, self.tmp, True)
        self._translations: dict = {}
        self._originals: dict = {}
        self._counter = 0
        if backend == "gpu":
            import torch
            self.device = "cuda"
            torch.cuda.init()
        else:
            self.device = "cpu"
            from .. import interp
            from .cuda_on_cpu import enable_from_env
            from .interpreter_compat import enable as interpreter_numpy_compat
            interp.allow_private_imports()   # kernels' modules may import cuda.tile privates
            enable_from_env()
            interpreter_numpy_compat()      # Triton 3.6's interpreter under numpy >= 2.3

    # -- loading ------------------------------------------------------------------------------
    def _module_name(self, prefix, path):
        self._counter += 1
        stem = Path(path).stem
        return f"_t2t_{prefix}_{stem}_{self._counter}"

    def _load_file(self, path, modname_hint, prefix, text=None, install=False):
        """Import `path` (or `text` written to a temp file) as a fresh module; relative imports
        resolve in the package of `modname_hint`."""
        pkg = None
        if modname_hint and "." in modname_hint and modname_hint != "__main__":
            pkg = modname_hint.rsplit(".", 1)[0]
        src_path = path
        if text is not None:
            digest = hashlib.sha1(text.encode()).hexdigest()[:10]
            src_path = self.tmp / f"{Path(path).stem}_triton_{digest}.py"
            src_path.write_text(text)
        name = self._module_name(prefix, path)
        full = f"{pkg}.{name}" if pkg else name
        if pkg:
            try:
                importlib.import_module(pkg)
            except Exception:  # noqa: BLE001
                full, pkg = name, None
        spec = importlib.util.spec_from_file_location(full, str(src_path))
        mod = importlib.util.module_from_spec(spec)
        if pkg:
            mod.__package__ = pkg
        sys.modules[full] = mod
        try:
            if install:
                from .. import interp
                with interp.install():
                    spec.loader.exec_module(mod)
            else:
                spec.loader.exec_module(mod)
        except BaseException:
            sys.modules.pop(full, None)
            raise
        return mod, str(src_path)

    def original_module(self, kernel_file, modname):
        key = (kernel_file, os.path.getmtime(kernel_file), modname)
        if key not in self._originals:
            if self.backend == "cpu":
                mod, _ = self._load_file(kernel_file, modname, "orig", install=True)
            else:
                mod, _ = self._load_file(kernel_file, modname, "orig")
            self._originals[key] = mod
        return self._originals[key]

    def translation(self, kernel_file, modname, override):
        """(module, file) of the translation, or raises _TranslateFailed."""
        src = override or kernel_file
        key = (kernel_file, override, os.path.getmtime(src))
        if key not in self._translations:
            if override:
                text = Path(override).read_text()
                # a golden, or an edited copy of one, imports the corpus runtime: found next to
                # the golden, or next to the corpus case of the kernel
                from .corpus import use_runtime
                use_runtime(override, kernel_file)
            else:
                from ..translate import translate_source
                try:
                    res = translate_source(Path(kernel_file).read_text(), str(kernel_file))
                except Exception as e:  # noqa: BLE001 - a translator crash
                    self._translations[key] = _TranslateFailed(
                        f"the translator crashed: {type(e).__name__}: {e}\n{_short_tb(e)}")
                    raise self._translations[key] from None
                if not res.ok:
                    diags = [d.format() for d in res.diagnostics()]
                    self._translations[key] = _TranslateFailed(
                        "\n\n".join(diags) or "the translator produced no output")
                    raise self._translations[key]
                text = res.output
            self._translations[key] = (text, None)
        entry = self._translations[key]
        if isinstance(entry, _TranslateFailed):
            raise entry
        text, mod = entry
        if mod is None:
            # A static-partial translation keeps host code that still imports cuda.tile: on the
            # CPU backend it gets the same stand-ins as the original (no CUDA driver here).
            install = self.backend == "cpu"
            if override:      # load the user's file itself, so tracebacks name it
                mod = self._load_file(override, modname, "triton", install=install)
            else:
                mod = self._load_file(kernel_file, modname, "triton", text=text, install=install)
            self._translations[key] = (text, mod)
        return mod

    # -- one job ---------------------------------------------------------------------------------
    def run_job(self, req: dict, stage) -> dict:
        """Check the launch of the job file `req["path"]`; `stage(name)` is told of each step."""
        return _Job(self, req, stage).run()

    @staticmethod
    def _garbage_calls() -> int:
        """The reference interpreter's count of undetermined values made (0 on the GPU)."""
        interp = sys.modules.get("tile2triton.interp")
        return interp.garbage_calls() if interp is not None else 0

    def fill_variant(self, kernel_file, modname, override, kname):
        """The launcher of the translation whose undetermined loads fill another value
        (undetermined.fill_variant), or None when it has none."""
        from .undetermined import fill_variant
        key = ("fill", kernel_file, override, modname)
        if key not in self._translations:
            src = override or kernel_file
            tkey = (kernel_file, override, os.path.getmtime(src))
            entry = self._translations.get(tkey)
            text = entry[0] if isinstance(entry, tuple) else None
            if override:
                text = Path(override).read_text()
            variant = fill_variant(text) if text else None
            launcher = None
            if variant is not None:
                mod, _ = self._load_file(override or kernel_file, modname, "fill", text=variant)
                from ..parse.names import launcher_name
                launcher = getattr(mod, launcher_name(kname), None)
            self._translations[key] = launcher
        return self._translations[key]

    def _after_failed_assertion(self, e, run_translation, tfile) -> dict:
        """The original failed a device assertion (ct.assert_) on this launch: the translation
        runs on the same arguments, and must fail its assertion too."""
        said = failed_assertion(e)
        try:
            run_translation((), first=True)
        except Exception as te:  # noqa: BLE001
            if is_cuda_error(te):
                raise Fatal(te) from te
            theirs = failed_assertion(te)
            if theirs is None:
                return self._translation_failure(te, tfile)
            return dict(verdict="both-failed-assert", findings=[dict(
                kind="both-failed-assert", detail=(
                    f"both sides failed a device assertion on this launch: the original "
                    f"({said[:300] or 'no message'}) and the translation "
                    f"({theirs[:300] or 'no message'}); nothing else is compared"),
                original=said, translation=theirs)])
        return dict(verdict="drift", findings=[dict(
            kind="drift", detail=f"the original failed a device assertion ({said[:300]}), the "
            "translation ran through without failing one")])

    def _translation_failure(self, e, tfile) -> dict:
        from .explain import compile_error_from_exception, interpreter_compile_error
        if _out_of_memory(e):
            # the translation's run needs room beside the original's arrays and the checker's
            # copies: running out says nothing about the translation
            return result_of_exception(e)
        if is_cuda_error(e):
            return dict(verdict="illegal-address", fatal=True, findings=[dict(
                kind="illegal-address", detail=f"{type(e).__name__}: {e}",
                traceback=_short_tb(e))])
        stderr = getattr(e, "_t2t_stderr", None)
        if type(e).__name__ in ("CompilationError", "CompileTimeAssertionFailure") or (
                stderr and "error:" in stderr):
            rec = compile_error_from_exception(e, tfile, stderr)
            return dict(verdict="compile-error", findings=[rec])
        rec = interpreter_compile_error(e, tfile)
        if rec is not None:
            return dict(verdict="compile-error", findings=[rec])
        return dict(verdict="error", findings=[dict(
            kind="error", detail=f"the translation raised {type(e).__name__}: {e}",
            traceback=_short_tb(e))])

    @staticmethod
    def _array_names(okern, snap) -> list[str]:
        import inspect
        func = getattr(okern, "_function", None) or getattr(okern, "_pyfunc", None) or okern
        try:
            params = list(inspect.signature(func).parameters)
        except (TypeError, ValueError):
            params = []
        names = []
        for t in snap.tensors:
            path = t.path          # "args[2]" or "args[1][0]"
            rest = path[len("args"):]
            name = path
            if rest.startswith("["):
                close = rest.index("]")
                idx = rest[1:close]
                if idx.isdigit() and int(idx) < len(params):
                    name = params[int(idx)] + rest[close + 1:]
            names.append(name)
        return names


def _tolerances(overrides, tfile, backend, values=()) -> dict | None:
    """The launch's tolerance overrides; a translation with a tf32 dot gets the tf32 allowance
    for float32 arrays. On the CPU, Triton's interpreter computes that dot in fp32; on the GPU,
    Triton's tf32 dot drops the operands' low 13 bits where cuTile rounds them to nearest
    (GPU run 15: an 8x2x4 tf32 mma 1.2e-3 off cuTile, relative). Either way each side is within
    tf32's precision of the exact product, not within fp32's. A translation with a dot launched
    with fp8 arrays (`values`: the launch's arrays) gets the fp8 product allowance likewise:
    cuTile's fp8 mma keeps fewer bits than fp32 while summing (verdicts.FP8_PRODUCT_ALLOWANCE)."""
    if not tfile:
        return overrides
    try:
        text = Path(tfile).read_text()
    except OSError:
        return overrides
    from .verdicts import FP8_PRODUCT_ALLOWANCE, TF32_ALLOWANCE
    if _uses_tf32(text):
        allowance = TF32_ALLOWANCE
    elif _has_dot(text) and _any_fp8(values):
        allowance = FP8_PRODUCT_ALLOWANCE
    else:
        return overrides
    out = dict(overrides or {})
    out["torch.float32"] = dict(allowance, **out.get("torch.float32", {}))
    return out


def _has_dot(text: str) -> bool:
    """Whether translated code calls a matrix product (tl.dot, tl.dot_scaled): a name token
    `dot` or `dot_scaled` after `tl.`, so that comments and docstrings do not count."""
    import io
    import tokenize
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type in (tokenize.NAME, tokenize.OP)]
    except (tokenize.TokenError, SyntaxError):
        return "tl.dot(" in text or "tl.dot_scaled(" in text
    return any(a.string == "tl" and b.string == "." and c.string in ("dot", "dot_scaled")
               and d.string == "(" for a, b, c, d in zip(toks, toks[1:], toks[2:], toks[3:]))


def _any_fp8(values) -> bool:
    """Whether any array among `values` (tensors, or lists of them) has an fp8 dtype."""
    from .verdicts import FP8
    stack = list(values or ())
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif getattr(v, "dtype", None) in FP8:
            return True
    return False


def _uses_tf32(text: str) -> bool:
    """Whether translated code names tf32 as a product's precision: `input_precision="tf32"`,
    and also the precision argument of the dot helpers, `_dot_any_size(x, y, acc, "tf32")` or
    `"tf32" if A_ptr.dtype.element_ty == tl.float32 else "ieee"` (upstream's matmul idiom,
    whose fp32 launches run 35 reported as drift for want of this allowance). A string token
    `"tf32"`, so that comments and docstrings do not count."""
    import io
    import tokenize
    try:
        return any(tok.type == tokenize.STRING and tok.string in ('"tf32"', "'tf32'")
                   for tok in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return 'input_precision="tf32"' in text or "input_precision='tf32'" in text


def _debug_kernel(tfile) -> bool:
    """The translation was emitted with @triton.jit(debug=True) (it has device assertions)."""
    import re
    try:
        return re.search(r"@triton\.jit\([^)]*\bdebug=True", Path(tfile).read_text()) is not None
    except (OSError, TypeError):
        return False


def _interpreter_without_overflow_checks():
    """Triton's interpreter checks every integer +, - and * for overflow (in int64, then a
    tl.device_assert), and its device assertions are off (debug=False): the checks compute and
    throw away, and dominate an integer reduction's run (test_reduction.py's `prod` over int8:
    36 s of a 36 s check). Off, with the same results; a debug=True kernel gets both back
    (_interpreter_debug), as on the GPU."""
    try:
        import dataclasses

        from triton.runtime import interpreter as I
    except Exception:  # noqa: BLE001
        return
    opts = I.interpreter_builder.options
    if getattr(opts, "debug", False) is False and getattr(opts, "sanitize_overflow", False):
        I.interpreter_builder.options = dataclasses.replace(opts, sanitize_overflow=False)


class _interpreter_debug:
    """Triton's interpreter ignores @triton.jit(debug=True): its one builder keeps debug off,
    so tl.device_assert never fires on the CPU. While active, it is on, as the GPU does for
    such a kernel."""

    def __init__(self, on: bool):
        self.on, self.old = on, None

    def __enter__(self):
        if self.on:
            import dataclasses

            from triton.runtime import interpreter as I
            self.old = I.interpreter_builder.options
            I.interpreter_builder.options = dataclasses.replace(self.old, debug=True,
                                                                sanitize_overflow=True)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            from triton.runtime import interpreter as I
            I.interpreter_builder.options = self.old
        return False


def _signed_of_unsigned() -> dict:
    import torch
    return {getattr(torch, f"uint{n}"): getattr(torch, f"int{n}") for n in (16, 32, 64)
            if hasattr(torch, f"uint{n}")}


_SIGNED_OF_UNSIGNED = _signed_of_unsigned()


def _canaries(values, indices, seed, poison_share: float = 0.0) -> dict:
    """Random finite values for trial T2 (in narrow dtypes a kernel's result equals one now and
    then, which verdicts.py allows for); with
    `poison_share`, that share of the elements (bool arrays excepted) holds the poison instead
    (the combined trial, verdicts.py)."""
    import torch

    from .snapshot import poison_value
    gen = torch.Generator().manual_seed(7919 + seed)
    out = {}
    for i in indices:
        v = values[i]
        if v.dtype.is_floating_point:
            scale = min(1000.0, float(torch.finfo(v.dtype).max) / 8)
            c = (torch.rand(v.shape, generator=gen, dtype=torch.float64) * 2 - 1) * scale + 0.25
            c = c.to(v.dtype)
        elif v.dtype == torch.bool:
            c = torch.rand(v.shape, generator=gen) < 0.5
        elif v.dtype.is_complex:
            c = torch.randn(v.shape, generator=gen, dtype=v.dtype)
        else:
            info = torch.iinfo(v.dtype)
            lo, hi = max(info.min + 1, -2**30), min(info.max, 2**30)
            c = torch.randint(lo, hi, v.shape, generator=gen).to(v.dtype)
        if poison_share and v.dtype != torch.bool and v.numel():
            lanes = torch.rand(v.shape, generator=gen) < poison_share
            p = torch.full_like(c, poison_value(v.dtype))
            signed = _SIGNED_OF_UNSIGNED.get(c.dtype)
            if signed is not None:      # torch.where has no CPU kernel for uint16/32/64
                c = torch.where(lanes, p.view(signed), c.view(signed)).view(c.dtype)
            else:
                c = torch.where(lanes, p, c)
        out[i] = c
    return out


def _dedupe(findings):
    seen, out = set(), []
    for f in findings:
        key = (f["tensor"], f["bytes_before"], f["bytes_after"], f["bytes_in_gaps"],
               f.get("digest"))
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


class _TranslateFailed(Exception):
    pass


class _OriginalFailed(Exception):
    """The original raised on poisoned or canary-filled outputs (trials T1, T2)."""


class _Job:
    """One launch checked (Worker.run_job), as the steps `run` takes in order: load the job,
    import the original, translate, run both sides (trials T0, race, T1/T2), compare; each step
    is reported to the supervisor (`stage`) and timed. The steps share the launch's state as
    attributes; a step that ends the check returns its result (else None)."""

    def __init__(self, worker: Worker, req: dict, stage):
        self.w, self.req, self.stage = worker, req, stage
        self.backend, self.device = worker.backend, worker.device
        self.timings = {}
        self._t_last = [time.perf_counter(), None]

    def step(self, name):
        now = time.perf_counter()
        if self._t_last[1] is not None:
            self.timings[self._t_last[1]] = round(now - self._t_last[0], 4)
        self._t_last[0], self._t_last[1] = now, name
        self.stage(name)

    def done(self, result):
        self.step(None)
        result["timings"] = self.timings
        return result

    def run(self) -> dict:
        self.step("load")
        self.load()
        self.step("load-original")
        ended = self.load_original()
        if ended is not None:
            return self.done(ended)
        self.names = self.w._array_names(self.okern, self.snap)
        self.step("translate")
        ended = self.load_translation()
        if ended is not None:
            return self.done(ended)
        self.result_base = dict(translation_file=self.tfile)
        self.values = [t.values for t in self.snap.tensors]
        ended = self.trials()
        if ended is not None:
            return self.done(ended)
        self.step("compare")
        res = self.compare()
        res.update(self.result_base)
        return self.done(res)

    # -- before running ----------------------------------------------------------------------
    def load(self):
        from . import snapshot as S
        meta, self.snap = S.load(self.req["path"])
        for p in reversed(meta.get("sys_path") or []):
            if p not in sys.path:
                sys.path.insert(0, p)
        self.meta = meta
        self.kernel_file, self.kname, self.modname = meta["kernel_file"], meta["kernel"], \
            meta.get("module")
        self.grid = tuple(meta["grid"])
        self.override = (self.req.get("overrides") or {}).get(self.kernel_file) or \
            meta.get("translation")
        self.seed = int(meta.get("seed") or 0) * 1009 + int(meta.get("launch_index") or 0)
        self.only = self.req.get("only")

    def load_original(self) -> dict | None:
        kernel_file, kname = self.kernel_file, self.kname
        try:
            omod = self.w.original_module(kernel_file, self.modname)
            self.okern = getattr(omod, kname)
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "InterpreterUnsupported":
                return dict(verdict="skipped", findings=[dict(
                    kind="skipped", detail=f"the reference interpreter does not support "
                    f"this kernel ({e}); check it on the GPU backend")])
            if self.meta.get("original_extracted"):
                # our rebuild of a nested/factory/string-built kernel failed, not the original
                return dict(verdict="not-checked", findings=[dict(
                    kind="not-checked", detail=f"could not rebuild kernel `{kname}` from its "
                    f"extracted source: {type(e).__name__}: {e}", traceback=_short_tb(e))])
            return dict(verdict="original-failed", findings=[dict(
                kind="original-failed", detail=f"could not import kernel `{kname}` from "
                f"{kernel_file}: {type(e).__name__}: {e}", traceback=_short_tb(e))])
        return None

    def load_translation(self) -> dict | None:
        """The translation's module and launcher (`self.launcher`)."""
        kernel_file = self.kernel_file
        try:
            tmod, self.tfile = self.w.translation(kernel_file, self.modname, self.override)
        except _TranslateFailed as e:
            return dict(verdict="translate-error", findings=[dict(
                kind="translate-error", detail=f"{kernel_file} did not translate",
                diagnostics=str(e))])
        except SyntaxError as e:
            return dict(verdict="compile-error", findings=[dict(
                kind="compile-error", triton_message=f"SyntaxError: {e}",
                plain=f"the translation is not valid Python (line {e.lineno})")])
        except Exception as e:  # noqa: BLE001
            return dict(verdict="error", findings=[dict(
                kind="error", detail=f"importing the translation failed: "
                f"{type(e).__name__}: {e}", traceback=_short_tb(e))])
        from ..parse.names import launcher_name
        lname = self.meta.get("launcher") or launcher_name(self.kname)
        launcher = getattr(tmod, lname, None)
        if launcher is None:
            return dict(verdict="translate-error", findings=[dict(
                kind="translate-error",
                detail=f"the translation has no launcher `{lname}`")])
        if self.meta.get("launcher_kwargs"):
            # a kernel of a host function: its launcher takes that function's values
            import functools
            from .snapshot import host_values
            launcher = functools.partial(launcher, **host_values(self.meta["launcher_kwargs"]))
        self.launcher = launcher
        return None

    # -- one run of each side ----------------------------------------------------------------
    def run_original(self, poison, fill=None, useed=None):
        import torch

        from . import snapshot as S
        device = self.device
        pl = S.Placement(self.snap, device=device, poison=poison, values=fill)
        if self.backend == "cpu":
            from .. import interp
            interp.seed_undetermined(self.seed if useed is None else useed)
            interp.run_kernel(self.okern, self.grid, pl.args)
        else:
            import cuda.tile as ct
            ct.launch(torch.cuda.current_stream(), self.grid, self.okern, pl.args)
            torch.cuda.synchronize()
        out = pl.results(on_device=device != "cpu"), pl.band_writes()
        pl.free()
        return out

    def run_translation(self, poison, first=False, fill=None, launch=None):
        with _interpreter_debug(self.backend == "cpu" and _debug_kernel(self.tfile)):
            return self._run_translation(poison, first, fill, launch)

    def _run_translation(self, poison, first=False, fill=None, launch=None):
        import torch

        from . import snapshot as S
        device, grid, launcher = self.device, self.grid, self.launcher
        pl = S.Placement(self.snap, device=device, poison=poison, values=fill)
        if launch is not None:
            launch(None, grid, *pl.args)
            if self.backend == "gpu":
                torch.cuda.synchronize()
            out = pl.results(on_device=device != "cpu"), pl.band_writes()
            pl.free()
            return out
        from .compile_probe import capture_fd2
        try:
            if self.backend == "gpu" and first:
                with capture_fd2() as cap:
                    try:
                        launcher(None, grid, *pl.args)
                        torch.cuda.synchronize()
                    except Exception as e:  # noqa: BLE001
                        e._t2t_stderr = None
                        raise
                sys.stderr.write(cap["text"])
            else:
                launcher(None, grid, *pl.args)
                if self.backend == "gpu":
                    torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            if self.backend == "gpu" and first:
                e._t2t_stderr = cap["text"]
            raise
        out = pl.results(on_device=device != "cpu"), pl.band_writes()
        pl.free()
        return out

    def original_again(self, poison, fill=None, useed=None):
        try:
            return self.run_original(poison, fill, useed)
        except Exception as e:  # noqa: BLE001
            if is_cuda_error(e):
                raise Fatal(e, side="original", has_assert=_debug_kernel(self.tfile)) from e
            raise _OriginalFailed(f"{type(e).__name__}: {e}") from e

    # -- the trials (verdicts.py) --------------------------------------------------------------
    def trials(self) -> dict | None:
        """T0 (both sides on the launch's arguments), the race run, and T1/T2 (outputs poisoned,
        canary-filled): fills O, R, R2, PO, PR, CO, CR, canary, poisoned and the out-of-bounds
        writes of each side."""
        self.R2 = self.PO = self.PR = self.CO = self.CR = self.canary = None
        self.oob_t, self.oob_o = [], []
        self.poisoned = set()
        self.made_undetermined = False
        try:
            ended = self.first_runs()
            if ended is not None:
                return ended
            self.poisoned_runs()
        except Fatal:
            raise
        except _OriginalFailed as e:
            return dict(self.result_base, verdict="original-failed", findings=[dict(
                kind="original-failed", detail=f"the original raised {e} on poisoned or "
                "canary-filled outputs (it reads them)", traceback=_short_tb(e.__cause__))])
        except Exception as e:  # noqa: BLE001
            if is_cuda_error(e):
                raise Fatal(e) from e
            return dict(self.result_base, **self.w._translation_failure(e, self.tfile))
        return None

    def first_runs(self) -> dict | None:
        """T0 of the original and of the translation, then the translation again (race)."""
        result_base, tfile = self.result_base, self.tfile
        if self.only != "translation":
            self.step("original")
            try:
                garbage0 = self.w._garbage_calls()
                self.O, ob = self.run_original(())
                self.made_undetermined = self.w._garbage_calls() != garbage0
            except Exception as e:  # noqa: BLE001
                if is_cuda_error(e):
                    raise Fatal(e, side="original", has_assert=_debug_kernel(tfile)) from e
                if type(e).__name__ == "InterpreterUnsupported":
                    return dict(result_base, verdict="skipped", findings=[dict(
                        kind="skipped", detail=f"the reference interpreter does not "
                        f"support this kernel ({e}); check it on the GPU backend")])
                if failed_assertion(e) is not None:
                    return dict(result_base, **self.w._after_failed_assertion(
                        e, self.run_translation, tfile))
                return dict(result_base, verdict="original-failed", findings=[dict(
                    kind="original-failed",
                    detail=f"the original raised {type(e).__name__}: {e}",
                    traceback=_short_tb(e))])
            self.oob_o += ob
        self.step("translation")
        try:
            self.R, ob = self.run_translation((), first=True)
        except Exception as e:  # noqa: BLE001
            return dict(result_base, **self.w._translation_failure(e, tfile))
        self.oob_t += ob
        if self.only == "translation":
            return dict(result_base, verdict="pass", findings=[], notes=[
                "one-shot run of the translation only"])
        if self.req.get("race", True):
            self.step("translation-race")
            self.R2, ob = self.run_translation(())
            self.oob_t += ob
        return None

    def poisoned_runs(self):
        """T1 and T2 on the arrays the original wrote (and those the case declares outputs)."""
        import torch

        from . import snapshot as S
        O, values, meta = self.O, self.values, self.meta
        poisoned = {i for i in range(len(values))
                    if not bool(S.same_bits(O[i], values[i].to(O[i].device)).all())}
        poisoned |= set(meta.get("declared_outputs") or [])
        self.poisoned = poisoned
        if not (self.req.get("poison", True) and poisoned):
            return
        # Arrays a corpus case declares as outputs are the ones whose old contents must
        # not matter; other written arrays (counters, lock or scratch state a kernel
        # reads back) legitimately steer the result, so they keep their values in T2.
        declared = set(meta.get("declared_outputs") or [])
        if not declared:
            # One trial does T1's and T2's work: a quarter of the canary's elements
            # are the poison (verdicts.py, "combined trial"). Saves a run of each side.
            canary = _canaries(values, poisoned, self.seed, poison_share=0.25)
        else:
            if all(bool(S.is_poison(values[i]).all()) for i in poisoned) and \
                    all(values[i].dtype != torch.bool for i in poisoned):
                self.PO, self.PR = O, self.R         # T0 already had them poisoned: T1 is T0
            else:
                self.step("original-poisoned")
                self.PO, ob = self.original_again(poisoned)
                self.oob_o += ob
                self.step("translation-poisoned")
                self.PR, ob = self.run_translation(poisoned)
                self.oob_t += ob
            canary = _canaries(values, poisoned & declared, self.seed)
        self.canary = canary
        self.step("original-canary")
        self.CO, ob = self.original_again((), fill=canary)
        self.oob_o += ob
        self.step("translation-canary")
        self.CR, ob = self.run_translation((), fill=canary)
        self.oob_t += ob

    # -- the verdict -----------------------------------------------------------------------------
    def compare(self) -> dict:
        from .verdicts import classify
        for f in self.oob_t + self.oob_o:
            f["name"] = self.names[f["tensor"]]
        self.oob_t, self.oob_o = _dedupe(self.oob_t), _dedupe(self.oob_o)
        self.tols = _tolerances(self.meta.get("tolerance"), self.tfile, self.backend,
                                self.values)
        res = classify(self.names, self.values, self.O, self.R, self.R2, self.PO, self.PR,
                       self.poisoned, self.tols, self.oob_t, self.oob_o,
                       CO=self.CO, CR=self.CR, canary=self.canary)
        if any(f.get("kind") in ("drift", "unwritten", "race") for f in res["findings"]):
            res = self.without_undetermined(res)
        return res

    def without_undetermined(self, res: dict) -> dict:
        """Do the differing elements hold values cuTile leaves undefined (undetermined
        padding)? One more run tells (undetermined.py); they are then not compared."""
        from . import undetermined as U
        probe = U.probe_kind(self.backend)
        self.step("undetermined")
        try:
            masks = self.undetermined_masks(probe)
        except Exception as e:  # noqa: BLE001
            if is_cuda_error(e):
                raise Fatal(e) from e
            res.setdefault("notes", []).append(
                f"the run that looks for undetermined elements failed "
                f"({type(e).__name__}: {e}); every element was compared")
            masks = None
        if masks is not None and any(m is not None for m in masks):
            self.step("compare")
            res = self.compare_determined(res, masks, probe)
        return res

    def undetermined_masks(self, probe):
        """Per array, the elements that changed when the undetermined values did (or None)."""
        from . import undetermined as U
        if probe == "original" and self.backend == "cpu" and self.made_undetermined:
            OU, _ = self.original_again((), useed=self.seed + 104729)
            return U.changed_elements(self.O, OU)
        if probe == "translation":
            variant = self.w.fill_variant(self.kernel_file, self.modname, self.override,
                                          self.kname)
            if variant is not None:
                RU, _ = self.run_translation((), launch=variant)
                return U.changed_elements(self.R, RU)
        return None

    def compare_determined(self, res: dict, masks, probe) -> dict:
        """The verdict again, the undetermined elements (`masks`) left out."""
        from . import undetermined as U
        from .verdicts import classify
        O, R, PO, CO = self.O, self.R, self.PO, self.CO
        notes = list(res.get("notes") or [])
        res = classify(self.names, self.values, O, U.exclude(masks, O, R),
                       U.exclude(masks, O, self.R2), PO, U.exclude(masks, PO, self.PR),
                       self.poisoned, self.tols, self.oob_t, self.oob_o, CO=CO,
                       CR=U.exclude(masks, CO, self.CR), canary=self.canary)
        counts = {}
        for info, m in zip(res["arrays"], masks):
            if m is not None:
                info["undetermined"] = counts[info["name"]] = int(m.sum())
        res["undetermined"] = dict(probe=probe, elements=counts)
        how = "the reference interpreter ran the original again with other " \
            "undetermined values" if probe == "original" else "the translation ran " \
            "again with its undetermined loads filling another value"
        res["notes"] = notes + [
            f"{n} element(s) of `{name}` not compared: their value is undetermined "
            f"(cuTile's PaddingMode.UNDETERMINED, the default padding, or another "
            f"undefined result); they changed when {how}"
            for name, n in counts.items()]
        return res


def serve(backend: str) -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                      # prints of checked code go to the log, not the protocol
    sys.stdout = sys.stderr

    def send(obj):
        proto.write(json.dumps(obj, default=str) + "\n")
        proto.flush()

    _prepare(backend)
    worker = Worker(backend)
    send({"type": "ready", "pid": os.getpid()})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        if req.get("type") == "exit":
            break
        try:
            result = worker.run_job(req, lambda s: send({"type": "stage", "stage": s}))
        except Fatal as e:
            result = fatal_result(e)
        except BaseException as e:  # noqa: BLE001 - report, keep serving
            result = result_of_exception(e)
        send(dict(type="result", **result))
        if result.get("fatal"):
            return 3
    return 0


def result_of_exception(e: BaseException) -> dict:
    """The verdict of a launch whose check raised `e` (not a Fatal one)."""
    if _out_of_memory(e):
        # checking needs copies of the launch's arrays beside the test's own: a launch whose
        # arrays fill the GPU cannot be judged (GPU run 15: a 32 GiB copy)
        _free_cached_memory()
        return dict(verdict="not-checked", findings=[dict(
            kind="not-checked", detail="not enough GPU memory for the checker's copies of the "
            f"launch's arrays ({str(e).splitlines()[0][:160]})")])
    if is_cuda_error(e):
        return dict(verdict="illegal-address", fatal=True, findings=[dict(
            kind="illegal-address", detail=f"{type(e).__name__}: {e}")])
    return dict(verdict="error", findings=[dict(
        kind="error", detail=f"internal error in the checker: {type(e).__name__}: {e}",
        traceback=_short_tb(e))])


def _out_of_memory(e: BaseException) -> bool:
    oom = getattr(sys.modules.get("torch"), "OutOfMemoryError", None)
    return oom is not None and isinstance(e, oom)


def _free_cached_memory():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


def _prepare(backend):
    if backend == "gpu":
        os.environ.pop("TRITON_INTERPRET", None)
    if backend == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
        import torch
        torch.set_num_threads(int(os.environ.get("T2T_WORKER_THREADS", "1")))
        _interpreter_without_overflow_checks()
        from .interpreter_compat import enable_all
        enable_all()
    import warnings
    warnings.filterwarnings("ignore", category=RuntimeWarning)


def one_shot(backend, job, result_path, only) -> int:
    _prepare(backend)
    worker = Worker(backend)
    req = dict(type="job", path=job, only=only)
    try:
        res = worker.run_job(req, lambda s: print(f"[t2t worker] stage {s}", file=sys.stderr))
    except Fatal as e:
        res = fatal_result(e)
    Path(result_path).write_text(json.dumps(res, default=str))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--one-shot", metavar="JOB")
    ap.add_argument("--result", metavar="OUT")
    ap.add_argument("--only", choices=["translation"])
    a = ap.parse_args(argv)
    if a.one_shot:
        return one_shot(a.backend, a.one_shot, a.result, a.only)
    return serve(a.backend)


if __name__ == "__main__":
    sys.exit(main())

