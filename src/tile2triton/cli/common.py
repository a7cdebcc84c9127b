"""What every subcommand shares: the common options (-q/-v/--progress), verbosity,
the progress line, [tool.tile2triton] loading, and report files that never overwrite sources.
Kept apart from cli.py so that subcommand modules (verify/cli.py, ...) import it without
importing the command-line entry point."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ..diagnostics import UsageError
from .files import same_file, write_atomic


def common_options() -> argparse.ArgumentParser:
    """Options every subcommand takes (also accepted before the subcommand)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("common options")
    g.add_argument("-q", "--quiet", action="count", default=argparse.SUPPRESS,
                   help="print only problems (no summary, no progress)")
    g.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                   help="say what happens to every file; -vv: tracebacks of internal errors")
    g.add_argument("--progress", action=argparse.BooleanOptionalAction,
                   default=argparse.SUPPRESS,
                   help="progress with a total and ETA on stderr (default: when stderr is a "
                   "terminal; never with -q)")
    return p


def verbosity(args) -> int:
    """-1 quiet, 0 normal, 1+ verbose."""
    q, v = getattr(args, "quiet", 0) or 0, getattr(args, "verbose", 0) or 0
    return -1 if q else v


class Progress:
    """`[ 12/40]  30%  eta 0:05  path` on stderr; redrawn in place on a terminal, a line at most
    every few seconds otherwise (only with --progress)."""

    def __init__(self, total: int, args, unit: str = "files"):
        self.total, self.unit = total, unit
        forced = getattr(args, "progress", None)
        self.tty = sys.stderr.isatty()
        self.enabled = verbosity(args) >= 0 and total > 1 and (
            forced if forced is not None else self.tty)
        self.t0 = time.monotonic()
        self.done = 0
        self._last = 0.0
        self._shown = False
        self._label = ""

    def text(self, label: str = "") -> str:
        elapsed = time.monotonic() - self.t0
        pct = 100.0 * self.done / self.total if self.total else 100.0
        if self.done:
            left = elapsed / self.done * (self.total - self.done)
            eta = f"eta {int(left) // 60}:{int(left) % 60:02d}"
        else:
            eta = "eta -:--"
        w = len(str(self.total))
        return f"[{self.done:{w}d}/{self.total} {self.unit}] {pct:3.0f}%  {eta}  {label}"

    def update(self, label: str = "", step: int = 1) -> None:
        self.done += step
        self.show(label)

    def show(self, label: str = "") -> None:
        if not self.enabled:
            return
        self._label = label
        now = time.monotonic()
        if self.tty:
            cols = 100
            try:
                cols = os.get_terminal_size(sys.stderr.fileno()).columns
            except OSError:
                pass
            sys.stderr.write("\r\x1b[K" + self.text(label)[:max(cols - 1, 20)])
            sys.stderr.flush()
            self._shown = True
        elif now - self._last >= 2.0 or self.done == self.total:
            self._last = now
            print(self.text(label), file=sys.stderr, flush=True)

    def redraw(self) -> None:
        """After other output on stderr (terminal only)."""
        if self.enabled and self.tty:
            self.show(self._label)

    def clear(self) -> None:
        """Before other output on stderr."""
        if self.enabled and self.tty and self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self._shown = False


def load_config(args, paths):
    """Settings from [tool.tile2triton] (UsageError when the file is wrong)."""
    from .inputs import ConfigError, find_config, load_settings
    config = getattr(args, "config", None)
    try:
        if config is not None and not os.path.isfile(config):
            raise UsageError(f"--config: no such file: {config}")
        return load_settings(Path(config) if config else find_config(paths))
    except ConfigError as e:
        raise UsageError(str(e)) from None


PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")


def is_python_source(target: str) -> bool:
    """Whether `target` names a Python file, itself or through a symlink (`report.json` ->
    `kernels.py`): a report is never written there."""
    return str(target).endswith(PYTHON_SUFFIXES) or \
        os.path.realpath(target).endswith(PYTHON_SUFFIXES)


def check_report_path(option: str, target: str, inputs=(), outputs=()) -> None:
    """A report (--json/--html) never overwrites an input, an output, or any Python file."""
    if target == "-":
        return
    if is_python_source(target) or any(same_file(target, p) for p in inputs):
        raise UsageError(f"{option} {target}: refusing to write a report over a source file "
                         "(give a new file name, or - for stdout)")
    if any(same_file(target, p) for p in outputs):
        raise UsageError(f"{option} {target}: the same file is also a translation output")
    if os.path.isdir(target):
        raise UsageError(f"{option} {target}: is a directory")


def write_report(target: str, text: str) -> None:
    """A report to a file (atomically) or to stdout for `-`."""
    if target == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_atomic(target, text)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, like Ctrl-C: the same clean-up runs (a
    temporary file unlinked, child processes stopped, a spool folder removed) instead of the
    process vanishing mid-write."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def terminate_like_interrupt():
    """Make SIGTERM and SIGHUP raise Terminated while a command runs (where their handler is
    the default one, in the main thread); returns a function restoring the handlers."""
    import signal
    import threading
    saved = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                def handler(signum, frame):
                    raise Terminated(signum)
                saved[sig] = signal.signal(sig, handler)

    def restore():
        for sig, old in saved.items():
            signal.signal(sig, old)
    return restore

