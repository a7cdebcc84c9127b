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
    g.addoption("--tile2triton-translation", action="append", default=[],
                metavar="KERNEL=FILE", help="check FILE instead of translating KERNEL")


def _enabled(config) -> bool:
    try:
        return bool(config.getoption("tile2triton"))
    except ValueError:
        ns = getattr(config, "known_args_namespace", None)
        return bool(getattr(ns, "tile2triton", False))


def _opt(config, name):
    try:
        return config.getoption(name)
    except ValueError:
        return getattr(config.known_args_namespace, name.replace("-", "_"), None)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Install the interception before conftest.py files import kernels."""
    if _enabled(early_config) and "checker" not in _STATE:
        _STATE["checker"] = _Checker(early_config)


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


class _Checker:
    def __init__(self, config):
        from pathlib import Path

        from .check import _ListSink
        from .intercept import Recorder, install
        from .session import detect_backend
        from .supervisor import Supervisor

        backend = _opt(config, "tile2triton_backend") or "auto"
        if backend == "auto":
            backend = detect_backend()
        overrides = {}
        for item in _opt(config, "tile2triton_translation") or []:
            if "=" not in item:
                raise pytest.UsageError("--tile2triton-translation takes KERNEL=FILE")
            k, v = item.split("=", 1)
            overrides[str(Path(k).resolve())] = str(Path(v).resolve())
        self.backend = backend
        self.json_path = _opt(config, "tile2triton_json")
        self.jsonl_path = _opt(config, "tile2triton_jsonl")
        self._jsonl_lock = threading.Lock()
        self.html_path = _opt(config, "tile2triton_html")
        self.sup = Supervisor(backend=backend, workers=_opt(config, "tile2triton_jobs") or 2,
                              timeout=_opt(config, "tile2triton_timeout") or 300.0,
                              overrides=overrides, delete_jobs=True,
                              on_result=self._stream if self.jsonl_path else None)
        self.spool = tempfile.mkdtemp(prefix="t2t_pytest_")
        self.sink = _ListSink(self.spool)
        self.recorder = Recorder(self.sink, backend, source="pytest")
        self.recorder.enabled = False          # launches outside tests are not checked
        self.undo = install(self.recorder)
        self.by_test: dict = {}
        self.closed = False

    def _stream(self, rec):
        import json
        with self._jsonl_lock, open(self.jsonl_path, "a") as f:
            f.write(json.dumps(rec, default=str) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        from .check import _run_items
        self.recorder.context = dict(case=item.nodeid, test=item.nodeid)
        self.recorder._count = itertools.count()
        start = len(self.sink.items)
        self.recorder.enabled = True
        try:
            yield
        finally:
            self.recorder.enabled = False
            new = self.sink.items[start:]
            if new:
                self.by_test[item.nodeid] = _run_items(new, self.sup, [])

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if call.when != "call" or item.nodeid not in self.by_test:
            return
        from .report import finding_text, label
        rep = outcome.get_result()
        records = self.sup.wait(self.by_test[item.nodeid])
        lines = []
        bad = []
        for r in records:
            m = r.get("metrics") or {}
            lines.append(f"{r['verdict']:<19} {r.get('kernel')}#{r.get('launch_index')} "
                         f"max abs {m.get('max_abs', '-')}")
            if r["verdict"] not in ("pass", "skipped"):
                bad.append(r)
        rep.sections.append(("tile2triton check", "\n".join(lines)))
        if bad and rep.passed:
            text = [f"tile2triton check: {len(bad)} of {len(records)} launch(es) made by "
                    "this test disagree with their Triton translation:"]
            for r in bad:
                text.append(f"  {r['verdict']}: {label(r)} {r.get('kernel')}"
                            f"#{r.get('launch_index')}")
                for f in r.get("findings", [])[:4]:
                    for ln in finding_text(f).splitlines()[:8]:
                        text.append("    " + ln)
            rep.outcome = "failed"
            rep.longrepr = "\n".join(text)

    def pytest_terminal_summary(self, terminalreporter):
        from . import report
        records = self.sup.wait()
        if not records:
            terminalreporter.write_sep("=", "tile2triton check: no cuTile launches were made")
            return
        terminalreporter.write_sep("=", f"tile2triton check ({self.backend})")
        terminalreporter.write_line(report.terminal_report(records))
        if self.json_path:
            report.write_json(self.json_path, records, self.backend)
        if self.html_path:
            report.write_html(self.html_path, records, self.backend)

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            self.undo()
        finally:
            self.sup.close()
            shutil.rmtree(self.spool, ignore_errors=True)
