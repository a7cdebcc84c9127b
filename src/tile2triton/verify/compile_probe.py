"""Compile a translation's kernels with Triton's real front end, on a machine without a GPU.

Under TRITON_INTERPRET=1 a kernel is run as Python and never compiled, so mistakes the compiler
rejects (an atomic whose pointer and value shapes disagree, a tl.dot on tiles smaller than 16,
...) may run silently or fail with a numpy message. The probe imports the translation a second
time with the interpreter off, activates a stand-in driver that names an sm_90 target, and
replaces JITFunction's compile step with Triton's front end (Python AST to TTIR, which includes
the MLIR verifier). The launcher is called with the real arguments, so every kernel is compiled
for exactly the specialization the launch would use; nothing is executed.
"""
from __future__ import annotations

import contextlib
import os
import tempfile


class _ProbeDriver:
    def __init__(self, target):
        self._target = target

    def get_current_target(self):
        return self._target

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def is_active(self):
        return True

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")


@contextlib.contextmanager
def capture_fd2():
    """Capture what C++ code writes to file descriptor 2 (MLIR diagnostics)."""
    box = {"text": ""}
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        import sys
        try:
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield box
        finally:
            try:
                sys.stderr.flush()
            except Exception:  # noqa: BLE001
                pass
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            box["text"] = tmp.read().decode("utf-8", "replace")


@contextlib.contextmanager
def interpreter_off():
    """While active, @triton.jit makes compilable JITFunctions even under TRITON_INTERPRET=1,
    and triton.language's own @jit functions (tl.cdiv, tl.sigmoid, tensor.sum, ...) are
    compilable too (_compilable_language)."""
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "0"
    swapped = _compilable_language()
    try:
        yield
    finally:
        for space, name, value in swapped:
            setattr(space, name, value)
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old


_COMPILABLE: dict = {}   # id(InterpretedFunction) -> (it, its JITFunction)


def _compilable_language() -> list:
    """Where triton.language was imported under TRITON_INTERPRET=1, its @jit functions are
    interpreted functions, and a kernel compiled in this process that calls one (tl.cdiv in a
    loop bound) ran it through the interpreter on compiler values, which failed ("'ir.value'
    object has no attribute 'dtype'") whenever Triton's cache did not already hold the kernel.
    Each is replaced, while compiling, by a JITFunction of the same function and options;
    returns (namespace, name, interpreted function) to put back."""
    try:
        import triton.language as tl
        import triton.language.standard as standard
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    swapped = []
    for space in (tl, standard, tl.core.tensor):
        for name, value in list(vars(space).items()):
            if isinstance(value, InterpretedFunction):
                entry = _COMPILABLE.get(id(value))
                if entry is None or entry[0] is not value:
                    entry = _COMPILABLE[id(value)] = (value, JITFunction(value.fn,
                                                                         **value.kwargs))
                swapped.append((space, name, value))
                setattr(space, name, entry[1])
    return swapped


class CompileProbe:
    """Front-end compile of every kernel a launcher call launches."""

    def __init__(self, arch: int = 90, keep_ir: bool = False):
        from triton.backends.compiler import GPUTarget
        self.target = GPUTarget("cuda", arch, 32)
        self._done: dict = {}
        self.keep_ir = keep_ir  # records then carry the TTIR text (tests inspect it)

    def run(self, launcher, args) -> list[dict]:
        """Call `launcher(*args)` with compilation replaced by the front end. Returns one
        record per compiled kernel: {kernel, ok, message, stderr}."""
        from triton.runtime.driver import driver
        from triton.runtime.jit import JITFunction

        records: list[dict] = []
        probe = self

        def _do_compile(self_fn, key, signature, device, constexprs, options, attrs, warmup):
            cache_key = (id(self_fn), repr(key))
            if cache_key not in probe._done:
                probe._done[cache_key] = probe._frontend(self_fn, signature, constexprs, attrs,
                                                         options)
            records.append(probe._done[cache_key])
            return None           # nothing is launched

        saved_compile = JITFunction._do_compile
        JITFunction._do_compile = _do_compile
        driver.set_active(_ProbeDriver(self.target))
        try:
            launcher(*args)
        finally:
            JITFunction._do_compile = saved_compile
            driver.reset_active() if driver._default is not None else setattr(
                driver, "_active", None)
        return records

    def _frontend(self, fn, signature, constexprs, attrs, options) -> dict:
        from triton._C.libtriton import ir
        from triton.compiler.compiler import ASTSource, make_backend

        backend = make_backend(self.target)
        src = ASTSource(fn, signature, constexprs, attrs)
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        codegen_fns = backend.get_codegen_implementation(options)
        module_map = backend.get_module_map()
        name = getattr(fn, "_fn_name", getattr(fn, "__name__", "?"))
        with capture_fd2() as cap:
            try:
                module = src.make_ir(self.target, options, codegen_fns, module_map, context)
                err = None
            except Exception as e:  # noqa: BLE001 - the compile error is the result
                err = e
        if err is None:
            return dict(kernel=name, ok=True, **({"ir": str(module)} if self.keep_ir else {}))
        from .explain import compile_error_from_exception, compile_error_text
        try:
            tfile = fn.fn.__code__.co_filename
        except AttributeError:
            tfile = None
        finding = compile_error_from_exception(err, tfile, cap["text"])
        return dict(kernel=name, ok=False, message=compile_error_text(err),
                    stderr=_errors_first(cap["text"]), finding=finding)


def _errors_first(text: str) -> str:
    """MLIR's error lines, then the tail of what was printed: a module dump (which names the
    source file on every #loc line) can follow the errors and push them out of the tail."""
    errors = [ln for ln in text.splitlines() if ": error: " in ln]
    return "\n".join(errors[:20] + [text[-20000:]])


# -- the probe runs in its own process --------------------------------------------------------
# Under TRITON_INTERPRET=1 triton.language's own jit functions (the combine functions of tl.max,
# tl.sum, ...) are built as interpreted functions, which the compiler cannot use, and the other
# way round. So the interpreter (in the worker) and the probe (here) never share a process.

def serve() -> int:
    """Answer probe requests on stdin: {"job": path, "override": file or null}; reply
    {"records": [...]} (an empty list when there is nothing to compile, e.g. the kernel does not
    translate: the worker reports that) or {"error": text}, on the original stdout."""
    import json
    import sys
    import tempfile
    import warnings
    from pathlib import Path

    os.environ.pop("TRITON_INTERPRET", None)
    warnings.filterwarnings("ignore")
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    probe = CompileProbe()
    tmp = Path(tempfile.mkdtemp(prefix="t2t_probe_", dir=os.environ.get("T2T_CHECK_TMP") or None))
    import atexit
    import shutil
    atexit.register(shutil.rmtree, tmp, True)
    modules: dict = {}
    proto.write(json.dumps({"type": "ready"}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            reply = _probe_reply(req, probe, modules, tmp)
        except Exception as e:  # noqa: BLE001 - launcher-level failures show in the real run
            reply = {"error": f"{type(e).__name__}: {e}"}
        proto.write(json.dumps(reply, default=str) + "\n")
        proto.flush()
    return 0


def _probe_reply(req: dict, probe: CompileProbe, modules: dict, tmp) -> dict:
    """The reply to one probe request: the job's launch compiled through its launcher."""
    import sys

    from . import snapshot as S
    meta, snap = S.load(req["job"])
    for p in reversed(meta.get("sys_path") or []):
        if p not in sys.path:
            sys.path.insert(0, p)
    mod = _probe_module(req, meta, modules, tmp)
    from ..parse.names import launcher_name
    launcher = getattr(mod, meta.get("launcher") or launcher_name(meta["kernel"]),
                       None) if mod else None
    if launcher is not None and meta.get("launcher_kwargs"):
        import functools
        launcher = functools.partial(launcher, **S.host_values(meta["launcher_kwargs"]))
    if launcher is None:
        return {"records": []}
    pl = S.Placement(snap, device="cpu")
    try:
        records = probe.run(launcher, (None, tuple(meta["grid"])) + tuple(pl.args))
    finally:
        pl.free()
    return {"records": records}


def _probe_module(req: dict, meta: dict, modules: dict, tmp):
    """The translation's module for the job (cached in `modules`), or None when the kernel's
    file does not translate or its translation does not import (the worker reports those)."""
    import hashlib
    import importlib.util
    import sys
    from pathlib import Path

    kfile = meta["kernel_file"]
    src = req.get("override") or kfile
    key = (kfile, src, os.path.getmtime(src))
    if key not in modules:
        if req.get("override"):
            text = Path(src).read_text()
        else:
            from ..translate import translate_source
            try:
                res = translate_source(Path(kfile).read_text(), kfile)
                text = res.output if res.ok else None
            except Exception:  # noqa: BLE001 - the worker reports translator failures
                text = None
        mod = None
        if text is not None:
            if req.get("override"):
                tfile = Path(src)          # errors then name the user's own file
            else:
                digest = hashlib.sha1(text.encode()).hexdigest()[:10]
                tfile = tmp / f"{Path(kfile).stem}_triton_{digest}.py"
                tfile.write_text(text)
            hint = meta.get("module") or ""
            pkg = hint.rsplit(".", 1)[0] if "." in hint and hint != "__main__" else None
            name = f"_t2t_probe_{len(modules)}"
            full = f"{pkg}.{name}" if pkg else name
            spec = importlib.util.spec_from_file_location(full, str(tfile))
            mod = importlib.util.module_from_spec(spec)
            if pkg:
                mod.__package__ = pkg
            sys.modules[full] = mod
            try:
                spec.loader.exec_module(mod)
            except Exception:  # noqa: BLE001 - the worker reports import failures
                mod = None
        modules[key] = mod
    return modules[key]


def findings_from(reply: dict) -> list:
    """compile-error findings from a probe reply."""
    from .explain import compile_error_record, mlir_diagnostics
    out = []
    for r in reply.get("records") or []:
        if not r["ok"]:
            where = (f"kernel {r['kernel'].rsplit('.', 1)[-1]} (compiled for sm_90 by Triton's "
                     "front end)")
            if r.get("finding"):
                out.append(dict(r["finding"], where=where))
                continue
            out.append(compile_error_record(
                r["message"], mlir_diagnostics(r.get("stderr", "")), where=where))
    return out


if __name__ == "__main__":
    import sys
    sys.exit(serve())
