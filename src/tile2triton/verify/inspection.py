"""`tile2triton inspect`: what a translation's kernels compile to, on a machine without a GPU.

    tile2triton inspect corpus/matmul_fp16                 every kernel its launch compiles
    tile2triton inspect benchmarks/suite/matmul --bench 3  at the 4th BENCH size
    tile2triton inspect corpus/softmax_rows --stage ttgir  print an IR stage (ttir, ttgir, llir, ptx)
    tile2triton inspect corpus/ --lint                     flag slow forms; exit 1 if any
    tile2triton inspect my_kernels.py --launch 'add[64](x=float32[4096], y=float32[4096], TILE=64)'
                                                           any kernel file, at a launch you write

The case's host `launch` (or, with --launch, the kernel's launcher called with the arguments the
spec describes: verify/launch_spec.py) runs on CPU tensors with Triton's driver replaced by a stand-in naming
the target (sm_90 by default) and JITFunction's compile step replaced by a full
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`: the kernels are compiled
for exactly the specializations the launch makes (divisibility of each integer argument
included), and nothing runs. Per kernel the report says:

- dots: how many tl.dot became Hopper warp-group MMAs (wgmma) and how many did not;
- global loads: how many bytes each load instruction moves (16 = vectorized), and whether the
  tensor-memory accelerator (TMA) or cp.async is used;
- shared memory, registers and spills (ptxas's report).

Lint rules (docs/performance.md): T2P001 a dot that is not a wgmma on sm_90; T2P002 only narrow
global loads (< 16 bytes) in a kernel whose arrays have a unit-stride dimension; T2P003 spills.
"""
from __future__ import annotations

import contextlib
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

STAGES = ("ttir", "ttgir", "llir", "ptx")


@dataclass
class KernelReport:
    kernel: str
    ok: bool = True
    error: str | None = None
    dots: int = 0
    wgmma_dots: int = 0
    plain_dot_shapes: list = field(default_factory=list)   # result shapes of non-wgmma dots
    mma_sync: int = 0
    load_bytes: dict = field(default_factory=dict)     # bytes per ld.global -> count
    cp_async_bytes: dict = field(default_factory=dict)
    tma_loads: int = 0
    shared_bytes: int = 0
    registers: int | None = None
    spill_bytes: int = 0
    num_warps: int | None = None
    num_stages: int | None = None
    num_ctas: int | None = None         # CTAs per program (a cluster on sm_90: Triton's num_ctas)
    maxnreg: int | None = None
    unit_stride_args: bool = False
    stages: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)

    def brief(self) -> dict:
        d = asdict(self)
        d.pop("stages")
        return d


# --- reading the compiled code -----------------------------------------------------------------

_LD = re.compile(r"\bld\.global(?:\.[a-z]+)*?(?:\.v(\d))?\.(?:b|u|s|f)(\d+)\b")
_CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global(?:\.L2::\w+)?\s+\[[^\]]*\],\s*\[[^\]]*\],"
                       r"\s*(0x[0-9a-fA-F]+|\d+)")


def analyse(rep: KernelReport, asm: dict, metadata) -> None:
    ttgir, ptx = asm.get("ttgir", ""), asm.get("ptx", "")
    rep.wgmma_dots = len(re.findall(r"\bttng\.warp_group_dot\b", ttgir))
    plain = re.findall(r"\btt\.dot\b[^\n]*->\s*tensor<([0-9x]+)x[a-z]", ttgir)
    rep.dots = rep.wgmma_dots + len(plain)
    rep.plain_dot_shapes = [tuple(int(d) for d in s.split("x")) for s in plain]
    rep.mma_sync = len(re.findall(r"\bmma\.sync\b", ptx))
    loads: dict = {}
    for m in _LD.finditer(ptx):
        nbytes = int(m.group(1) or 1) * int(m.group(2)) // 8
        loads[nbytes] = loads.get(nbytes, 0) + 1
    rep.load_bytes = dict(sorted(loads.items()))
    cps: dict = {}
    for m in _CP_ASYNC.finditer(ptx):
        n = int(m.group(1), 0)
        cps[n] = cps.get(n, 0) + 1
    rep.cp_async_bytes = dict(sorted(cps.items()))
    rep.tma_loads = len(re.findall(r"cp\.async\.bulk\.tensor", ptx))
    rep.shared_bytes = int(getattr(metadata, "shared", 0) or 0)
    rep.num_warps = getattr(metadata, "num_warps", None)
    rep.num_stages = getattr(metadata, "num_stages", None)
    rep.num_ctas = getattr(metadata, "num_ctas", None)
    rep.maxnreg = getattr(metadata, "maxnreg", None)


def ptxas_usage(ptx: str, arch: int, extra=()) -> tuple[int | None, int]:
    """(registers, spill bytes) from `ptxas -v` on the PTX (Triton's bundled ptxas), with the
    kernel's own ptxas options (`extra`, e.g. the launcher's -O1 for fp32 FMA products)."""
    try:
        from triton import knobs
        ptxas = knobs.nvidia.ptxas.path
    except Exception:  # noqa: BLE001
        return None, 0
    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "k.ptx")
        src.write_text(ptx)
        suffix = "a" if arch >= 90 else ""
        p = subprocess.run([ptxas, "-v", *extra, f"--gpu-name=sm_{arch}{suffix}", str(src), "-o",
                            str(Path(d, "k.cubin"))], capture_output=True, text=True, timeout=120)
    text = p.stdout + p.stderr
    regs = re.search(r"Used (\d+) registers", text)
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", text)]
    return (int(regs.group(1)) if regs else None), max(spills or [0])


def lint(rep: KernelReport) -> list[dict]:
    out = []
    # wgmma needs a 2-D dot with at least 64 rows (one warp group); smaller tiles are fine as
    # mma.sync, so only dots that could have been wgmma are findings
    slow = [s for s in rep.plain_dot_shapes if len(s) != 2 or (s[0] >= 64 and s[1] >= 16)]
    if slow:
        out.append(dict(code="T2P001", message=f"{len(slow)} of {rep.dots} dot(s) (result "
                        f"{' '.join('x'.join(map(str, s)) for s in slow)}) are not warp-group "
                        "MMAs (wgmma) on sm_90",
                        help="2-D tl.dot operands with M >= 64 per 4 warps get wgmma; a 3-D dot, "
                        "or tiles under 16, do not"))
    widest = max(list(rep.load_bytes) + list(rep.cp_async_bytes) + [0])
    if rep.unit_stride_args and (rep.load_bytes or rep.cp_async_bytes) and widest < 16 \
            and not rep.tma_loads:
        out.append(dict(code="T2P002", message=f"global loads move at most {widest} bytes each, "
                        "though the arrays have a unit-stride dimension",
                        help="the compiler could not prove contiguity or 16-byte alignment: a "
                        "stride or extent not divisible by 16 elements, or a mask on the "
                        "contiguous dimension"))
    if rep.spill_bytes:
        out.append(dict(code="T2P003", message=f"{rep.spill_bytes} bytes of register spills",
                        help="smaller tiles or more warps"))
    return out


# The launcher's host time per launch measured on the H200 (docs/performance.md, runs 38 and
# 44: 16-29 us through the direct path, ct.launch 6-7 us): a kernel that takes less than this
# on the device is timed as host work, and ran at 0.25-0.7x cuTile in every such run.
HOST_BOUND_US = 15.0
# What the H200 moves and computes when a kernel is at its best (copy bandwidth and dense fp16
# tensor-core rate measured in the same runs); used only to estimate a launch's device time.
H200_BYTES_PER_S = 4.0e12
H200_FLOPS_PER_S = 6.0e14


def launch_work_lint(nbytes: int, flops: int | None) -> dict | None:
    """T2P004 when a launch's work is too small for its device time to exceed the launcher's
    host time (so the launch is bound by the host, and below cuTile's C++ launch)."""
    est_us = max(nbytes / H200_BYTES_PER_S, (flops or 0) / H200_FLOPS_PER_S) * 1e6
    if est_us >= HOST_BOUND_US:
        return None
    return dict(code="T2P004", message=f"the launch moves {nbytes / 1e6:.2f} MB"
                + (f" and computes {flops / 1e9:.2f} GFLOP" if flops else "")
                + f": about {est_us:.1f} us on an H200, less than the launcher's host time per "
                f"launch ({HOST_BOUND_US:.0f}-29 us measured), so it is bound by the host",
                help="batch the work into fewer, larger launches, or replay the launches from a "
                "CUDA graph (torch.cuda.graph)")


# --- compiling what a launch launches -----------------------------------------------------------


class _Driver:
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

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_benchmarker(self):
        raise RuntimeError("no benchmarking without a GPU")


@contextlib.contextmanager
def compiling_for(arch: int, sink: list, with_ptxas: bool = True, keep_stages=(),
                  raise_errors: bool = False):
    """While active, every Triton kernel launch compiles fully for sm_`arch` and appends a
    KernelReport to `sink` instead of running. `raise_errors`: a compile error is raised from
    the launch, as on a GPU (else it is the report's)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.runtime.driver import driver
    from triton.runtime.jit import JITFunction

    from .compile_probe import capture_fd2, interpreter_off
    from .explain import compile_error_text
    target = GPUTarget("cuda", arch, 32)
    cache: dict = {}

    def _do_compile(self_fn, key, signature, device, constexprs, options, attrs, warmup):
        name = getattr(self_fn, "__name__", "?")
        ck = (id(self_fn), repr(key))
        if ck not in cache:
            rep = KernelReport(kernel=name)
            with capture_fd2() as cap:
                try:
                    src = self_fn.ASTSource(self_fn, signature, constexprs, attrs)
                    compiled = triton.compile(src, target=target, options=options.__dict__)
                except Exception as e:  # noqa: BLE001 - a compile error is the report
                    if raise_errors:
                        raise
                    rep.ok, rep.error = False, compile_error_text(e)
                    compiled = None
            if compiled is not None:
                analyse(rep, compiled.asm, compiled.metadata)
                if with_ptxas and compiled.asm.get("ptx"):
                    extra = (getattr(options, "ptx_options", None) or "").split()
                    rep.registers, rep.spill_bytes = ptxas_usage(compiled.asm["ptx"], arch,
                                                                 extra)
                rep.stages = {s: compiled.asm[s] for s in keep_stages if s in compiled.asm}
            elif cap["text"]:
                rep.error = (rep.error or "") + "\n" + cap["text"][-3000:]
            cache[ck] = rep
        sink.append(cache[ck])
        return None

    _import_gluon()
    saved = JITFunction._do_compile
    with interpreter_off():
        JITFunction._do_compile = _do_compile
        driver.set_active(_Driver(target))
        try:
            yield
        finally:
            JITFunction._do_compile = saved
            driver.reset_active() if driver._default is not None else setattr(
                driver, "_active", None)


def _import_gluon() -> None:
    """Triton's dispatch imports triton.experimental.gluon for descriptor arguments, and that
    import asserts that triton.language's standard functions are JITFunctions unless the
    interpreter is on. After an in-process run under TRITON_INTERPRET=1 (a CPU check) they are
    interpreted functions, so the first descriptor launch compiled here failed; gluon is
    imported the way that run would have imported it."""
    if "triton.experimental.gluon" in sys.modules:
        return
    import triton.language.standard as standard
    from triton.runtime.jit import JITFunction
    if isinstance(standard.cdiv, JITFunction):
        return
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        import triton.experimental.gluon  # noqa: F401
    finally:
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old


def _array_bytes(args) -> int:
    import torch
    flat = []
    for v in args.values() if isinstance(args, dict) else args:
        flat.extend(v if isinstance(v, (list, tuple)) else [v])
    return sum(t.numel() * t.element_size() for t in flat if isinstance(t, torch.Tensor))


def _unit_stride(args) -> bool:
    import torch
    flat = []
    for v in args.values() if isinstance(args, dict) else args:
        flat.extend(v if isinstance(v, (list, tuple)) else [v])
    return any(isinstance(t, torch.Tensor) and t.dim() and t.stride(-1) == 1 and t.shape[-1] >= 8
               for t in flat)


def inspect_case(folder: Path, *, bench_index: int | None = None, config_index: int = 0,
                 arch: int = 90, stages=(), with_ptxas: bool = True,
                 translation: Path | None = None) -> list[KernelReport]:
    """Compile what the case's launch compiles (a CASES config, or a BENCH one) and report."""
    import torch

    from .corpus import load_module
    folder = Path(folder)
    tag = re.sub(r"\W", "_", folder.name)
    spec = load_module(folder / "case.py", f"t2t_inspect_case_{tag}")
    configs = spec.BENCH if bench_index is not None else spec.CASES
    config = configs[bench_index if bench_index is not None else config_index]
    gen = torch.Generator().manual_seed(0)
    args = spec.make_args(config, gen, "cpu")
    return _compile_launch(folder / "kernel.py", tag, translation, arch, stages, with_ptxas,
                           lambda module: module.launch(None, **args), args,
                           spec.work(config) if hasattr(spec, "work") else None)


def inspect_launch(kernel_file: Path, launch, *, arch: int = 90, stages=(),
                   with_ptxas: bool = True,
                   translation: Path | None = None) -> list[KernelReport]:
    """Compile what one launch of a kernel of `kernel_file` compiles, the launch given as a
    launch_spec.LaunchSpec (`tile2triton inspect FILE --launch SPEC`), and report."""
    import torch

    from ..diagnostics import UsageError
    from .launch_spec import make_value
    gen = torch.Generator().manual_seed(0)
    args = [make_value(v, gen) for v in launch.args]
    kwargs = {k: make_value(v, gen) for k, v in launch.kwargs.items()}

    def run(module):
        launcher = getattr(module, f"launch_{launch.kernel}", None)
        if launcher is None:
            kernels = sorted(n[len("launch_"):] for n in vars(module)
                             if n.startswith("launch_") and callable(vars(module)[n]))
            raise UsageError(f"--launch {launch.text!r}: {kernel_file} has no kernel "
                             f"`{launch.kernel}` (its kernels: {', '.join(kernels) or 'none'})")
        try:
            bound = inspect.signature(launcher).bind(None, launch.grid, *args, **kwargs)
        except TypeError as e:
            raise UsageError(f"--launch {launch.text!r}: {e} (the kernel's parameters: "
                             f"{', '.join(list(inspect.signature(launcher).parameters)[2:-1])})"
                             ) from None
        launcher(*bound.args, **bound.kwargs)

    tag = re.sub(r"\W", "_", Path(kernel_file).stem)
    return _compile_launch(Path(kernel_file), tag, translation, arch, stages, with_ptxas, run,
                           [*args, *kwargs.values()])


def _compile_launch(kernel_file: Path, tag: str, translation, arch, stages, with_ptxas, run,
                    args, work=None) -> list[KernelReport]:
    """Translate `kernel_file` (or load `translation`), then `run(module)` with every Triton
    launch compiled for sm_`arch` instead of run; the reports of the kernels compiled."""
    from .corpus import load_module
    reports: list = []
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "0"
    try:
        if translation is not None:
            module = load_module(translation, f"t2t_inspect_tr_{tag}")
        else:
            from ..translate import translate_source
            res = translate_source(kernel_file.read_text(), str(kernel_file))
            if not res.ok:
                raise RuntimeError("the kernel did not translate:\n" +
                                   "\n\n".join(d.format() for d in res.diagnostics()))
            tmp = Path(tempfile.mkdtemp(prefix="t2t_inspect_"))
            path = tmp / f"{tag}_triton.py"
            path.write_text(res.output)
            module = load_module(path, f"t2t_inspect_tr_{tag}")
        if hasattr(module, "_wgmma_device"):
            # the launcher's K-major copies of tf32 B operands depend on the GPU; here on the
            # target's architecture, so that the compiled kernel is the one the GPU runs
            module._wgmma_device = lambda device: arch == 90
        with compiling_for(arch, reports, with_ptxas, stages):
            run(module)
    finally:
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old
    unit = _unit_stride(args)
    work = work or {}
    nbytes = work.get("bytes") or _array_bytes(args)
    host_bound = launch_work_lint(nbytes, work.get("flops"))
    seen, out = set(), []
    for r in reports:
        if id(r) in seen:
            continue
        seen.add(id(r))
        r.unit_stride_args = unit
        r.findings = lint(r) if r.ok else []
        if r.ok and host_bound:
            r.findings.append(host_bound)
        out.append(r)
    return out


# --- output and command line --------------------------------------------------------------------


def format_report(case: str, r: KernelReport) -> str:
    if not r.ok:
        return f"{case}: {r.kernel}: compile error: {(r.error or '').strip()[:800]}"
    loads = ", ".join(f"{n}×{b}B" for b, n in r.load_bytes.items()) or "none"
    cps = ", ".join(f"{n}×{b}B" for b, n in r.cp_async_bytes.items())
    dots = f"{r.wgmma_dots}/{r.dots} wgmma" if r.dots else "no dots"
    regs = f"{r.registers} regs" if r.registers is not None else "regs ?"
    line = (f"{case}: {r.kernel}: {dots}; ld.global {loads}" + (f"; cp.async {cps}" if cps else "")
            + (f"; TMA {r.tma_loads}" if r.tma_loads else "")
            + f"; shared {r.shared_bytes} B; {regs}; spills {r.spill_bytes} B; "
            f"warps {r.num_warps}, stages {r.num_stages}"
            + (f", {r.num_ctas} CTAs per program" if (r.num_ctas or 1) > 1 else "")
            + (f", maxnreg {r.maxnreg}" if r.maxnreg else ""))
    for f in r.findings:
        line += f"\n    {f['code']} {f['message']}\n    help: {f['help']}"
    return line


def add_inspect_command(subparsers, common) -> None:
    import argparse
    p = subparsers.add_parser(
        "inspect", parents=[common], help="compile translations for a GPU target (no GPU "
        "needed) and report what each kernel became", description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 inspected, 1 a compile error (or, with --lint, a finding), "
        "2 usage error (torch or triton missing included), 3 internal error.")
    p.add_argument("paths", nargs="+", help="corpus-format case folders or a folder of them; "
                   "with --launch, kernel files")
    p.add_argument("--launch", action="append", default=[], metavar="SPEC",
                   help="inspect the kernel files at this launch, written "
                   "'KERNEL[GRID](x=float16[1024, 512], n=1024, TILE=64)' (repeatable; @FILE: "
                   "one spec per line)")
    p.add_argument("--arch", type=int, default=90, help="compute capability (default 90)")
    p.add_argument("--config", type=int, default=0, metavar="N", help="CASES configuration")
    p.add_argument("--bench", type=int, default=None, metavar="N",
                   help="use the N-th BENCH configuration instead of CASES")
    p.add_argument("--stage", action="append", default=[], choices=STAGES,
                   help="print this IR stage of every kernel (may be repeated)")
    p.add_argument("--lint", action="store_true", help="exit 1 when a slow form is found")
    p.add_argument("--no-ptxas", action="store_true", help="skip registers/spills (faster)")
    p.add_argument("--translation", metavar="FILE", help="inspect FILE instead of a fresh "
                   "translation (one case or kernel file only)")
    p.add_argument("--json", metavar="FILE")
    p.set_defaults(func=cmd_inspect, _argparse=argparse)


# What inspect imports to compile and launch: a translation's launchers take torch tensors.
INSPECT_DEPENDENCIES = ("torch", "triton")


def _kernel_files(paths, launches) -> list[Path]:
    """With --launch: the kernel files named (usage error for anything else)."""
    from ..diagnostics import UsageError
    files = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError(f"no such file or directory: {raw}")
        if not p.is_file():
            raise UsageError(f"{raw}: with --launch, give kernel files (a folder of corpus "
                             "cases is inspected without --launch)")
        files.append(p)
    return files


def _plain_files_need_a_launch(paths) -> None:
    """A kernel file without a case.py: say how to give its launch (inspect has no --exec)."""
    from ..diagnostics import UsageError
    for raw in paths:
        p = Path(raw)
        if p.is_file() and not (p.parent / "case.py").is_file():
            raise UsageError(f"{raw}: no inputs for this kernel file: give its launch, e.g. "
                             f"--launch '{_example_launch(p)}' (docs/cli.md, inspect), or "
                             "put a case.py next to it (docs/corpus-format.md)")


def _decorated_kernels(path: Path) -> list:
    """The top-level functions of `path` decorated `@...kernel...` (`@ct.kernel`,
    `@ct.kernel(...)`), read without translating; [] when there are none or it does not
    parse."""
    import ast as pyast
    try:
        tree = pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return []
    return [node for node in tree.body if isinstance(node, pyast.FunctionDef) and any(
        "kernel" in pyast.unparse(d) for d in node.decorator_list)]


def _example_launch(path: Path) -> str:
    """A --launch line for the first kernel of `path`, its parameters named (a hint)."""
    for node in _decorated_kernels(path):
        params = ", ".join(f"{a.arg}=..." for a in node.args.args)
        return f"{node.name}[GRID]({params})"
    return "KERNEL[GRID](x=float32[1024], TILE=128)"


def _check_kernel_names(targets) -> None:
    """A --launch naming no `@ct.kernel` of its file is refused before anything is imported
    (kernels made otherwise, `k = ct.kernel(f)`, are looked up after translating)."""
    from ..diagnostics import UsageError
    for path, launches in targets:
        names = [n.name for n in _decorated_kernels(path)]
        for launch in launches:
            if names and launch.kernel not in names:
                raise UsageError(f"--launch {launch.text!r}: {path} has no kernel "
                                 f"`{launch.kernel}` (its kernels: {', '.join(sorted(names))})")


def _check_config_index(case: Path, bench: int | None, config: int) -> None:
    """--bench N / --config N must name one of the case's configurations: a usage error
    (exit 2) located at its case.py otherwise. A case.py that does not load is left to the
    inspection, which reports it for that case."""
    from ..diagnostics import UsageError
    flag, name, idx = ("--bench", "BENCH", bench) if bench is not None else \
        ("--config", "CASES", config)
    try:
        from .corpus import load_module  # imports torch: a missing torch is reported later
        spec = load_module(case / "case.py", "t2t_inspect_check_" + re.sub(r"\W", "_", case.name))
    except Exception:  # noqa: BLE001
        return
    configs = getattr(spec, name, None)
    n = len(configs) if isinstance(configs, (list, tuple)) else 0
    if not 0 <= idx < n:
        have = f"{n} configuration(s), numbered 0 to {n - 1}" if n else "none"
        raise UsageError(f"{case / 'case.py'}: {flag} {idx} is out of range: its {name} has "
                         f"{have}")


def cmd_inspect(args) -> int:
    from ..cli.common import check_report_path, write_report
    from ..diagnostics import UsageError
    from .cli import RUN_EXTRA_HINT, missing_run_dependencies, resolve_cases
    if args.launch:
        from .launch_spec import read_launches
        launches = read_launches(args.launch)
        targets = [(p, launches) for p in _kernel_files(args.paths, args.launch)]
        _check_kernel_names(targets)
        if args.bench is not None:
            raise UsageError("--bench picks a case's configuration; with --launch the launch "
                             "gives the sizes")
        sources = [p for p, _ in targets]
    else:
        _plain_files_need_a_launch(args.paths)
        cases = resolve_cases(args.paths, packages=False)
        targets = [(c, None) for c in cases]
        sources = [f for c in cases for f in c.iterdir() if f.is_file()]
    if args.translation and len(targets) != 1:
        raise UsageError("--translation needs exactly one case or kernel file")
    if args.json:  # a report never overwrites a source file (cli_support)
        check_report_path("--json", args.json, sources)
    for target, launches in targets:   # before anything is compiled or written
        if launches is None:
            _check_config_index(target, args.bench, args.config)
    missing = missing_run_dependencies(INSPECT_DEPENDENCIES)
    if missing:
        raise UsageError(f"inspect needs {', '.join(missing)} (not installed): {RUN_EXTRA_HINT}")
    records, n_findings, n_errors = [], 0, 0
    translation = Path(args.translation) if args.translation else None
    jobs = [(target, launch) for target, launches in targets for launch in (launches or [None])]
    for target, launch in jobs:
        label = target.name if launch is None else f"{target}:{launch.kernel}{list(launch.grid)}"
        try:
            if launch is None:
                reps = inspect_case(target, bench_index=args.bench, config_index=args.config,
                                    arch=args.arch, stages=tuple(args.stage),
                                    with_ptxas=not args.no_ptxas, translation=translation)
            else:
                reps = inspect_launch(target, launch, arch=args.arch, stages=tuple(args.stage),
                                      with_ptxas=not args.no_ptxas, translation=translation)
        except UsageError:
            raise
        except Exception as e:  # noqa: BLE001 - one case failing does not stop the others
            print(f"{label}: could not inspect: {type(e).__name__}: {e}", flush=True)
            records.append(dict(case=label, error=f"{type(e).__name__}: {e}"))
            n_errors += 1
            continue
        for r in reps:
            print(format_report(label, r), flush=True)
            for s in args.stage:
                print(f"----- {r.kernel}: {s} -----")
                print(r.stages.get(s, "(not produced)"))
            n_findings += len(r.findings)
            n_errors += 0 if r.ok else 1
            records.append(dict(case=label, **r.brief()))
    if args.json:
        write_report(args.json, json.dumps(records, indent=1))
    print(f"inspected {len(records)} kernel(s): {n_findings} lint finding(s), "
          f"{n_errors} error(s)", file=sys.stderr)
    if args.lint and (n_findings or n_errors):
        return 1
    return 1 if n_errors else 0
