"""Supervisor: runs launch checks in worker processes, with timeouts and worker replacement.

Each worker (worker.py) checks one launch at a time. The supervisor gives every step a deadline
(the worker announces its steps), so a hang in a compile or a run becomes a `timeout` verdict
naming the step; a worker that dies (a segfault, an illegal address) or reports a CUDA error is
replaced by a fresh process, so one crash never affects later verdicts. On the GPU, a launch that
ended in an illegal address can be re-run alone under `compute-sanitizer --tool memcheck`, and
its report is attached to the verdict.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .pipe_lines import PipeLines

TRANSLATION_STAGES = ("translation", "translation-race", "translation-poisoned",
                      "translation-canary")
ORIGINAL_STAGES = ("original", "original-poisoned", "original-canary", "load-original")


def package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def child_env(extra: dict | None = None, backend: str | None = None) -> dict:
    """The environment of checker processes: tile2triton importable; on the GPU backend no
    TRITON_INTERPRET (the translation must really compile)."""
    env = dict(os.environ)
    if backend == "gpu":
        env.pop("TRITON_INTERPRET", None)
    root = package_root()
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in parts:
        parts.insert(0, root)
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env.pop("T2T_CHECK_SPOOL", None)
    if extra:
        env.update(extra)
    return env


def find_compute_sanitizer() -> str | None:
    exe = shutil.which("compute-sanitizer")
    if exe:
        return exe
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if base:
            p = Path(base) / "bin" / "compute-sanitizer"
            if p.exists():
                return str(p)
    return None


def gpu_list(spec) -> list[str] | None:
    """`--gpus` values: "all" (every GPU of the host), "0,1", or None."""
    if not spec:
        return None
    if spec == "all":
        try:
            import torch
            n = torch.cuda.device_count()
        except Exception:  # noqa: BLE001
            n = 0
        visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
                   if d.strip()]
        return (visible or [str(i) for i in range(n)])[:max(n, 0)] or None
    return [g.strip() for g in str(spec).split(",") if g.strip()] or None


def read_meta(job_path) -> dict:
    side = Path(f"{job_path}.meta.json")
    if side.exists():
        return json.loads(side.read_text())
    from .snapshot import load
    return load(job_path)[0]


class _WorkerProc:
    def __init__(self, sup: "Supervisor", slot, module="tile2triton.verify.worker",
                 args=None, env_drop=()):
        self.sup = sup
        self.log_path = Path(sup.tmp) / f"worker{slot}-{time.time_ns()}.log"
        self.log = open(self.log_path, "wb")
        cmd = [sup.python, "-m", module] + (["--backend", sup.backend] if args is None
                                            else list(args))
        env = child_env(sup.env, sup.backend)
        env["T2T_CHECK_TMP"] = str(sup.tmp)          # removed with the supervisor
        if sup.gpus and isinstance(slot, int):      # worker slots take the GPUs in turn
            env["CUDA_VISIBLE_DEVICES"] = sup.gpus[slot % len(sup.gpus)]
        for k in env_drop:
            env.pop(k, None)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env,
                                     start_new_session=True, cwd=sup.cwd)
        self.lines = PipeLines(self.proc.stdout.fileno())
        sup._procs.add(self)
        msg = self.read(time.monotonic() + sup.startup_timeout)
        if not msg or msg.get("type") != "ready":
            tail = self.log_tail()
            self.kill()
            raise RuntimeError(f"checker worker did not start: {tail}")

    def send(self, obj):
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def read(self, deadline):
        """Next message; None on timeout; raises EOFError when the worker is gone."""
        line = self.lines.next(deadline)
        return None if line is None else json.loads(line)

    def alive(self):
        return self.proc.poll() is None

    def stop(self, grace: float = 5.0):
        """Ask the process to finish (end of its input), then kill it if it does not."""
        try:
            self.proc.stdin.close()
        except Exception:  # noqa: BLE001
            pass
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def kill(self):
        self.sup._procs.discard(self)
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except Exception:  # noqa: BLE001
                pass
        self.log.close()

    def log_tail(self, n=3000) -> str:
        try:
            self.log.flush()
            data = self.log_path.read_bytes()
            return data[-n:].decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            return ""


class Supervisor:
    def __init__(self, backend: str = "cpu", workers: int = 2, timeout: float = 300.0,
                 compile_timeout: float | None = None, overrides: dict | None = None,
                 compile_probe: bool = True, race: bool | None = None,
                 sanitize: bool | None = None,
                 on_result=None, python: str | None = None, env: dict | None = None,
                 startup_timeout: float = 180.0, cwd: str | None = None,
                 delete_jobs: bool = False, gpus: list | None = None):
        self.backend = backend
        self.gpus = [str(g) for g in gpus] if gpus else None   # CUDA_VISIBLE_DEVICES per slot
        self.n_workers = max(1, workers)
        self.timeout = timeout
        self.compile_timeout = compile_timeout or timeout
        self.overrides = {str(Path(k).resolve()): str(Path(v).resolve())
                          for k, v in (overrides or {}).items()}
        self.compile_probe = compile_probe
        # Under TRITON_INTERPRET the program instances run one after another, so a second run
        # of the translation finds races only on the GPU: by default it is done there only.
        self.race = (backend == "gpu") if race is None else race
        self.sanitizer = find_compute_sanitizer() if (backend == "gpu" and sanitize
                                                       is not False) else None
        self.on_result = on_result
        self.python = python or sys.executable
        self.env = env
        self.cwd = cwd
        self.startup_timeout = startup_timeout
        self.delete_jobs = delete_jobs
        self.tmp = tempfile.mkdtemp(prefix="t2t_check_")
        self.queue: queue.Queue = queue.Queue()
        self.records: dict = {}
        self._lock = threading.Lock()
        self._n = 0
        self._threads = []
        self._closed = False
        self._probe = None
        self._probe_lock = threading.Lock()
        self._procs: set = set()

    # -- public -----------------------------------------------------------------------------
    def submit(self, job_path, meta: dict | None = None) -> int:
        meta = meta if meta is not None else read_meta(job_path)
        with self._lock:
            idx = self._n
            self._n += 1
        if len(self._threads) < self.n_workers:
            t = threading.Thread(target=self._loop, args=(len(self._threads),), daemon=True)
            self._threads.append(t)
            t.start()
        self.queue.put((idx, str(job_path), meta))
        return idx

    def add_record(self, record: dict) -> int:
        """A verdict decided without a worker (a skipped config, an unsnapshottable launch)."""
        with self._lock:
            idx = self._n
            self._n += 1
        rec = dict(record)
        rec.setdefault("backend", self.backend)
        rec["index"] = idx
        self._store(idx, rec)
        return idx

    def pending(self) -> int:
        with self._lock:
            return self._n - len(self.records)

    def wait(self, indices=None, timeout=None) -> list[dict]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                if indices is None:
                    done = len(self.records) >= self._n
                else:
                    done = all(i in self.records for i in indices)
            if done:
                break
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(0.02)
        with self._lock:
            keys = sorted(self.records) if indices is None else \
                [i for i in indices if i in self.records]
            return [self.records[k] for k in keys]

    def close(self, abort: bool = False):
        """Stop the workers. `abort`: kill them now instead of letting running checks end."""
        if self._closed:
            return
        self._closed = True
        if abort:
            while not self.queue.empty():
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    break
            for w in list(self._procs):
                w.kill()
        for _ in self._threads:
            self.queue.put(None)
        for t in self._threads:
            t.join(timeout=60)
        with self._probe_lock:
            if self._probe is not None:
                self._probe.stop()
                self._probe = None
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- internals ------------------------------------------------------------------------------
    def _store(self, idx, rec):
        with self._lock:
            self.records[idx] = rec
        if self.on_result:
            try:
                self.on_result(rec)
            except Exception as e:  # noqa: BLE001
                print(f"tile2triton check: progress callback failed: {e}", file=sys.stderr)

    def _limit(self, stage):
        if stage == "compile":
            return self.compile_timeout
        if stage in ("translation", "original") and self.backend == "gpu":
            return self.compile_timeout + self.timeout     # the first run compiles
        return self.timeout

    def _loop(self, slot):
        worker = None
        while True:
            item = self.queue.get()
            if item is None:
                break
            idx, job_path, meta = item
            t0 = time.monotonic()
            try:
                res = None
                if self.backend == "cpu" and self.compile_probe:
                    kf = str(Path(meta.get("kernel_file") or "").resolve())
                    res = self._compile_check(job_path, self.overrides.get(kf)
                                              or meta.get("translation"))
                if res is not None:
                    raise _Decided(res)
                if worker is None or not worker.alive():
                    worker = _WorkerProc(self, slot)
                res, worker = self._check(worker, job_path, meta, slot)
            except _Decided as d:
                res = d.result
            except Exception as e:  # noqa: BLE001 - the supervisor must keep going
                res = dict(verdict="error", findings=[dict(
                    kind="error", detail=f"checker failure: {type(e).__name__}: {e}")])
                if worker is not None:
                    worker.kill()
                worker = None
            rec = self._record(idx, job_path, meta, res)
            rec["seconds"] = round(time.monotonic() - t0, 3)
            if self.delete_jobs:
                for f in (job_path, f"{job_path}.meta.json"):
                    try:
                        os.unlink(f)
                    except OSError:
                        pass
            self._store(idx, rec)
        if worker is not None:
            worker.stop()

    def _compile_check(self, job_path, override):
        """CPU backend: compile the translation with Triton's front end (compile_probe.py) in
        the session's probe process. Returns a result dict when the launch is decided here."""
        from .compile_probe import findings_from
        with self._probe_lock:
            try:
                if self._probe is None or not self._probe.alive():
                    self._probe = _WorkerProc(self, "probe", "tile2triton.verify.compile_probe",
                                              args=[], env_drop=("TRITON_INTERPRET",))
                self._probe.send(dict(job=str(job_path), override=override))
                reply = self._probe.read(time.monotonic() + self.compile_timeout)
            except EOFError:
                # The probe also runs the launcher's host code: a crash there is found (and
                # reported) again by the worker, which runs the same code for real.
                self._probe.kill()
                self._probe = None
                return None
            if reply is None:
                self._probe.kill()
                self._probe = None
                return dict(verdict="timeout", findings=[dict(
                    kind="timeout", stage="compile", seconds=self.compile_timeout,
                    detail=f"compiling the translation took more than "
                    f"{self.compile_timeout:g} s")])
        if "error" in reply:
            return None
        found = findings_from(reply)
        if found:
            return dict(verdict="compile-error", findings=found)
        return None

    def _check(self, worker, job_path, meta, slot):
        kernel_file = str(Path(meta.get("kernel_file") or "").resolve())
        override = self.overrides.get(kernel_file) or meta.get("translation")
        req = dict(type="job", path=job_path, race=self.race,
                   overrides={kernel_file: override} if override else {})
        worker.send(req)
        stage = "start"
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                msg = worker.read(deadline)
            except EOFError:
                rc = worker.proc.wait()
                tail = worker.log_tail()
                worker.kill()
                res = self._died(stage, rc, tail)
                if res["verdict"] == "illegal-address" and self.sanitizer:
                    res["findings"][0]["sanitizer"] = self._sanitize(job_path)
                return res, None
            if msg is None:
                worker.kill()
                limit = self._limit(stage)
                return dict(verdict="timeout", findings=[dict(
                    kind="timeout", stage=stage, seconds=limit,
                    detail=f"no progress for {limit:g} s while {_stage_words(stage)}")]), None
            if msg.get("type") == "stage":
                stage = msg.get("stage") or stage
                deadline = time.monotonic() + self._limit(stage)
                continue
            if msg.get("type") == "result":
                msg.pop("type", None)
                if msg.get("fatal"):
                    worker.kill()
                    if msg.get("verdict") == "illegal-address" and self.sanitizer:
                        msg["findings"][0]["sanitizer"] = self._sanitize(job_path)
                    return msg, None
                return msg, worker

    def _died(self, stage, rc, tail) -> dict:
        how = f"signal {signal.Signals(-rc).name}" if rc and rc < 0 else f"exit status {rc}"
        detail = f"the worker died ({how}) while {_stage_words(stage)}"
        if stage in ORIGINAL_STAGES:
            return dict(verdict="original-failed", findings=[dict(
                kind="original-failed", detail=detail, log=tail)])
        if stage in TRANSLATION_STAGES or stage == "compile":
            return dict(verdict="illegal-address", findings=[dict(
                kind="illegal-address", detail=detail + " (a memory fault)", log=tail)])
        return dict(verdict="error", findings=[dict(kind="error", detail=detail, log=tail)])

    def _sanitize(self, job_path) -> str:
        out = Path(self.tmp) / f"sanitize-{time.time_ns()}.json"
        cmd = [self.sanitizer, "--tool", "memcheck", "--print-limit", "20", self.python, "-m",
               "tile2triton.verify.worker", "--backend", self.backend, "--one-shot",
               str(job_path), "--result", str(out), "--only", "translation"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=child_env(self.env, self.backend),
                               timeout=max(600.0, 10 * self.timeout), cwd=self.cwd)
            text = p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            text = f"compute-sanitizer timed out: {(e.stdout or '')[-2000:]}"
        except OSError as e:
            text = f"compute-sanitizer could not run: {e}"
        lines = [ln for ln in text.splitlines() if ln.startswith("=========")]
        return "\n".join(lines[:80]) or text[-4000:]

    def _record(self, idx, job_path, meta, res) -> dict:
        rec = dict(index=idx, case=meta.get("case") or meta.get("label") or "?",
                   config=meta.get("config"), seed=meta.get("seed"),
                   launch_index=meta.get("launch_index"), kernel=meta.get("kernel"),
                   kernel_file=meta.get("kernel_file"), grid=meta.get("grid"),
                   backend=self.backend, source=meta.get("source"))
        for key in ("test", "graph_capture", "subprocess", "artifact"):
            if meta.get(key):
                rec[key] = meta[key]
        res = dict(res)
        res.pop("fatal", None)
        if res.get("verdict") == "original-failed" and meta.get("program_ok"):
            # The original went through in the program; only its replay here failed. That is a
            # limit of the checker, not a failure of the original.
            failed = next((f for f in res.get("findings") or []
                           if f.get("kind") == "original-failed"), {})
            why = failed.get("detail") or ""
            res["verdict"] = "not-checked"
            if failed.get("cuda_error"):
                # A kernel's failure shows at a later synchronization, not in ct.launch: the
                # program's launch call returning says nothing about how the kernel ended.
                res["reason"] = (
                    f"{why[:300]} when the checker replayed it; in the program its launch call "
                    "returned, and a kernel that fails shows it only at a later synchronization, "
                    "so whether it failed there too is not known here"
                    + ("; its kernel has a ct.assert_, and a failed assertion ends a cuTile "
                       "kernel this way, but the error does not say so"
                       if failed.get("has_assert") else ""))
            else:
                res["reason"] = ("the original ran in the program, but could not be replayed "
                                 f"by the checker: {why}")[:600]
            res["findings"] = [dict(kind="not-checked", detail=res["reason"])] + [
                f for f in res.get("findings") or [] if f.get("kind") != "original-failed"]
        rec.update(res)
        rec.setdefault("findings", [])
        rec.setdefault("metrics", {})
        return rec


class _Decided(Exception):
    def __init__(self, result):
        super().__init__("decided")
        self.result = result


def _stage_words(stage) -> str:
    return {
        "start": "starting the check", "load": "loading the launch's arguments",
        "load-original": "importing the original kernel", "translate": "translating",
        "compile": "compiling the translation", "original": "running the original",
        "translation": "running (and compiling) the translation",
        "translation-race": "running the translation a second time",
        "original-poisoned": "running the original on poisoned outputs",
        "translation-poisoned": "running the translation on poisoned outputs",
        "original-canary": "running the original on canary-filled outputs",
        "translation-canary": "running the translation on canary-filled outputs",
        "compare": "comparing results",
    }.get(stage, stage or "?")
