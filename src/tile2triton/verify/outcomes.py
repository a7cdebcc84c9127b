"""pytest plugin used by the conformance runner: one JSON line per test outcome.

    T2T_OUTCOMES=out.jsonl pytest -p tile2triton.verify.outcomes ...

Each line is written (and flushed) as soon as a test's teardown ends, so a run that is killed at
its time limit still leaves the outcomes of the tests it finished. Without T2T_OUTCOMES the plugin
does nothing.

With T2T_CONF_INTERP=1, `cuda.tile` is the reference interpreter for the whole session (as the
checker's CPU backend does): the conformance runner's plain run on a machine without a GPU.
"""
from __future__ import annotations

import json
import os
import time

import pytest

ENV_OUT = "T2T_OUTCOMES"
ENV_INTERP = "T2T_CONF_INTERP"
ENV_DESELECT = "T2T_DESELECT"      # a JSON file listing node ids already done: not run again

_STATE: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    if os.environ.get(ENV_INTERP) == "1" and "interp" not in _STATE:
        from .. import interp
        cm = interp.install()
        cm.__enter__()
        interp.allow_private_imports()
        _STATE["interp"] = cm
        from .cuda_on_cpu import enable_from_env
        enable_from_env()


def _write(rec: dict) -> None:
    path = os.environ.get(ENV_OUT)
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps(rec, default=str) + "\n")
        f.flush()


def _message(report) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message[:600]
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[:600]


def pytest_collection_modifyitems(session, config, items):
    path = os.environ.get(ENV_DESELECT)
    if not path:
        return
    with open(path) as f:
        done = set(json.load(f))
    keep = [it for it in items if it.nodeid not in done]
    dropped = [it for it in items if it.nodeid in done]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_runtest_logstart(nodeid, location):
    # a test that starts and never finishes is the one a killed run was stuck in
    _write(dict(nodeid=nodeid, event="start"))


def pytest_runtest_logreport(report):
    if not os.environ.get(ENV_OUT):
        return
    cur = _STATE.setdefault("tests", {}).setdefault(report.nodeid, dict(
        nodeid=report.nodeid, outcome=None, duration=0.0, message=""))
    cur["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            cur.update(outcome="error", message=_message(report))
        elif report.skipped:
            cur.update(outcome="xfailed" if wasxfail else "skipped",
                       message=_skip_reason(report))
    elif report.when == "call":
        if wasxfail:
            cur["outcome"] = "xfailed" if report.skipped else "xpassed"
        else:
            cur["outcome"] = report.outcome
        if report.failed:
            cur["message"] = _message(report)
        # the tile2triton plugin's launch verdicts, when it ran (see pytest_plugin.py)
        for title, text in getattr(report, "sections", []):
            if title == "tile2triton check":
                cur["t2t"] = text[-2000:]
    elif report.when == "teardown":
        if report.failed and cur["outcome"] in (None, "passed"):
            cur.update(outcome="error", message=_message(report))
        if cur["outcome"] is None:
            cur["outcome"] = "error"
        cur["finished"] = time.time()
        _write(cur)
        _STATE["tests"].pop(report.nodeid, None)


def _skip_reason(report) -> str:
    lr = getattr(report, "longrepr", None)
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2])[:300]
    return ""


def pytest_collectreport(report):
    if os.environ.get(ENV_OUT) and report.failed:
        _write(dict(nodeid=report.nodeid or "<collection>", outcome="error", duration=0.0,
                    collect_error=True, message=_message(report)))
