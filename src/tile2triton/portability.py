"""Compile translations for GPUs this machine does not have: NVIDIA sm_75, sm_80, sm_90 and AMD
gfx90a, gfx942 (`python -m tile2triton.portability`, docs/runtime.md).

A translation's host launcher runs on CPU tensors with Triton's driver replaced by a stand-in
naming the target, and JITFunction's compile step replaced by a full
`triton.compile(ASTSource(...), target=GPUTarget(...))` (to a cubin or an hsaco): so each kernel
is compiled for exactly the specialization, the options and the launch paths (TMA descriptors or
pointer loads, ptxas options) the launcher chooses for that target, and nothing runs. A kernel
is compiled once per target and specialization, however many launches reach it.

Triton's interpreter and its compiler never share a process (under TRITON_INTERPRET=1
triton.language's own jit functions are interpreted ones, which the compiler cannot use), so the
command line is the way in: it runs in a process of its own, without the interpreter.

    python -m tile2triton.portability [CASE ...] [--targets sm_75,gfx942] [--json F]
    python -m tile2triton.portability --no-corpus --launches DIR   # what `tile2triton run
                                                                   # --record DIR` recorded
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

# name -> (Triton backend, architecture, warp size)
TARGETS = {
    "sm_75": ("cuda", 75, 32),
    "sm_80": ("cuda", 80, 32),
    "sm_90": ("cuda", 90, 32),
    "gfx90a": ("hip", "gfx90a", 64),
    "gfx942": ("hip", "gfx942", 64),
}
# What each target compiles to
BINARY = {"cuda": "cubin", "hip": "hsaco"}


@dataclass
class Compiled:
    """One kernel compiled (or not) for one target and specialization."""
    target: str
    source: str        # the corpus case or recorded launch that reached the kernel
    kernel: str
    ok: bool
    seconds: float
    error: str = ""
    tma: bool = False  # compiled with TMA descriptor arguments (the launcher chose TMA loads)
    # the matrix instructions of the binary's assembly, each once (AMD: v_mfma_*, NVIDIA:
    # mma.sync / wgmma): which precision a product got (gfx90a's tf32 products: fp32 MFMA)
    matrix_ops: list = field(default_factory=list)


class _TargetDriver:
    """Triton's driver as a launcher and the JIT see it, naming a GPU that is not here."""

    def __init__(self, target, device):
        self._target = target
        self._device = device

    def get_current_target(self):
        return self._target

    def get_current_device(self):
        # one device index per target: a JITFunction keeps its backend (and so the options it
        # parses) per device, and a CUDA backend's options do not parse for ROCm
        return self._device

    def get_current_stream(self, device=None):
        return 0

    def is_active(self):
        return True

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_device_interface(self):
        import torch
        return torch.cuda


class TargetCompiler:
    """Compiles every kernel a launcher call launches, for one target."""

    def __init__(self, name: str):
        from triton.backends.compiler import GPUTarget
        if name not in TARGETS:
            raise ValueError(f"unknown target {name!r} (known: {', '.join(TARGETS)})")
        self.name = name
        self.target = GPUTarget(*TARGETS[name])
        self._done: dict = {}       # (kernel, specialization key) -> Compiled

    @contextlib.contextmanager
    def active(self, source: str, sink: list):
        """While active, a Triton kernel launch compiles for this target, appends a `Compiled`
        to `sink` (once per kernel and specialization) and runs nothing."""
        import triton
        from triton.runtime.driver import driver
        from triton.runtime.jit import JITFunction

        from .verify.compile_probe import capture_fd2, interpreter_off
        compiler = self

        def _do_compile(self_fn, key, signature, device, constexprs, options, attrs, warmup):
            # once per kernel, argument types and constexprs: the divisibility of integer
            # arguments (also in Triton's key) changes which loads vectorize, not what compiles
            ck = (id(self_fn), repr(signature), repr(constexprs))
            if ck in compiler._done:
                return None
            name = getattr(self_fn, "__name__", "?")
            start = time.perf_counter()
            with capture_fd2() as cap:
                try:
                    src = self_fn.ASTSource(self_fn, signature, constexprs, attrs)
                    out = triton.compile(src, target=compiler.target, options=options.__dict__)
                    binary = BINARY[compiler.target.backend]
                    err = "" if out.asm.get(binary) else f"no {binary} was produced"
                    ops = _matrix_ops(out.asm)
                except Exception as e:  # noqa: BLE001 - a compile error is the result
                    err, ops = f"{type(e).__name__}: {e}", []
            if err and cap["text"].strip():
                err += "\n" + "\n".join(cap["text"].strip().splitlines()[-12:])
            tma = any("tensordesc" in str(v) for v in signature.values())
            rec = Compiled(compiler.name, source, name, not err,
                           round(time.perf_counter() - start, 3), err[:4000], tma, ops)
            compiler._done[ck] = rec
            sink.append(rec)
            return None

        saved = JITFunction._do_compile
        with interpreter_off(), self._torch_reports_target():
            JITFunction._do_compile = _do_compile
            driver.set_active(_TargetDriver(self.target, list(TARGETS).index(self.name)))
            try:
                yield
            finally:
                JITFunction._do_compile = saved
                driver.reset_active() if driver._default is not None else setattr(
                    driver, "_active", None)

    @contextlib.contextmanager
    def _torch_reports_target(self):
        """While active, torch describes the target GPU as it would on a machine that has it
        (the launchers choose TMA and ptxas options from what torch reports): its compute
        capability, and on AMD GPUs a ROCm build (`torch.version.hip`; MI200 is 9.0 and MI300
        9.4 there)."""
        import torch
        backend, arch, _ = TARGETS[self.name]
        capability = divmod(arch, 10) if backend == "cuda" else (9, int(arch[-2]))
        hip = None if backend == "cuda" else "rocm (tile2triton.portability)"
        saved = torch.cuda.get_device_capability, torch.version.hip
        torch.cuda.get_device_capability = lambda device=None: capability
        torch.version.hip = hip
        try:
            yield
        finally:
            torch.cuda.get_device_capability, torch.version.hip = saved

    def launch(self, source: str, call) -> list:
        """Run `call()` (a launcher call) compiling for this target; the kernels it compiled,
        or a failed record when the launcher itself raised."""
        sink: list = []
        try:
            with self.active(source, sink):
                call()
        except Exception as e:  # noqa: BLE001 - a launcher that fails here fails on the GPU
            sink.append(Compiled(self.name, source, "(launcher)", False, 0.0,
                                 f"{type(e).__name__}: {e}"[:4000]))
        return sink


def _matrix_ops(asm: dict) -> list:
    """The matrix instructions of a compiled kernel, each once, sorted."""
    import re
    amd = re.findall(r"\bv_mfma_\w+", asm.get("amdgcn", "") or "")
    ptx = re.findall(r"\b(?:wgmma\.mma_async|mma\.sync)\.[\w.]+", asm.get("ptx", "") or "")
    return sorted(set(amd + ptx))


# -- the corpus ---------------------------------------------------------------------------------

def corpus_cases(root, names=()) -> list:
    from .verify.corpus import discover
    cases = discover(root)
    if names:
        known = {c.name: c for c in cases}
        missing = [n for n in names if n not in known]
        if missing:
            raise SystemExit(f"no such corpus case: {', '.join(missing)}")
        cases = [known[n] for n in names]
    return cases


def compile_corpus(root, names=(), targets=tuple(TARGETS)) -> list:
    """Every kernel of the corpus cases' committed translations (their goldens), launched with
    each CPU config of the case, compiled for each target."""
    import torch
    compilers = [TargetCompiler(t) for t in targets]
    out: list = []
    for case in corpus_cases(root, names):
        spec = case.spec()
        module = case.load_translation(f"t2t_portability_{case.name}")
        for config in spec.CASES:
            gen = torch.Generator().manual_seed(0)
            args = spec.make_args(config, gen, "cpu")
            for c in compilers:
                out += c.launch(case.name, lambda: module.launch(None, **args))
    return out


# -- recorded launches (the runtime backend's T2T_RUN_RECORD) -----------------------------------

def compile_recorded(folder, targets=tuple(TARGETS)) -> list:
    """Every launch the runtime backend recorded under `folder` (one file per translation and
    specialization: the translation's path, its launcher, the grid and the arguments),
    compiled for each target."""
    import importlib.util

    import torch
    compilers = [TargetCompiler(t) for t in targets]
    out: list = []
    modules: dict = {}
    for path in sorted(Path(folder).glob("*.pt")):
        rec = torch.load(path, weights_only=False)
        tpath = rec["translation"]
        if tpath not in modules:
            name = f"_t2t_portability_{len(modules)}"
            spec = importlib.util.spec_from_file_location(name, tpath)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            modules[tpath] = mod
        launcher = getattr(modules[tpath], rec["launcher"])
        label = f"{rec['program']}:{rec['kernel']}"
        for c in compilers:
            out += c.launch(label, lambda: launcher(None, rec["grid"], *rec["args"]))
    return out


# -- command line -------------------------------------------------------------------------------

def summary(records) -> dict:
    """Per target: kernels compiled, failed, and the failures."""
    by: dict = {}
    for r in records:
        t = by.setdefault(r.target, dict(compiled=0, failed=0, seconds=0.0, failures=[]))
        t["compiled" if r.ok else "failed"] += 1
        t["seconds"] = round(t["seconds"] + r.seconds, 2)
        if not r.ok:
            t["failures"].append(f"{r.source}: {r.kernel}: {r.error.splitlines()[0][:300]}")
    return by


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tile2triton.portability",
                                 description="compile translations for GPUs that are not here")
    ap.add_argument("cases", nargs="*", help="corpus cases to compile (default: all)")
    ap.add_argument("--corpus", default="corpus", help="the corpus folder (default: corpus)")
    ap.add_argument("--no-corpus", action="store_true", help="compile no corpus case")
    ap.add_argument("--exclude", default="", metavar="CASE,...",
                    help="corpus cases left out (a known gap of a target, said in docs)")
    ap.add_argument("--launches", action="append", default=[], metavar="DIR",
                    help="also compile the launches `tile2triton run --record DIR` recorded")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help=f"comma-separated (default: {','.join(TARGETS)})")
    ap.add_argument("--json", help="write every record here")
    a = ap.parse_args(argv)
    targets = [t for t in a.targets.split(",") if t]
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        ap.error(f"unknown target(s) {', '.join(bad)} (known: {', '.join(TARGETS)})")
    if a.no_corpus and a.cases:
        ap.error("--no-corpus with corpus cases")
    missing = [d for d in a.launches if not Path(d).is_dir()]
    if missing:
        ap.error(f"no such folder: {', '.join(missing)}")
    os.environ.pop("TRITON_INTERPRET", None)
    import warnings
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    excluded = {c for c in a.exclude.split(",") if c}
    cases = a.cases or [c.name for c in corpus_cases(a.corpus) if c.name not in excluded]
    records = [] if a.no_corpus else compile_corpus(a.corpus, cases, targets)
    for folder in a.launches:
        records += compile_recorded(folder, targets)
    by = summary(records)
    for t in targets:
        s = by.get(t, dict(compiled=0, failed=0, seconds=0.0, failures=[]))
        print(f"{t}: {s['compiled']} compiled, {s['failed']} failed ({s['seconds']} s)")
        for f in s["failures"]:
            print(f"    {f}")
    print(f"total {time.perf_counter() - start:.1f} s")
    if a.json:
        Path(a.json).write_text(json.dumps([asdict(r) for r in records], indent=1))
    return 1 if any(not r.ok for r in records) or not records else 0


if __name__ == "__main__":
    sys.exit(main())
