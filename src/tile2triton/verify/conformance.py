"""Conformance runner: cuTile's own test suite, run plainly and then through the checker.

    python -m tile2triton.verify.conformance /path/to/cutile-python \\
        --json conformance.json --out docs/conformance.md

For every test file of the checkout's `test/` folder (or of the folder given, when it holds the
test files itself) the runner runs pytest twice, in fresh processes:

1. **plain**: the suite as its authors run it (on the CPU backend: with `cuda.tile` replaced by
   tile2triton's reference interpreter);
2. **plugin**: the same tests with `-p tile2triton.verify.pytest_plugin --tile2triton`, so that
   every `ct.launch` is checked against its Triton translation.

Test outcomes come from the `outcomes` plugin and launch verdicts from the checker's JSON-lines
stream; both are written as they happen, so a run killed at its deadline keeps what it finished.
The state file (`--json`) is rewritten after every run: a later invocation with the same file
resumes where the last one stopped (`--budget-s` bounds one invocation), and `--merge` combines
state files from several machines or invocations into one report. The upstream tests are never
copied: the runner only takes a path. See docs/conformance.md for the report and the command.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime as _dt
import fnmatch
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from ..cli.inputs import run_git

STATE_VERSION = 1
PHASES = ("plain", "plugin")
# Launch verdicts that are left out of the figures: the test itself expects cuTile to reject the
# launch, or the launch was not run on this backend.
NOT_COUNTED = ("expected-rejection",)


# -- the checkout ------------------------------------------------------------------------------

def find_test_dir(path: Path) -> Path:
    """The folder holding the test files: `path/test` for a cutile-python checkout, else path."""
    path = Path(path).resolve()
    if (path / "test").is_dir() and any((path / "test").glob("test_*.py")):
        return path / "test"
    if any(path.glob("test_*.py")):
        return path
    raise SystemExit(f"tile2triton conformance: no test_*.py files in {path} or {path}/test")


def discover(test_dir: Path, patterns=(), include_bench=False) -> list[str]:
    names = sorted(p.name for p in test_dir.glob("test_*.py"))
    if include_bench:
        names += sorted(p.name for p in test_dir.glob("bench_*.py"))
    if patterns:
        names = [n for n in names if any(fnmatch.fnmatch(n, pat) or n == pat or
                                         n == f"{pat}.py" for pat in patterns)]
    return names


def tree_digest(test_dir: Path) -> dict:
    """A content hash of the test tree's Python files: names the upstream side when the checkout
    carries no git metadata."""
    h = hashlib.sha256()
    n = 0
    for p in sorted(test_dir.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        h.update(str(p.relative_to(test_dir)).encode() + b"\0")
        h.update(p.read_bytes())
        n += 1
    return dict(sha256=h.hexdigest()[:16], files=n)


def _git_rev(path: Path) -> str | None:
    try:
        p = run_git("git", ["-C", str(path), "rev-parse", "HEAD"], capture_output=True,
                    text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    rev = p.stdout.strip()
    d = run_git("git", ["-C", str(path), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True, text=True, timeout=10)
    return rev + (" (with local changes)" if d.stdout.strip() else "")


def ini_env(test_dir: Path) -> dict:
    """`env =` entries of the suite's pytest.ini (pytest-env may not be installed: the runner
    sets them itself)."""
    for d in (test_dir, test_dir.parent):
        ini = d / "pytest.ini"
        if not ini.is_file():
            continue
        out, inside = {}, False
        for line in ini.read_text().splitlines():
            if re.match(r"^env\s*=", line):
                inside = True
                rest = line.split("=", 1)[1].strip()
                if "=" in rest:
                    k, v = rest.split("=", 1)
                    out[k.strip()] = v.strip()
                continue
            if inside:
                if line[:1] in (" ", "\t") and "=" in line:
                    k, v = line.strip().split("=", 1)
                    out[k.strip()] = v.strip()
                else:
                    inside = False
        return out
    return {}


def versions() -> dict:
    from importlib import metadata
    out = dict(python=sys.version.split()[0])
    for dist in ("torch", "triton", "cuda-tile", "pytest", "pytest-xdist"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    try:
        import torch
        if torch.cuda.is_available():
            out["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001
        pass
    return out


def own_commit() -> str | None:
    """This tree's commit; T2T_COMMIT names it where the tree has no git metadata (the GPU
    machine receives a bare work tree)."""
    from .supervisor import package_root
    return os.environ.get("T2T_COMMIT") or _git_rev(Path(package_root()).parent) or _git_rev(Path(package_root()))


# -- running -----------------------------------------------------------------------------------

def _read_jsonl(path: Path) -> list[dict]:
    out = []
    try:
        text = path.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue          # a line cut short by a kill
    return out


def slim_launch(rec: dict) -> dict:
    """The fields of a launch record the report needs (arrays, heat maps etc. are dropped)."""
    keep = {k: rec.get(k) for k in ("verdict", "test", "case", "kernel", "kernel_file",
                                     "launch_index", "grid", "seconds", "reason") if
            rec.get(k) is not None}
    fs = []
    for f in rec.get("findings") or []:
        fs.append({k: (v[:1500] if isinstance(v, str) else v) for k, v in f.items()
                   if k in ("kind", "detail", "plain", "triton_message", "stage", "array",
                            "diagnostics", "construct", "line", "source", "reason")})
    keep["findings"] = fs
    art = rec.get("artifact") or {}
    if art:
        keep["artifact"] = {k: art.get(k) for k in ("mode", "module", "sha256") if art.get(k)}
    m = rec.get("metrics") or {}
    if m:
        keep["metrics"] = {k: m.get(k) for k in ("max_abs", "max_rel", "mismatches",
                                                   "elements") if k in m}
    return keep


class Runner:
    def __init__(self, args, test_dir: Path, state: dict, state_path: Path | None, backend):
        self.a = args
        self.test_dir = test_dir
        self.state = state
        self.state_path = state_path
        self.backend = backend
        self.work = Path(args.work_dir or (Path(state_path).parent if state_path else
                                           Path.cwd()) / ".t2t-conformance").resolve()
        self.work.mkdir(parents=True, exist_ok=True)
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.stopping = False
        self.env_base = dict(os.environ)
        for k, v in ini_env(test_dir).items():
            self.env_base.setdefault(k, v)
        from .supervisor import package_root
        parts = [p for p in self.env_base.get("PYTHONPATH", "").split(os.pathsep) if p]
        if package_root() not in parts:
            parts.insert(0, package_root())
        self.env_base["PYTHONPATH"] = os.pathsep.join(parts)
        self.env_base.pop("T2T_CHECK_SPOOL", None)
        self.gpus = args.gpu_list

    def left(self) -> float:
        if self.a.budget_s is None:
            return float("inf")
        return self.a.budget_s - (time.monotonic() - self.t0)

    def log(self, msg):
        if not self.a.quiet:
            print(f"[{time.monotonic() - self.t0:6.0f}s] {msg}", file=sys.stderr, flush=True)

    def argv(self, name, phase, outcomes, jsonl) -> list[str]:
        argv = [sys.executable, "-m", "pytest", name, "-q", "-p", "no:cacheprovider",
                "-o", "addopts=", "-p", "tile2triton.verify.outcomes"]
        if self.a.k:
            argv += ["-k", self.a.k]
        argv += shlex.split(self.a.pytest_args or "")
        if phase == "plugin":
            argv += ["-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                     "--tile2triton-backend", self.backend, "--tile2triton-jsonl", str(jsonl),
                     "--tile2triton-timeout", str(self.a.step_timeout),
                     "--tile2triton-jobs", str(self.a.check_jobs),
                     "--tile2triton-mode", self.a.mode]
        return argv

    def run_phase(self, name: str, phase: str, slot: int, prev: dict | None = None
                  ) -> dict | None:
        """One pytest run of one file; None when the time budget left no room to start it.
        `prev`: an unfinished earlier run of it, which this run continues (the tests it
        finished, or got stuck in, are deselected) and is merged into."""
        limit = min(self.a.file_timeout, self.left())
        if limit < min(self.a.min_run_s, self.a.file_timeout):
            return None
        stem = name.replace("/", "_")
        outcomes = self.work / f"{stem}.{phase}.outcomes.jsonl"
        jsonl = self.work / f"{stem}.{phase}.launches.jsonl"
        deselect = self.work / f"{stem}.{phase}.done.json"
        for p in (outcomes, jsonl, deselect):
            p.unlink(missing_ok=True)
        env = dict(self.env_base)
        env["T2T_OUTCOMES"] = str(outcomes)
        if prev and prev.get("tests"):
            deselect.write_text(json.dumps(sorted(prev["tests"])))
            env["T2T_DESELECT"] = str(deselect)
        if self.backend == "cpu":
            env["TRITON_INTERPRET"] = "1"
            env["T2T_CUDA_ON_CPU"] = "1"      # upstream tests allocate on "cuda"
            if phase == "plain":
                env["T2T_CONF_INTERP"] = "1"
        else:
            env.pop("TRITON_INTERPRET", None)
        if self.gpus:
            env["CUDA_VISIBLE_DEVICES"] = str(self.gpus[slot % len(self.gpus)])
        argv = self.argv(name, phase, outcomes, jsonl)
        log_path = self.work / f"{stem}.{phase}.log"
        t0 = time.monotonic()
        status = "done"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(argv, cwd=self.test_dir, env=env, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                status = "timeout" if limit >= self.a.file_timeout else "interrupted"
                _kill_group(proc)
        seconds = round(time.monotonic() - t0, 2)
        tests, started = {}, []
        for r in _read_jsonl(outcomes):
            nid = r.pop("nodeid")
            if r.get("event") == "start":
                started.append(nid)
            else:
                tests[nid] = r
        stuck = [n for n in started if n not in tests]
        if status == "timeout" and stuck:
            # the test the run was stuck in when it reached its limit: not run again
            tests[stuck[-1]] = dict(outcome="timeout", duration=None, message=(
                f"the pytest run of the file reached its limit ({limit:.0f} s) in this test"))
        launches = [slim_launch(r) for r in _read_jsonl(jsonl)]
        tail = log_path.read_bytes()[-3000:].decode("utf-8", "replace")
        rc = proc.returncode
        if status == "done" and rc not in (0, 1, 5) and not tests:
            status = "crashed"
        progress = bool(tests)
        runs = 1
        commits = [self.state["meta"].get("tile2triton_commit")]
        if prev:
            commits = run_commits(prev, self.state["meta"]) + commits
            tests = dict(prev.get("tests") or {}, **tests)
            launches = (prev.get("launches") or []) + launches
            seconds = round(seconds + (prev.get("seconds") or 0.0), 2)
            runs += prev.get("runs", 1)
        if status == "done" and rc == 5 and prev:
            rc = 0                           # nothing was left to run: the earlier runs did it
        res = dict(status=status, returncode=rc, seconds=seconds, limit=round(limit, 1),
                   tests=tests, launches=launches, k=self.a.k, runs=runs,
                   stalled=status == "timeout" and not progress,
                   command=" ".join(shlex.quote(x) for x in argv[1:]),
                   gpu=env.get("CUDA_VISIBLE_DEVICES"),
                   commits=list(dict.fromkeys(c for c in commits if c)),
                   finished=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
        if status != "done" or rc not in (0, 1, 5):
            res["log_tail"] = tail
        return res

    def todo(self, names) -> list[tuple[str, str]]:
        """(file, phase) runs still to do. A run cut short (its limit, or the budget) is
        continued unless it made no progress at all (then only with --retry-failed)."""
        out = []
        for n in names:
            for ph in self.a.phases:
                prev = self.state["files"].get(n, {}).get(ph)
                if prev and not self.a.rerun and prev.get("k") == self.a.k:
                    if prev["status"] == "done":
                        continue
                    if (prev["status"] == "crashed" or prev.get("stalled")) and \
                            not self.a.retry_failed:
                        continue
                out.append((n, ph))
        return out

    def previous(self, name, phase) -> dict | None:
        """The unfinished earlier run that a new run of (name, phase) continues, if any."""
        if self.a.rerun:
            return None
        prev = self.state["files"].get(name, {}).get(phase)
        if prev and prev["status"] in ("timeout", "interrupted") and \
                prev.get("k") == self.a.k and prev.get("tests"):
            return prev
        return None

    def run(self, names) -> None:
        todo = self.todo(names)
        by_file: dict = defaultdict(list)
        for n, ph in todo:
            by_file[n].append(ph)
        order = longest_first(list(by_file), getattr(self.a, "durations", {}), self.a.phases)
        self.log(f"{len(order)} file(s) to run ({sum(len(v) for v in by_file.values())} pytest "
                 f"runs), backend {self.backend}, {self.a.jobs} at a time"
                 + (f", budget {self.a.budget_s:g} s" if self.a.budget_s else ""))
        slots = list(range(self.a.jobs))
        slot_lock = threading.Lock()

        def one(name):
            with slot_lock:
                slot = slots.pop(0)
            try:
                for ph in by_file[name]:
                    if self.stopping:
                        return
                    res = self.run_phase(name, ph, slot, self.previous(name, ph))
                    if res is None:
                        self.stopping = True
                        return
                    with self.lock:
                        self.state["files"].setdefault(name, {})[ph] = res
                        self.save()
                    counts = Counter(t["outcome"] for t in res["tests"].values())
                    lv = Counter(x["verdict"] for x in res["launches"])
                    self.log(f"{name} [{ph}] {res['status']} in {res['seconds']:.0f}s: "
                             + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
                             + (("; launches: " + ", ".join(f"{v} {k}" for k, v in
                                                           sorted(lv.items()))) if lv else ""))
            finally:
                with slot_lock:
                    slots.append(slot)

        with concurrent.futures.ThreadPoolExecutor(self.a.jobs) as ex:
            list(ex.map(one, order))
        if self.stopping:
            self.log("time budget spent: run the same command again to resume")

    def save(self):
        if self.state_path is None:
            return
        self.state["meta"]["updated"] = _dt.datetime.now(_dt.timezone.utc).isoformat(
            timespec="seconds")
        write_atomic(self.state_path, json.dumps(self.state, indent=1, default=str))


def durations_of(states: list[dict]) -> dict:
    """(file, phase) -> the longest time a run of it took in these state files."""
    out: dict = {}
    for st in states:
        for name, phases in st.get("files", {}).items():
            for ph, r in phases.items():
                secs = r.get("seconds") or 0.0
                out[(name, ph)] = max(out.get((name, ph), 0.0), secs)
    return out


def longest_first(names: list[str], durations: dict, phases) -> list[str]:
    """Files in the order to start them: the longest known first, so that the slowest files do
    not start last and hold up the end of a parallel run (files with no known time keep their
    order, after the known ones)."""
    if not durations:
        return names
    known = {n: sum(durations.get((n, ph), 0.0) for ph in phases) for n in names}
    return sorted(names, key=lambda n: (-known[n], names.index(n)))


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def write_atomic(path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


# -- state files -------------------------------------------------------------------------------

def new_state(meta: dict) -> dict:
    return dict(version=STATE_VERSION, meta=meta, files={})


def load_state(path: Path) -> dict:
    data = json.loads(Path(path).read_text())
    if data.get("version") != STATE_VERSION or "files" not in data:
        raise SystemExit(f"tile2triton conformance: {path} is not a conformance state file")
    return data


def run_commits(r: dict, meta: dict) -> list:
    """The tile2triton commits a file's run was made at (state files older than this field:
    the commit their state file names)."""
    return list(r.get("commits") or [c for c in [meta.get("tile2triton_commit")] if c])


def merge_states(states: list[dict]) -> dict:
    """Per file and phase, a finished run beats an unfinished one; among equals the latest."""
    def score(r):
        return (r.get("status") == "done", r.get("finished") or "")
    out = new_state(dict(states[0]["meta"]) if states else {})
    out["meta"]["merged_from"] = len(states)
    for s in states:
        for name, phases in s["files"].items():
            cur = out["files"].setdefault(name, {})
            for ph, r in phases.items():
                if ph not in cur or score(r) > score(cur[ph]):
                    cur[ph] = dict(r, commits=run_commits(r, s["meta"]))
    metas = [s["meta"] for s in states]
    out["meta"]["updated"] = max((m.get("updated") or "" for m in metas), default="") or None
    for key in ("commands",):
        # a state carried into a later run repeats the earlier commands: each once, in order
        out["meta"][key] = list(dict.fromkeys(c for m in metas for c in m.get(key, [])))
    return out


# -- the report --------------------------------------------------------------------------------

def _cause(launch: dict) -> str:
    """One line naming why a launch did not pass, with numbers and paths made generic so that
    launches failing for the same reason group together."""
    fs = launch.get("findings") or []
    text = ""
    for f in fs:
        text = f.get("reason") or f.get("plain") or f.get("detail") or \
            (f.get("triton_message") or "").strip().splitlines()[-1:] and \
            (f.get("triton_message") or "").strip().splitlines()[-1] or f.get("diagnostics") or ""
        if text:
            break
    text = launch.get("reason") or text or launch.get("verdict", "?")
    if launch.get("verdict") == "translate-error":
        m = re.search(r"T2T\d+ [^\n]*", text)
        if m:
            text = m.group(0)
    text = text.strip().splitlines()[0] if text.strip() else text
    text = re.sub(r"(/[\w.\-]+)+/([\w.\-]+\.py)", r"\2", text)
    text = re.sub(r"0x[0-9a-f]+", "0x…", text)
    text = re.sub(r"`[^`]{40,}`", "`…`", text)
    text = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", text)
    return text[:220]


def _test_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def summarize(state: dict) -> dict:
    files = state["files"]
    per_file = []
    totals = Counter()
    verdicts = Counter()
    denom = num = 0
    groups: dict = defaultdict(lambda: dict(count=0, tests=[]))
    broken_by_plugin: dict = defaultdict(list)
    unfinished = []
    t_plain = t_plugin = 0.0
    for name in sorted(files):
        ph = files[name]
        plain, plug = ph.get("plain"), ph.get("plugin")
        pt = (plain or {}).get("tests", {})
        gt = (plug or {}).get("tests", {})
        passed_plain = {n for n, t in pt.items() if t["outcome"] == "passed"}
        passed_plug = {n for n, t in gt.items() if t["outcome"] == "passed"}
        launches = (plug or {}).get("launches", [])
        lv = Counter(x["verdict"] for x in launches)
        row = dict(file=name, tests=len(pt) or len(gt), plain_pass=len(passed_plain),
                   plain_fail=sum(t["outcome"] in ("failed", "error", "timeout") for t in pt.values()),
                   plain_skip=sum(t["outcome"] in ("skipped", "xfailed") for t in pt.values()),
                   plugin_pass=len(passed_plug), launches=dict(lv),
                   plain_status=(plain or {}).get("status", "not run"),
                   plugin_status=(plug or {}).get("status", "not run"),
                   plain_s=(plain or {}).get("seconds"), plugin_s=(plug or {}).get("seconds"))
        per_file.append(row)
        for k in ("tests", "plain_pass", "plain_fail", "plain_skip", "plugin_pass"):
            totals[k] += row[k]
        verdicts.update(lv)
        for r, st in ((plain, "plain"), (plug, "plugin")):
            if r and r.get("status") != "done":
                unfinished.append(dict(file=name, phase=st, status=r["status"],
                                       seconds=r.get("seconds"), tail=r.get("log_tail", "")))
        if plain and plug and plain.get("status") == "done" and plug.get("status") == "done":
            t_plain += plain["seconds"]
            t_plugin += plug["seconds"]
        for x in launches:
            v = x["verdict"]
            if v in NOT_COUNTED:
                continue
            if x.get("test") in passed_plain:
                denom += 1
                num += v == "pass"
            if v != "pass":
                g = groups[(v, _cause(x))]
                g["count"] += 1
                if len(g["tests"]) < 3 and x.get("test") not in g["tests"]:
                    g["tests"].append(x.get("test"))
        bad_tests = {x.get("test") for x in launches if x["verdict"] not in (
            "pass", "skipped", "both-failed-assert") + NOT_COUNTED}
        for n in sorted(passed_plain - passed_plug):
            if n not in gt:
                continue
            if n in bad_tests:
                why = "one of its launches did not pass (see the launches above)"
            else:
                why = (gt[n].get("message") or gt[n]["outcome"]).strip().splitlines()
                why = why[0][:200] if why else gt[n]["outcome"]
            broken_by_plugin[why].append(n)
    return dict(per_file=per_file, totals=dict(totals), verdicts=dict(verdicts),
                target=dict(pass_=num, of=denom), groups=groups,
                broken_by_plugin=broken_by_plugin, unfinished=unfinished,
                time=dict(plain=round(t_plain, 1), plugin=round(t_plugin, 1)))


_VERDICT_ORDER = ["pass", "drift", "unwritten", "out-of-bounds-write", "illegal-address", "race",
                  "timeout", "compile-error", "translate-error", "original-failed",
                  "not-checked", "error", "both-failed-assert", "skipped", "expected-rejection"]


def render(state: dict) -> str:
    s = summarize(state)
    meta = state.get("meta", {})
    order = _VERDICT_ORDER
    seen_v = [v for v in order if v in s["verdicts"]] + sorted(
        v for v in s["verdicts"] if v not in order)
    L = ["# Conformance: cuTile's test suite through tile2triton", "",
         "<!-- generated by `python -m tile2triton.verify.conformance`; do not edit -->", "",
         "Every test file of cuTile's own suite is run twice: plainly, and with the pytest "
         "plugin (`--tile2triton`), which checks every `ct.launch` the tests make against its "
         "Triton translation. Launches inside `pytest.raises` (the test expects cuTile to "
         "reject them) are `expected-rejection` and are left out of the figures.", ""]
    L += _render_run(state, meta)
    L += _render_totals(s, seen_v)
    L += _render_per_file(s, order)
    L += _render_causes(s, order)
    return "\n".join(L)


def _render_run(state: dict, meta: dict) -> list[str]:
    """## Run: what was run, where, and with what."""
    up = meta.get("upstream", {})
    by_phase = {ph: list(dict.fromkeys(
        c for r in sorted((runs[ph] for runs in state.get("files", {}).values() if ph in runs),
                          key=lambda r: r.get("finished") or "")
        for c in run_commits(r, meta))) for ph in PHASES}
    if any(by_phase.values()):
        made_at = "; ".join(f"{ph} runs at " + ", ".join(f"`{c}`" for c in cs)
                            for ph, cs in by_phase.items() if cs)
    else:
        made_at = f"`{meta.get('tile2triton_commit') or 'unknown'}`"
    L = ["## Run", "",
         f"- tile2triton: {made_at}",
         f"- cutile-python tests: `{up.get('rev') or 'revision not given'}`; tree sha256 "
         f"`{up.get('sha256', '?')}` over {up.get('files', '?')} files",
         "- checked against: " + (
             "the static translation of each kernel's module, as `tile2triton convert` writes "
             "it (`--tile2triton-mode static`)" if meta.get("mode") == "static" else
             "the live translation of each launched kernel (`--tile2triton-mode live`)"),
         f"- backend: {meta.get('backend', '?')}; "
         + ", ".join(f"{k} {v}" for k, v in (meta.get("versions") or {}).items()
                     if k != "gpus")]
    if (meta.get("versions") or {}).get("gpus"):
        L.append(f"- GPUs: {', '.join(meta['versions']['gpus'])}")
    cmds = meta.get("commands") or []
    if cmds:
        L.append("- command(s):")
        L += [f"  - `{c}`" for c in cmds]
    L.append(f"- last updated: {meta.get('updated', '?')}")
    L.append("")
    return L


def _render_totals(s: dict, seen_v: list) -> list[str]:
    t, tg = s["totals"], s["target"]
    frac = f"{100 * tg['pass_'] / tg['of']:.1f} %" if tg["of"] else "-"
    L = ["## Totals", "",
         f"- test files: {len(s['per_file'])}",
         f"- tests: {t.get('tests', 0)}; plainly {t.get('plain_pass', 0)} pass, "
         f"{t.get('plain_fail', 0)} fail or error, {t.get('plain_skip', 0)} skipped; "
         f"with the plugin {t.get('plugin_pass', 0)} pass",
         "- launches: " + (", ".join(f"{s['verdicts'][v]} {v}" for v in seen_v) or "none"),
         f"- launches made by tests that pass plainly that get `pass`: **{tg['pass_']} of "
         f"{tg['of']} ({frac})** (target 98 %)"]
    tm = s["time"]
    if tm["plain"]:
        L.append(f"- time over files run both ways: {tm['plain']:.0f} s plainly, "
                 f"{tm['plugin']:.0f} s with the plugin ({tm['plugin'] / tm['plain']:.1f}x: "
                 "the plugin's overhead)")
    L.append("")
    return L


def _render_per_file(s: dict, order: list) -> list[str]:
    L = ["## Per test file", "",
         "| file | tests | pass plainly | pass with plugin | launches by verdict | time plain / "
         "plugin (s) |", "| --- | ---: | ---: | ---: | --- | ---: |"]
    for r in s["per_file"]:
        names = order + sorted(set(r["launches"]) - set(order))
        lv = ", ".join(f"{r['launches'][v]} {v}" for v in names if v in r["launches"]) or "-"
        st = ""
        if r["plain_status"] != "done" or r["plugin_status"] != "done":
            st = f" ({r['plain_status']} / {r['plugin_status']})"
        L.append(f"| {r['file']}{st} | {r['tests']} | {r['plain_pass']} | {r['plugin_pass']} | "
                 f"{lv} | {_secs(r['plain_s'])} / {_secs(r['plugin_s'])} |")
    L.append("")
    return L


def _render_causes(s: dict, order: list) -> list[str]:
    """Launches that did not pass by cause, tests the plugin breaks, unfinished runs."""
    L = ["## Launches that did not pass, by cause", ""]
    if not s["groups"]:
        L += ["None.", ""]
    by_v = defaultdict(list)
    for (v, cause), g in s["groups"].items():
        by_v[v].append((g["count"], cause, g["tests"]))
    for v in [x for x in order if x in by_v] + sorted(x for x in by_v if x not in order):
        L += [f"### {v} ({sum(c for c, _, _ in by_v[v])})", ""]
        for count, cause, tests in sorted(by_v[v], key=lambda x: (-x[0], x[1])):
            ex = "; ".join(f"`{x}`" for x in tests if x)
            L.append(f"- {count} × {_md(cause)}" + (f" — e.g. {ex}" if ex else ""))
        L.append("")
    if s["broken_by_plugin"]:
        L += ["## Tests that pass plainly but not with the plugin", ""]
        for why, tests in sorted(s["broken_by_plugin"].items(), key=lambda x: -len(x[1])):
            ex = "; ".join(f"`{x}`" for x in tests[:3])
            L.append(f"- {len(tests)} × {_md(why)} — e.g. {ex}")
        L.append("")
    if s["unfinished"]:
        L += ["## Runs that did not finish", ""]
        for u in s["unfinished"]:
            why = _last_error(u.get("tail") or "")
            L.append(f"- {u['file']} [{u['phase']}]: {u['status']} after {_secs(u['seconds'])} s"
                     + (f": {_md(why)}" if why else ""))
        L.append("")
    return L


def _last_error(tail: str) -> str:
    """The last line of a pytest log that names an error (e.g. a conftest that cannot import)."""
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^(E\s+)?\w*(Error|Exception|Interrupted)\b", ln) or ln.startswith("E   "):
            return ln.lstrip("E ").strip()[:300]
    return ""


def _secs(x) -> str:
    return "-" if x is None else f"{x:.0f}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# -- command line ------------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tile2triton.verify.conformance",
        description="Run a cutile-python test checkout plainly and through the tile2triton "
        "checker, and write the conformance report.")
    ap.add_argument("checkout", nargs="?", help="a cutile-python checkout, or its test/ folder")
    ap.add_argument("--out", metavar="MD", help="write the Markdown report here "
                    "(e.g. docs/conformance.md)")
    ap.add_argument("--json", metavar="STATE", help="state file: read to resume, rewritten "
                    "after every pytest run")
    ap.add_argument("--merge", nargs="+", metavar="STATE", default=[],
                    help="merge these state files (with --json's, if it exists) and report; "
                    "nothing is run unless a checkout is given")
    ap.add_argument("--backend", choices=["auto", "cpu", "gpu"], default="auto")
    ap.add_argument("--files", nargs="+", default=[], metavar="GLOB",
                    help="only these test files (names or globs, e.g. test_cat.py 'test_a*')")
    ap.add_argument("-k", default=None, metavar="EXPR", help="pytest -k expression")
    ap.add_argument("--mode", choices=["static", "live"], default="static",
                    help="what the plugin checks each launch against (--tile2triton-mode): "
                    "static, the translation `convert` writes for the kernel's module "
                    "(default); live, the launched kernel translated alone")
    ap.add_argument("--phases", default="plain,plugin",
                    help="which runs: plain, plugin or both (default plain,plugin)")
    ap.add_argument("--budget-s", type=float, default=None, metavar="S",
                    help="stop starting runs once S seconds have passed (running ones are cut "
                    "at S and resumed next time)")
    ap.add_argument("--file-timeout", type=float, default=600.0, metavar="S",
                    help="seconds one pytest run of one file may take (then: timeout)")
    ap.add_argument("--min-run-s", type=float, default=20.0, metavar="S",
                    help="do not start a run with less than S seconds of budget left")
    ap.add_argument("--step-timeout", type=float, default=120.0, metavar="S",
                    help="the checker's deadline per step of a launch check")
    ap.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                    help="test files run at the same time")
    ap.add_argument("--check-jobs", type=int, default=2, metavar="N",
                    help="checker workers per pytest run")
    ap.add_argument("--gpus", default=None, metavar="all|N,M",
                    help="spread the concurrent runs over these GPUs (CUDA_VISIBLE_DEVICES per "
                    "run); 'all' = every GPU of the host")
    ap.add_argument("--longest-first", nargs="+", default=[], metavar="STATE",
                    help="start the files that took longest in these earlier state files first")
    ap.add_argument("--rerun", action="store_true", help="run again what the state file has")
    ap.add_argument("--retry-failed", action="store_true",
                    help="run again files whose last run crashed, or timed out without "
                    "finishing a single test (other cut runs are continued anyway)")
    ap.add_argument("--include-bench", action="store_true", help="also bench_*.py files")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments, one string")
    ap.add_argument("--upstream-rev", default=None,
                    help="the cutile-python revision, when the checkout has no git metadata")
    ap.add_argument("--work-dir", default=None, help="logs and per-run files (default: "
                    ".t2t-conformance next to the state file)")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    a.phases = [p.strip() for p in a.phases.split(",") if p.strip()]
    if any(p not in PHASES for p in a.phases):
        ap.error("--phases takes plain, plugin or plain,plugin")
    if not a.checkout and not a.merge:
        ap.error("give a checkout to run, or --merge STATE... to report")
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    return a


def main(argv=None) -> int:
    from .supervisor import gpu_list
    a = parse_args(argv)
    a.gpu_list = gpu_list(a.gpus)
    a.durations = durations_of([load_state(Path(p)) for p in a.longest_first])
    if a.gpus and not a.gpu_list:
        print(f"tile2triton conformance: --gpus {a.gpus}: no CUDA device found", file=sys.stderr)
        return 2
    if a.gpu_list and a.jobs < len(a.gpu_list):
        a.jobs = len(a.gpu_list)
    command = "python -m tile2triton.verify.conformance " + " ".join(
        shlex.quote(x) for x in (sys.argv[1:] if argv is None else argv))
    state_path = Path(a.json).resolve() if a.json else None
    states = [load_state(Path(p)) for p in a.merge]
    if state_path and state_path.exists():
        states.insert(0, load_state(state_path))
    state = merge_states(states) if len(states) > 1 else (states[0] if states else None)
    if a.checkout:
        from .session import detect_backend
        test_dir = find_test_dir(Path(a.checkout))
        backend = detect_backend() if a.backend == "auto" else a.backend
        up = dict(rev=a.upstream_rev or _git_rev(test_dir), **tree_digest(test_dir))
        meta = dict(backend=backend, upstream=up, tile2triton_commit=own_commit(), mode=a.mode,
                    versions=versions(), test_dir=str(test_dir))
        if state is None:
            state = new_state(meta)
        else:
            old = state["meta"].get("upstream", {})
            if old.get("sha256") and old["sha256"] != up["sha256"] and not a.rerun:
                print("tile2triton conformance: the state file comes from another test tree "
                      f"(sha256 {old['sha256']} vs {up['sha256']}); use --rerun or a new --json",
                      file=sys.stderr)
                return 2
            # a state's plugin runs were made in one mode (states before modes: live)
            ran_plugin = any("plugin" in r for r in state.get("files", {}).values())
            old_mode = state["meta"].get("mode", "live" if ran_plugin else None)
            if "plugin" in a.phases and old_mode and old_mode != a.mode and not a.rerun:
                print(f"tile2triton conformance: the state file's plugin runs are in mode "
                      f"{old_mode}, not {a.mode}; use --rerun or a new --json", file=sys.stderr)
                return 2
            cmds = state["meta"].get("commands", [])
            state["meta"].update(meta)
            state["meta"]["commands"] = cmds
        state["meta"].setdefault("commands", [])
        if command not in state["meta"]["commands"]:
            state["meta"]["commands"].append(command)
        names = discover(test_dir, a.files, a.include_bench)
        if not names:
            print("tile2triton conformance: no test file matches --files", file=sys.stderr)
            return 2
        runner = Runner(a, test_dir, state, state_path, backend)
        runner.run(names)
        runner.save()
    elif state_path:
        write_atomic(state_path, json.dumps(state, indent=1, default=str))
    text = render(state)
    if a.out:
        write_atomic(a.out, text + "\n")
    else:
        print(text)
    if not a.quiet:
        s = summarize(state)
        tg = s["target"]
        print(f"tile2triton conformance: {tg['pass_']} of {tg['of']} launches of plainly "
              f"passing tests pass; {len(s['unfinished'])} unfinished run(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
