"""`convert -j N`: the translator starts once, in the parent, before the workers fork (they
inherit it); the largest files are handed out first, so that no long file starts last while
the other workers idle; the outcomes still come back in input order."""
import multiprocessing
import os
import sys
import time
from types import SimpleNamespace

import pytest

from tile2triton.cli import convert as cli
from tile2triton.cli.common import Progress


_BOTH_STARTED = None   # a Barrier the forked workers inherit
_waited = False


def _fake_translate(job):
    global _waited
    index, path, display = job[:3]
    if not _waited:   # each worker's first task waits for the other worker (a loaded machine
        _waited = True    # may start the second one late)
        _BOTH_STARTED.wait(timeout=120)
    started = time.monotonic()
    time.sleep(0.05)
    return cli.Outcome(index, path, display, source=(os.getpid(), started))


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the fake translation reaches the workers by forking")
def test_largest_first_in_two_workers_results_in_input_order(tmp_path, monkeypatch):
    sizes = [10, 5000, 20, 3000, 30, 4000, 40, 50]
    inputs = []
    for i, n in enumerate(sizes):
        f = tmp_path / f"k{i}.py"
        f.write_text("#" * n)
        inputs.append(SimpleNamespace(path=f))
    monkeypatch.setattr(cli, "translate_one", _fake_translate)
    monkeypatch.setattr(sys.modules[__name__], "_BOTH_STARTED", multiprocessing.Barrier(2))
    monkeypatch.setattr(cli, "_warmed", False)
    args = SimpleNamespace(quiet=1)
    outs = list(cli._outcomes(inputs, 2, Progress(len(inputs), args)))
    assert [o.index for o in outs] == list(range(len(sizes)))
    assert cli._warmed, "the parent warms the translator up before the workers start"
    started = sorted(range(len(sizes)), key=lambda i: outs[i].source[1])
    assert set(started[:3]) == {1, 3, 5}       # the three largest files started first
    assert len({o.source[0] for o in outs}) == 2 and os.getpid() not in {
        o.source[0] for o in outs}
