"""Lines from a child process's stdout, with a deadline.

Reads the raw descriptor and keeps its own buffer: select() on a buffered file object misses
lines already pulled into that buffer, so a child that printed two lines at once looked silent
until the timeout (the fuzz harness called such inputs hangs; CI, stop 30)."""
from __future__ import annotations

import os
import select
import time


class PipeLines:
    def __init__(self, fd: int):
        self.fd, self.buf = fd, b""

    def next(self, deadline: float) -> bytes | None:
        """The next line without its newline; None when `deadline` (time.monotonic()) passes
        first; raises EOFError at the end of the output."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line
