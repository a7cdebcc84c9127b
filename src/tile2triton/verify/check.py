"""Python API of the checker (the command line is in cli.py).

    from tile2triton.verify.check import check_case, check_launch

    records = check_case("corpus/softmax_rows", seeds=range(3))
    rec = check_launch(my_kernel, grid, (x, out, 128))           # one launch, here and now
    rec = check_launch(my_kernel, grid, args, translation="edited_triton.py")

Each record is one launch's verdict (see verdicts.py and docs/checking.md). The inputs are
produced in this process (the original runs here: on the reference interpreter for the CPU
backend, on cuTile for the GPU backend); the comparison runs in worker processes.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .intercept import Recorder, SpoolSink
from .supervisor import Supervisor


class _ListSink(SpoolSink):
    """A spool sink that also remembers what it wrote, in order."""

    def __init__(self, spool):
        super().__init__(spool, prefix="api")
        self.items: list = []

    def job(self, meta, snap):
        path = super().job(meta, snap)
        self.items.append(("job", path, meta))
        return path

    def note(self, record):
        path = super().note(record)
        self.items.append(("note", path, dict(record)))
        return path


def _default_backend():
    from .session import detect_backend
    return detect_backend()


def _run_items(items, supervisor, references):
    indices = []
    for kind, path, meta in items:
        if kind == "job" and meta.get("expected_rejection"):
            indices.append(supervisor.add_record(_launch_record(meta)))
        elif kind == "job":
            indices.append(supervisor.submit(path, meta))
        else:
            rec = dict(meta)
            t = rec.pop("type", "launch")
            if t == "reference":
                references.append(rec)
            elif t == "launch":
                indices.append(supervisor.add_record(rec))
    return indices


def _launch_record(meta) -> dict:
    """A launch's verdict decided without running a check (e.g. an expected rejection)."""
    keys = ("case", "config", "seed", "launch_index", "kernel", "kernel_file", "grid", "source",
            "test", "verdict", "findings", "program_raised", "artifact")
    return {k: meta[k] for k in keys if k in meta}


def check_case(case, seeds=(0,), backend=None, translation=None, configs=None,
               supervisor: Supervisor | None = None, references: list | None = None,
               **supervisor_options) -> list[dict]:
    """Check one corpus case folder; `translation` replaces the fresh translation of its
    kernel.py (e.g. a deliberately broken copy of expected.py). `configs`: indices into the
    case's CASES (default all). Reference checks of the original go to `references`."""
    from .corpus_driver import produce_case
    backend = backend or (supervisor.backend if supervisor else _default_backend())
    own = supervisor is None
    sup = supervisor or Supervisor(backend=backend, **supervisor_options)
    spool = tempfile.mkdtemp(prefix="t2t_api_")
    sink = _ListSink(spool)
    try:
        wrapped = _TranslationSink(sink, translation) if translation else sink
        produce_case(case, list(seeds), backend, wrapped, configs=configs)
        refs = references if references is not None else []
        indices = _run_items(sink.items, sup, refs)
        return sup.wait(indices)
    finally:
        if own:
            sup.close()
        shutil.rmtree(spool, ignore_errors=True)


class _TranslationSink:
    """Adds a translation override to every job's metadata."""

    def __init__(self, sink, translation):
        self.sink = sink
        self.translation = str(Path(translation).resolve())

    def job(self, meta, snap):
        from .artifacts import sha256
        meta = dict(meta, translation=self.translation, artifact=dict(
            mode="override", key="translation=", file=self.translation,
            sha256=sha256(Path(self.translation).read_text()),
            module=meta.get("source_file") or meta.get("kernel_file")))
        meta.pop("launcher", None)           # the file's own launch_<kernel>
        meta.pop("launcher_kwargs", None)
        return self.sink.job(meta, snap)

    def note(self, record):
        return self.sink.note(record)


def check_launch(kernel, grid, args, *, translation=None, backend=None,
                 supervisor: Supervisor | None = None, label=None,
                 **supervisor_options) -> dict:
    """Check one launch of `kernel` (a cuTile kernel object, real or interpreted) on `grid` with
    the kernel arguments `args`, against the translation of the kernel's file (or the Triton
    module `translation`). The arguments are snapshotted; they are not modified."""
    backend = backend or (supervisor.backend if supervisor else _default_backend())
    own = supervisor is None
    sup = supervisor or Supervisor(backend=backend, **supervisor_options)
    spool = tempfile.mkdtemp(prefix="t2t_api_")
    sink = _ListSink(spool)
    try:
        rec = Recorder(_TranslationSink(sink, translation) if translation else sink, backend,
                       source="api")
        rec.context = dict(case=label or getattr(kernel, "__name__", "launch"))
        rec.record(kernel, grid, args)
        indices = _run_items(sink.items, sup, [])
        return sup.wait(indices)[0]
    finally:
        if own:
            sup.close()
        shutil.rmtree(spool, ignore_errors=True)


_SHARED: dict = {}


def shared_supervisor(backend: str = "cpu", **options) -> Supervisor:
    """A process-wide supervisor per backend (its workers are reused by every caller; closed
    at exit). Handy for test suites that check many launches."""
    import atexit
    sup = _SHARED.get(backend)
    if sup is None or sup._closed:
        sup = _SHARED[backend] = Supervisor(backend=backend, **options)
        atexit.register(sup.close)
    return sup
