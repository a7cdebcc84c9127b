"""A checking session: producers (corpus cases, a user's program) write launch jobs into a spool
folder; the session feeds them to a Supervisor as they appear and collects the verdicts."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .supervisor import Supervisor, child_env


def detect_backend() -> str:
    """gpu when cuda.tile imports and CUDA is available, else cpu."""
    try:
        import torch
        if not torch.cuda.is_available():
            return "cpu"
        import cuda.tile  # noqa: F401
        return "gpu"
    except Exception:  # noqa: BLE001
        return "cpu"


class Session:
    def __init__(self, supervisor: Supervisor, log=None, mode: str = "static",
                 overrides: dict | None = None):
        self.sup = supervisor
        # what the producers' launches are checked against (artifacts.py)
        self.mode, self.overrides = mode, dict(overrides or {})
        self.spool = Path(tempfile.mkdtemp(prefix="t2t_spool_"))
        self.seen: set = set()
        self.references: list = []
        self.programs: list = []
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self._case_started: dict = {}
        self._current_case = None
        self.done_cases: set = set()

    # -- spool --------------------------------------------------------------------------------
    def poll(self) -> None:
        try:
            names = os.listdir(self.spool)
        except FileNotFoundError:
            return
        fresh = []
        for n in names:
            if n in self.seen or ".tmp" in n or n.endswith(".meta.json"):
                continue
            if not (n.endswith(".pt") or n.endswith(".json")):
                continue
            p = self.spool / n
            try:
                fresh.append((p.stat().st_mtime_ns, n, p))
            except FileNotFoundError:
                continue
        for _, n, p in sorted(fresh):
            self.seen.add(n)
            if n.endswith(".pt"):
                self.sup.submit(p)
                continue
            try:
                rec = json.loads(p.read_text())
            except (OSError, ValueError):
                self.seen.discard(n)
                continue
            kind = rec.pop("type", "launch")
            if kind == "reference":
                self.references.append(rec)
                if not rec.get("ok"):
                    self.log(f"  original disagrees with the float64 reference: {rec['case']}"
                             f"[{rec.get('config')}] seed={rec.get('seed')}")
            elif kind == "case-start":
                self._current_case = rec["case"]
                self._case_started[rec["case"]] = time.monotonic()
            elif kind == "case-done":
                self._current_case = None
                self.done_cases.add(rec["case"])
            elif kind == "tune":
                continue        # a ct.tune search's choice: for bench, no launch to judge
            else:
                self.sup.add_record(rec)

    # -- producers ----------------------------------------------------------------------------
    def run_program(self, argv, env, label, timeout=None, capture=False) -> int:
        """Run a producer process to completion (or timeout), feeding its jobs as they come."""
        t0 = time.monotonic()
        out = subprocess.PIPE if capture else None
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT
                                if capture else None, start_new_session=True)
        log_chunks = []
        if capture:
            import threading

            def drain():
                for line in iter(proc.stdout.readline, b""):
                    log_chunks.append(line)
            th = threading.Thread(target=drain, daemon=True)
            th.start()
        timed_out = False
        while proc.poll() is None:
            self.poll()
            time.sleep(0.05)
            if timeout is not None and time.monotonic() - t0 > timeout:
                timed_out = True
                _kill_group(proc)
                break
        proc.wait()
        self.poll()
        tail = b"".join(log_chunks)[-4000:].decode("utf-8", "replace") if capture else ""
        self.programs.append(dict(label=label, argv=argv, returncode=proc.returncode,
                                  timed_out=timed_out, seconds=round(time.monotonic() - t0, 2),
                                  output_tail=tail))
        return proc.returncode

    def _checking_env(self, env: dict) -> dict:
        from .artifacts import ENV_MODE, ENV_OVERRIDES
        env[ENV_MODE] = self.mode
        env[ENV_OVERRIDES] = json.dumps(self.overrides)
        return env

    def run_exec(self, command, backend, timeout=None) -> int:
        from .exec_shim import command_argv, make_site_dir, program_env
        site = make_site_dir()
        try:
            argv = command_argv(command)
            label = " ".join(argv[1:]) if argv and argv[0] == sys.executable else " ".join(argv)
            env = self._checking_env(program_env(self.spool, backend, site, label=label))
            rc = self.run_program(argv, env, label=command, timeout=timeout)
        finally:
            shutil.rmtree(site, ignore_errors=True)
        prog = self.programs[-1]
        if prog["timed_out"]:
            self.sup.add_record(dict(case=label, kernel=None, verdict="timeout", findings=[dict(
                kind="timeout", detail=f"the program did not finish in {timeout:g} s")]))
        elif rc != 0:
            self.log(f"  the program exited with status {rc}")
        return rc

    def run_corpus(self, cases, backend, seeds, case_timeout) -> None:
        """Corpus cases in one driver process; a case that hangs is recorded and skipped."""
        todo = [str(c) for c in cases]
        while todo:
            argv = [sys.executable, "-m", "tile2triton.verify.corpus_driver", "--spool",
                    str(self.spool), "--backend", backend, "--seeds",
                    ",".join(str(s) for s in seeds)] + todo
            proc = subprocess.Popen(argv, env=self._checking_env(child_env(backend=backend)),
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, start_new_session=True)
            err_chunks = []
            import threading
            th = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()),
                                  daemon=True)
            th.start()
            hung = None
            while proc.poll() is None:
                self.poll()
                time.sleep(0.05)
                cur = self._current_case
                if cur and time.monotonic() - self._case_started.get(cur, time.monotonic()) \
                        > case_timeout:
                    hung = cur
                    _kill_group(proc)
                    break
            proc.wait()
            th.join(timeout=5)
            self.poll()
            finished = [c for c in todo if Path(c).name in self.done_cases]
            if hung:
                self.sup.add_record(dict(case=hung, kernel=None, verdict="timeout", findings=[
                    dict(kind="timeout", stage="original", detail=(
                        f"the case's host function did not finish in {case_timeout:g} s "
                        "(running the original)"))]))
                finished.append(next(c for c in todo if Path(c).name == hung))
            elif proc.returncode != 0:
                err = b"".join(x for x in err_chunks if x)[-3000:].decode("utf-8", "replace")
                cur = self._current_case or (Path(todo[0]).name if todo else "?")
                self.sup.add_record(dict(case=cur, kernel=None, verdict="error", findings=[
                    dict(kind="error", detail=f"the corpus driver died (status "
                         f"{proc.returncode})", log=err)]))
                if cur:
                    finished.append(next((c for c in todo if Path(c).name == cur), todo[0]))
            self._current_case = None
            if not hung and proc.returncode == 0:
                finished = list(todo)
            if not finished:           # never loop on a driver that cannot start
                finished = todo[:1]
            todo = [c for c in todo if c not in finished]

    def finish(self) -> list[dict]:
        self.poll()
        records = self.sup.wait()
        self.sup.close()
        shutil.rmtree(self.spool, ignore_errors=True)
        return records


def _kill_group(proc):
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
