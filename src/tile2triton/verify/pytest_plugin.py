"""pytest plugin: check every `ct.launch` a test suite makes against its Triton translation.

    pytest -p tile2triton.verify.pytest_plugin --tile2triton
    pytest -p tile2triton.verify.pytest_plugin --tile2triton --tile2triton-json checks.json \\
        --tile2triton-html checks.html

Each launch made while a test runs is snapshotted and checked (see docs/checking.md); a test
whose launches do not all pass fails, with the findings in its report. On the CPU backend,
`cuda.tile` is the reference interpreter for the whole session (installed before conftest.py
files are imported), so the tests' own assertions see the original's results.

With the entry point `[project.entry-points.pytest11] tile2triton =
"tile2triton.verify.pytest_plugin"` the `-p` option is not needed.
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import threading

import pytest

_STATE: dict = {}


def pytest_addoption(parser):
    g = parser.getgroup("tile2triton", "check cuTile launches against their Triton translation")
    g.addoption("--tile2triton", action="store_true", default=False,
                help="check every ct.launch the tests make against its Triton translation")
    g.addoption("--tile2triton-backend", choices=["auto", "cpu", "gpu"], default="auto",
                help="gpu: cuTile vs translation; cpu: reference interpreter vs translation "
                "under TRITON_INTERPRET=1 (default: gpu when available)")
    g.addoption("--tile2triton-json", metavar="FILE", default=None,
                help="write the launch verdicts to FILE as JSON")
    g.addoption("--tile2triton-jsonl", metavar="FILE", default=None,
                help="append each launch verdict to FILE as one JSON line, as it is decided "
                "(kept when the session is killed)")
    g.addoption("--tile2triton-html", metavar="FILE", default=None,
                help="write an HTML report of the launch verdicts to FILE")
    g.addoption("--tile2triton-timeout", type=float, default=300.0, metavar="S",
                help="seconds a step of a check may take")
    g.addoption("--tile2triton-jobs", type=int, default=2, metavar="N",
                help="checker worker processes")
    g.addoption("--tile2triton-mode", choices=["static", "live"], default="static",
                help="what each launch is checked against: static (default), the translation "
                "of the kernel's module exactly as `tile2triton convert` writes it; live, a "
                "translation of the launched kernel object alone, for the launch's ranks and "
                "constants")
    g.addoption("--tile2triton-translation", action="append", default=[],
                metavar="KERNEL=FILE", help="check FILE instead of translating KERNEL (a "
                "kernel's source file, or a kernel's name); a FILE no launch is checked "
                "against fails the session")


def _enabled(config) -> bool:
    return bool(_opt(config, "tile2triton"))


def _opt(config, name):
    # Early (pytest_load_initial_conftests), pytest 9 already has `config.option` but only with
    # the defaults; the command line's values are in `known_args_namespace`.
    ns = getattr(config, "known_args_namespace", None)
    if ns is not None and hasattr(ns, name):
        return getattr(ns, name)
    try:
        return config.getoption(name)
    except ValueError:
        return None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Install the interception before conftest.py files import kernels."""
    if _enabled(early_config) and "checker" not in _STATE:
        pin_xdist_gpu()
        _STATE["checker"] = _Checker(early_config)
        if _STATE["checker"].backend == "cpu":
            from .cuda_on_cpu import enable_from_env
            enable_from_env()            # T2T_CUDA_ON_CPU=1: GPU-only tests run on the CPU


def pin_xdist_gpu(environ=None, count=None) -> str | None:
    """Under pytest-xdist, give each worker one GPU (gw0 -> the first visible GPU, gw1 -> the
    second, ...), before CUDA starts in this process: the tests and the checker's workers then
    run on that GPU. Returns the device chosen, or None (not a worker, one GPU, or set by the
    user with T2T_XDIST_GPUS=0)."""
    env = os.environ if environ is None else environ
    wid = env.get("PYTEST_XDIST_WORKER", "")
    if not wid.startswith("gw") or not wid[2:].isdigit() or env.get("T2T_XDIST_GPUS") == "0":
        return None
    visible = [d for d in env.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    if not visible:
        visible = [str(i) for i in range(gpu_count_without_cuda() if count is None else count)]
    if len(visible) < 2:
        return None
    chosen = visible[int(wid[2:]) % len(visible)]
    env["CUDA_VISIBLE_DEVICES"] = chosen
    return chosen


def gpu_count_without_cuda() -> int:
    """The number of GPUs, found without initializing CUDA in this process (after cuInit,
    CUDA_VISIBLE_DEVICES would no longer apply to it): NVML through torch, else nvidia-smi."""
    try:
        import torch
        n = torch.cuda._raw_device_count_nvml()
        if n >= 0:
            return n
    except Exception:  # noqa: BLE001
        pass
    import subprocess
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


class _TrackedRaises:
    """pytest.raises(...) as a context manager, counted while it is active."""

    def __init__(self, cm, recorder):
        self._cm, self._recorder = cm, recorder

    def __enter__(self):
        self._recorder.rejection_depth += 1
        return self._cm.__enter__()

    def __exit__(self, *exc):
        try:
            return self._cm.__exit__(*exc)
        finally:
            self._recorder.rejection_depth -= 1

    def __getattr__(self, name):
        return getattr(self._cm, name)


def track_raises(recorder):
    """Make `pytest.raises` tell the recorder when a test expects an exception: a launch the
    original rejects there is an expected rejection, not a failure. Returns an undo function."""
    original = pytest.raises

    def raises(*args, **kwargs):
        if len(args) > 1 and callable(args[1]):          # pytest.raises(Exc, func, *args)
            recorder.rejection_depth += 1
            try:
                return original(*args, **kwargs)
            finally:
                recorder.rejection_depth -= 1
        return _TrackedRaises(original(*args, **kwargs), recorder)

    raises.__doc__ = original.__doc__
    raises._t2t_original = original
    pytest.raises = raises

    def undo():
        pytest.raises = original
    return undo


def pytest_configure(config):
    if not _enabled(config):
        return
    checker = _STATE.get("checker")
    if checker is None:
        checker = _STATE["checker"] = _Checker(config)
    config.pluginmanager.register(checker, "tile2triton-checker")


def pytest_unconfigure(config):
    checker = _STATE.pop("checker", None)
    if checker is not None:
        checker.close()


def _refuse_reports_over_sources(config, reports: dict) -> None:
    """A report file never replaces (or appends to) a Python file, a test or kernel module
    through a symlink included, nor the folder pytest collects from as a file."""
    from ..cli.common import is_python_source
    for option, target in reports.items():
        if target and (is_python_source(target) or os.path.isdir(target)):
            raise pytest.UsageError(f"{option} {target}: refusing to write a report over a "
                                    "source file or a folder (give a new file name)")


class _Checker:
    def __init__(self, config):
        from .check import _ListSink
        from .intercept import Recorder, install
        from .session import detect_backend
        from .supervisor import Supervisor

        backend = _opt(config, "tile2triton_backend") or "auto"
        if backend == "auto":
            backend = detect_backend()
        from .artifacts import parse_translation_option
        overrides = parse_translation_option(_opt(config, "tile2triton_translation") or [],
                                             "--tile2triton-translation", pytest.UsageError)
        self.overrides = overrides
        self.mode = _opt(config, "tile2triton_mode") or "static"
        self.backend = backend
        self.json_path = _opt(config, "tile2triton_json")
        self.jsonl_path = _opt(config, "tile2triton_jsonl")
        self._jsonl_lock = threading.Lock()
        self.html_path = _opt(config, "tile2triton_html")
        _refuse_reports_over_sources(config, {"--tile2triton-json": self.json_path,
                                              "--tile2triton-jsonl": self.jsonl_path,
                                              "--tile2triton-html": self.html_path})
        self.sup = Supervisor(backend=backend, workers=_opt(config, "tile2triton_jobs") or 2,
                              timeout=_opt(config, "tile2triton_timeout") or 300.0,
                              overrides=overrides, delete_jobs=True,
                              on_result=self._stream if self.jsonl_path else None)
        self.spool = tempfile.mkdtemp(prefix="t2t_pytest_")
        self.sink = _ListSink(self.spool)
        self.recorder = Recorder(self.sink, backend, source="pytest", mode=self.mode,
                                 overrides=overrides)
        self.recorder.enabled = False          # launches outside tests are not checked
        self.undo = install(self.recorder)
        self.undo_raises = track_raises(self.recorder)
        self.by_test: dict = {}
        self.worker_records: list = []
        self.closed = False
        self._env_saved: dict = {}
        self.site = self.child_spool = None
        self.child_seen: set = set()
        controller = "PYTEST_XDIST_WORKER" not in os.environ and (
            _opt(config, "numprocesses") or (_opt(config, "dist") or "no") != "no")
        if not controller:        # an xdist controller runs no tests; its workers do this
            self._children_setup(backend)

    # -- launches in child Python processes ---------------------------------------------------
    def _children_setup(self, backend):
        """Child Python processes started by the tests intercept their launches too: a generated
        sitecustomize on PYTHONPATH installs the interception (as `check --exec` does); their
        jobs land in a spool folder that is read after each test."""
        from .exec_shim import make_site_dir
        from .intercept import ENV_BACKEND, ENV_SPOOL
        from .supervisor import package_root
        self.site = make_site_dir()
        self.child_spool = tempfile.mkdtemp(prefix="t2t_children_")
        from .artifacts import ENV_MODE, ENV_OVERRIDES
        self._env_saved = {k: os.environ.get(k) for k in ("PYTHONPATH", ENV_SPOOL, ENV_BACKEND,
                                                          ENV_MODE, ENV_OVERRIDES)}
        parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        os.environ["PYTHONPATH"] = os.pathsep.join([self.site, package_root()] + parts)
        os.environ[ENV_SPOOL] = self.child_spool
        os.environ[ENV_BACKEND] = backend
        os.environ[ENV_MODE] = self.mode
        os.environ[ENV_OVERRIDES] = json.dumps(self.overrides)

    def _children_jobs(self) -> list:
        """Jobs and notes the tests' child processes wrote since the last call, as sink items."""
        from .supervisor import read_meta
        if self.child_spool is None:
            return []
        try:
            names = sorted(os.listdir(self.child_spool))
        except FileNotFoundError:
            return []
        items = []
        for n in names:
            if n in self.child_seen or ".tmp" in n or n.endswith(".meta.json"):
                continue
            p = os.path.join(self.child_spool, n)
            try:
                if n.endswith(".pt"):
                    items.append(("job", p, read_meta(p)))
                elif n.endswith(".json"):
                    with open(p) as f:
                        items.append(("note", p, json.load(f)))
                else:
                    continue
            except (OSError, ValueError):
                continue                       # still being written: next time
            self.child_seen.add(n)
        return items

    def _stream(self, rec):
        import json
        with self._jsonl_lock, open(self.jsonl_path, "a") as f:
            f.write(json.dumps(rec, default=str) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        from .check import _run_items
        self.recorder.context = dict(case=item.nodeid, test=item.nodeid)
        self.recorder._count = itertools.count()
        from .intercept import ENV_TEST, flush_deferred
        start = len(self.sink.items)
        self.recorder.enabled = True
        self.recorder.rejection_depth = 0
        os.environ[ENV_TEST] = item.nodeid          # seen by the test's child processes
        try:
            yield
        finally:
            os.environ.pop(ENV_TEST, None)
            if self.recorder.deferred:              # launches captured in a CUDA graph
                flush_deferred(self.recorder)
            self.recorder.enabled = False
            new = self.sink.items[start:] + self._children_jobs()
            if new:
                self.by_test[item.nodeid] = _run_items(new, self.sup, [])

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if call.when != "call" or item.nodeid not in self.by_test:
            return
        from .artifacts import artifact_label
        from .report import finding_text, label
        rep = outcome.get_result()
        records = self.sup.wait(self.by_test[item.nodeid])
        lines = []
        bad = []
        for r in records:
            m = r.get("metrics") or {}
            lines.append(f"{r['verdict']:<19} {r.get('kernel')}#{r.get('launch_index')} "
                         f"max abs {m.get('max_abs', '-')}")
            # A launch the checker could not judge (not-checked), that the test expects
            # cuTile to reject, or whose device assertion failed on both sides does not fail
            # the test: it is not a disagreement.
            if r["verdict"] not in ("pass", "skipped", "not-checked", "expected-rejection",
                                    "both-failed-assert"):
                bad.append(r)
        rep.sections.append(("tile2triton check", "\n".join(lines)))
        if bad and rep.passed:
            text = [f"tile2triton check: {len(bad)} of {len(records)} launch(es) made by "
                    "this test disagree with their Triton translation:"]
            for r in bad:
                text.append(f"  {r['verdict']}: {label(r)} {r.get('kernel')}"
                            f"#{r.get('launch_index')} [{artifact_label(r.get('artifact'))}]")
                for f in r.get("findings", [])[:4]:
                    for ln in finding_text(f).splitlines()[:8]:
                        text.append("    " + ln)
            rep.outcome = "failed"
            rep.longrepr = "\n".join(text)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        """An xdist worker hands its verdicts to the controller, which reports them all. A
        --tile2triton-translation no launch was checked against fails the session (it was not
        honoured); under xdist the controller decides, from every worker's verdicts."""
        out = getattr(session.config, "workeroutput", None)
        if out is not None:
            out["tile2triton"] = json.dumps(self.sup.wait(), default=str)
            return
        from .artifacts import unused_overrides
        records = self.sup.wait() + self.worker_records
        self.unused = unused_overrides(self.overrides, records)
        if self.unused:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        self._write_reports(records)

    def _write_reports(self, records):
        """The --tile2triton-json / -html files, written at the end of every session: also when
        no test launched a kernel (a file whose tests only build kernels, upstream's
        test_compiler_options.py), and when pytest stops on an internal or collection error
        (pytest still ends the session; the terminal summary is not reached then)."""
        from . import report
        if self.json_path:
            report.write_json(self.json_path, records, self.backend)
        if self.html_path:
            report.write_html(self.html_path, records, self.backend)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        data = getattr(node, "workeroutput", {}).get("tile2triton")
        if data:
            self.worker_records.extend(json.loads(data))

    def pytest_terminal_summary(self, terminalreporter):
        from . import report
        records = self.sup.wait() + self.worker_records
        for item in getattr(self, "unused", None) or []:
            terminalreporter.write_line(
                f"tile2triton: --tile2triton-translation {item}: no launch was checked "
                "against it (KERNEL is a kernel's source file or a kernel's name)", red=True)
        if not records:
            terminalreporter.write_sep("=", "tile2triton check: no cuTile launches were made")
            return
        terminalreporter.write_sep("=", f"tile2triton check ({self.backend}, mode "
                                   f"{self.mode})")
        terminalreporter.write_line(report.terminal_report(records))

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            self.undo()
            self.undo_raises()
            for k, v in self._env_saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            for d in (self.site, self.child_spool):
                if d:
                    shutil.rmtree(d, ignore_errors=True)
        finally:
            self.sup.close()
            shutil.rmtree(self.spool, ignore_errors=True)
