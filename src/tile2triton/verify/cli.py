"""`tile2triton check`: run originals and translations on identical inputs and compare them.

    tile2triton check corpus/                         every corpus case
    tile2triton check corpus/softmax_rows --seeds 10  one case, ten input seeds
    tile2triton check --exec "python my_script.py"    every ct.launch the program makes
    tile2triton check corpus/ --json out.json --html out.html

Exit status: 0 when every launch passes (skipped ones allowed), 1 otherwise, 2 on usage errors
(including torch, triton or numpy missing: the [run] extra, README.md), 3 on an internal
error. See docs/checking.md.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

from ..cli.common import Progress, check_report_path, verbosity, write_report
from ..diagnostics import UsageError


def add_check_command(subparsers, common) -> None:
    p = subparsers.add_parser(
        "check", parents=[common], help="run originals and translations on identical inputs and compare",
        description="Translate each kernel, run the original and the translation on identical "
        "copies of every argument, and compare every array the kernel can write. Inputs come "
        "from corpus cases (PATHS) or from the launches of a program (--exec).")
    p.add_argument("paths", nargs="*", help="corpus case folders, a corpus root, or kernel.py "
                   "files with a case.py next to them")
    p.add_argument("--exec", dest="exec_cmds", action="append", default=[], metavar="CMD",
                   help="run CMD (e.g. \"python my_script.py\") with ct.launch intercepted and "
                   "check every launch it makes; may be repeated")
    p.add_argument("--backend", choices=["auto", "cpu", "gpu"], default="auto",
                   help="gpu: real cuTile vs the translation; cpu: the reference interpreter vs "
                   "the translation under TRITON_INTERPRET=1 (default: gpu when cuda.tile and "
                   "CUDA are available)")
    p.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="corpus cases: check with inputs drawn from seeds 0..N-1 (default 1)")
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="worker processes (default: min(4, CPUs) on cpu, 2 on gpu)")
    p.add_argument("--gpus", default=None, metavar="all|N,M",
                   help="gpu backend: spread the checks over these GPUs, one per worker process "
                   "in turn ('all': every GPU of the host; default: the current one)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="seconds a step of a check (a run) may take before it is a timeout")
    p.add_argument("--compile-timeout", type=float, default=None, metavar="S",
                   help="seconds compiling may take (default: --timeout)")
    p.add_argument("--exec-timeout", type=float, default=None, metavar="S",
                   help="seconds the --exec program may take (default: no limit)")
    p.add_argument("--mode", choices=["static", "live"], default="static",
                   help="what each launch is checked against: static (default), the "
                   "translation of the kernel's module exactly as `tile2triton convert` writes "
                   "it; live, a translation of the launched kernel object alone, for the "
                   "launch's ranks and constants")
    p.add_argument("--translation", action="append", default=[], metavar="[KERNEL=]FILE",
                   help="check FILE (a Triton module with launch_<kernel> functions) instead of "
                   "translating KERNEL (a kernel's source file, or a kernel's name); KERNEL may "
                   "be left out when one corpus case is checked. A FILE no launch is checked "
                   "against is an error (exit 2)")
    p.add_argument("--use-expected", action="store_true",
                   help="corpus cases: check the committed expected.py instead of a fresh "
                   "translation")
    p.add_argument("--race", dest="race", action="store_true", default=None,
                   help="run the translation a second time and compare (default on gpu; on "
                   "cpu the interpreter runs program instances one at a time)")
    p.add_argument("--no-race", dest="race", action="store_false",
                   help="skip the second run of the translation")
    p.add_argument("--no-compile-check", action="store_true",
                   help="cpu backend: skip compiling the translation with Triton's front end")
    p.add_argument("--no-sanitize", action="store_true",
                   help="gpu backend: do not re-run illegal addresses under compute-sanitizer")
    p.add_argument("--json", metavar="FILE",
                   help="write one record per launch to FILE (- for stdout)")
    p.add_argument("--html", metavar="FILE",
                   help="write an HTML report with plots to FILE (- for stdout)")
    p.set_defaults(func=cmd_check)


def resolve_cases(paths, packages: bool = True) -> list[Path]:
    """Corpus case folders named by `paths` (a case folder, a corpus root, or a kernel file with
    a case.py next to it). `packages=False`: package cases (docs/corpus-format.md) are left out
    of a corpus root and refused when named."""
    from .case_layout import is_case, package_of
    cases: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if is_case(p):
                if not packages and package_of(p) is not None:
                    raise UsageError(f"{raw}: a package case; this command takes kernel.py "
                                     "cases only (check it with `tile2triton check`)")
                cases.append(p.resolve())
                continue
            found = [d.resolve() for d in sorted(p.iterdir()) if is_case(d) and (
                packages or package_of(d) is None)]
            if not found:
                raise UsageError(f"{raw}: no corpus cases here (a case folder holds kernel.py "
                                 "and case.py)")
            cases.extend(found)
        elif p.is_file():
            if (p.parent / "case.py").is_file() and p.name == "kernel.py":
                cases.append(p.parent.resolve())
            elif (p.parent / "case.py").is_file():
                raise UsageError(f"{raw}: a corpus case's kernel must be named kernel.py")
            else:
                raise UsageError(f"{raw}: no inputs for this kernel file: put a case.py next to "
                                 "it (docs/corpus-format.md) or run a program that launches it "
                                 "with --exec \"python your_script.py\"")
        else:
            raise UsageError(f"no such file or directory: {raw}")
    seen, out = set(), []
    for c in cases:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def parse_overrides(items, cases, use_expected) -> dict:
    from .case_layout import golden_of, package_of, sources
    out = {}
    if use_expected:
        for c in cases:
            for src in sources(c):      # a package case: each module's golden
                if golden_of(c, src).is_file():
                    out[str(src)] = str(golden_of(c, src))
    from .artifacts import parse_translation_option
    for item in items:
        if "=" in item:
            out.update(parse_translation_option([item], "--translation", UsageError))
            continue
        else:
            if len(cases) != 1:
                raise UsageError("--translation FILE needs KERNEL=FILE unless exactly one corpus "
                                 "case is checked")
            if package_of(cases[0]) is not None:
                raise UsageError("--translation FILE needs KERNEL=FILE for a package case (KERNEL: "
                                 "the module of the kernel)")
            k, v = str(cases[0] / "kernel.py"), item
        if not Path(v).is_file():
            raise UsageError(f"--translation: no such file: {v}")
        out[str(Path(k).resolve())] = str(Path(v).resolve())
    return out


RUN_DEPENDENCIES = ("torch", "triton", "numpy")
# tile2triton is installed from a checkout (it is not on PyPI): README.md, Install
RUN_EXTRA_HINT = "install the [run] extra: pip install -e '.[run]' in a tile2triton checkout"


def missing_run_dependencies(names=RUN_DEPENDENCIES) -> list[str]:
    """The packages of `names` (by default what `check` needs, the [run] extra) that do not
    import."""
    import importlib
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def _write_report(writer, target, records, backend, session) -> None:
    """report.write_json/write_html's text, then to the file atomically or to stdout (-)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="t2t_report_") as tmp:
        staged = Path(tmp) / "report"
        writer(staged, records, backend, session.references, session.programs)
        write_report(target, staged.read_text(encoding="utf-8"))


def cmd_check(args) -> int:
    """`tile2triton check`: the arguments checked (nothing runs on a usage error), the backend
    chosen, the launches run and checked, the reports written."""
    cases, overrides = _check_arguments(args)
    backend, gpus, jobs = _check_backend(args)
    session, records = _run_check(args, cases, overrides, backend, gpus, jobs)
    return _report_check(args, cases, backend, session, records)


def _check_arguments(args):
    """(corpus cases, translation overrides) of `check`'s arguments; UsageError when they do
    not make sense, or the `[run]` extra is missing."""
    if not args.paths and not args.exec_cmds:
        raise UsageError("check needs corpus paths or --exec \"python your_script.py\"")
    if args.seeds < 1:
        raise UsageError("--seeds must be at least 1")
    if args.json == "-" and args.html == "-":
        raise UsageError("--json - and --html - would both be printed on stdout; send one to "
                         "a file")
    cases = resolve_cases(args.paths)
    overrides = parse_overrides(args.translation, cases, args.use_expected)
    from .case_layout import sources
    case_files = [f for c in cases for f in c.iterdir() if f.is_file()] \
        + [f for c in cases for f in sources(c)] + [Path(v) for v in overrides.values()]
    for option, target in (("--json", args.json), ("--html", args.html)):
        if target:
            check_report_path(option, target, case_files,
                              [t for o, t in (("--json", args.json), ("--html", args.html))
                               if t and o != option])
    missing = missing_run_dependencies()  # after the checks that need none of them
    if missing:
        raise UsageError(f"check needs {', '.join(missing)} (not installed): {RUN_EXTRA_HINT}")
    return cases, overrides


def _check_backend(args):
    """(backend, GPUs or None, worker count) for `check`."""
    from .session import detect_backend
    backend = args.backend
    if backend == "auto":
        backend = detect_backend()
    elif backend == "gpu" and detect_backend() != "gpu":
        raise UsageError("--backend gpu needs cuda.tile and a CUDA device")
    from .supervisor import gpu_list
    gpus = gpu_list(args.gpus) if backend == "gpu" else None
    if args.gpus and backend == "gpu" and not gpus:
        raise UsageError(f"--gpus {args.gpus}: no CUDA device found")
    jobs = args.jobs or (min(4, os.cpu_count() or 1) if backend == "cpu" else
                         2 * len(gpus or [0]))
    return backend, gpus, jobs


def _run_check(args, cases, overrides, backend, gpus, jobs):
    """Run the corpus cases and --exec programs, each launch checked: (session, records)."""
    from . import report
    from .session import Session
    from .supervisor import Supervisor

    quiet = verbosity(args) < 0
    lock = threading.Lock()
    count = [0]
    # progress counts corpus cases (the total is known); --exec launches have no total
    progress = Progress(len(cases), args, unit="cases")

    def on_result(rec):
        if quiet:
            return
        with lock:
            count[0] += 1
            progress.clear()
            print(report.progress_line(rec, count[0]), file=sys.stderr, flush=True)
            progress.redraw()

    if not quiet:
        _announce_check(args, backend, gpus, jobs)
    sup = Supervisor(backend=backend, workers=jobs, timeout=args.timeout,
                     compile_timeout=args.compile_timeout, overrides=overrides,
                     compile_probe=not args.no_compile_check, race=args.race,
                     sanitize=not args.no_sanitize, on_result=on_result, delete_jobs=True,
                     gpus=gpus)
    session = Session(sup, log=(lambda m: None) if quiet else None, mode=args.mode,
                      overrides=overrides)
    stop = threading.Event()

    def watch_cases():
        while not stop.wait(0.5):
            with lock:
                done = len(session.done_cases)
                if done != progress.done:
                    progress.update(f"{done} case(s) done", step=done - progress.done)

    watcher = None
    if progress.enabled:
        watcher = threading.Thread(target=watch_cases, daemon=True)
        watcher.start()
    try:
        if cases:
            session.run_corpus(cases, backend, list(range(args.seeds)),
                               case_timeout=max(args.timeout * 4, 120.0))
        for cmd in args.exec_cmds:
            session.run_exec(cmd, backend, timeout=args.exec_timeout)
        records = session.finish()
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (cli.main): no spool of tensors left behind
        sup.close(abort=True)
        shutil.rmtree(session.spool, ignore_errors=True)
        raise
    finally:
        stop.set()
        if watcher is not None:
            watcher.join()
        progress.clear()
    return session, records


def _announce_check(args, backend, gpus, jobs):
    what = "the reference interpreter vs the translation (TRITON_INTERPRET=1)" \
        if backend == "cpu" else "cuTile vs the translation"
    what += f"; mode {args.mode}" + (
        " (what `tile2triton convert` writes for each kernel's module)"
        if args.mode == "static" else " (each launched kernel translated alone)")
    where = f" on GPUs {','.join(gpus)}" if gpus else ""
    print(f"tile2triton check: backend {backend}: {what}; {jobs} worker(s){where}",
          file=sys.stderr, flush=True)


def _report_check(args, cases, backend, session, records) -> int:
    """The terminal table and the --json/--html reports; the exit status."""
    from . import report
    # the table goes to stderr when a report takes stdout
    table_out = sys.stderr if "-" in (args.json, args.html) else sys.stdout
    print(report.terminal_report(records, session.references, session.programs), file=table_out)
    if args.json:
        _write_report(report.write_json, args.json, records, backend, session)
    if args.html:
        _write_report(report.write_html, args.html, records, backend, session)
    s = report.summary(records, session.references)
    ok = s["ok"] and all(p["returncode"] == 0 for p in session.programs)
    from .artifacts import unused_overrides
    unused = unused_overrides(parse_overrides(args.translation, cases, False), records)
    if unused:
        # a translation the user named that no launch was checked against is not honoured:
        # refused, never silently ignored
        raise UsageError(f"--translation {', '.join(unused)}: no launch was checked against "
                         "it (KERNEL is a kernel's source file or a kernel's name; the "
                         "launches made were of: " + (", ".join(sorted(
                             {str(r.get('kernel')) for r in records})) or "none") + ")")
    if not records and not session.references:
        print("tile2triton check: no launches were made", file=sys.stderr)
        return 1
    return 0 if ok else 1
