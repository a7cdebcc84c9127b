"""`tile2triton bench` and the benchmark suite, exercised on the CPU.

Real timings need the GPU (benchmarks/run_suite.py); here the reference interpreter stands in for
cuTile and the translation runs under TRITON_INTERPRET=1, which checks the plumbing: identical
inputs to both sides, the agreement check, the reference, launch-option variants, the tables.
"""
import math
from pathlib import Path

import pytest
import torch

from tile2triton.cli import main
from tile2triton.translate import translate_source
from tile2triton.verify import bench

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "suite"


def test_parse_variants_gives_every_combination():
    assert bench.parse_variants("") == []
    got = bench.parse_variants("num_warps=2,4;num_stages=3")
    assert got == [dict(num_warps=2, num_stages=3), dict(num_warps=4, num_stages=3)]
    # a string option (Triton's CUDAOptions.ptx_options) stays a string
    got = bench.parse_variants("num_warps=8;ptx_options=-O1,-O3")
    assert got == [dict(num_warps=8, ptx_options="-O1"), dict(num_warps=8, ptx_options="-O3")]


def test_every_suite_case_passes_the_checker_on_cpu(tmp_path):
    """Each benchmark's small CASES (shapes not multiples of the tiles), reference interpreter
    against the translation, and the original against its float64 reference. One `check` over
    every case (one worker's start-up instead of one per case: 145 s of CI time down to 30)."""
    import json
    names = sorted(p.name for p in SUITE.iterdir() if (p / "case.py").is_file())
    out = tmp_path / "check.json"
    code = main(["check", *(str(SUITE / n) for n in names), "--backend", "cpu", "--jobs", "1",
                 "-q", "--json", str(out)])
    data = json.loads(out.read_text())
    verdicts: dict = {n: [] for n in names}
    for r in data["launches"]:
        verdicts[r["case"].split("[")[0]].append(r["verdict"])
    wrong = {n: v for n, v in verdicts.items() if not v or set(v) != {"pass"}}
    assert not wrong, wrong     # every case launched, and every launch passed
    refs = {r["case"].split("[")[0] for r in data["references"]}
    assert refs == set(names) and all(r["ok"] for r in data["references"])
    assert code == 0


def test_bench_of_a_recorded_launch_takes_the_workers_translation_module(monkeypatch):
    """`bench --exec` times each recorded launch through `_bench_launch`, whose worker hands it
    the translation as (module, file). Until 44fbb5e it took the pair for the module, and every
    launch failed on the GPU ("'tuple' object has no attribute 'launch_k'", run 35). Here: a
    stand-in worker, the snapshot placed on the CPU, and ct.launch calling the original."""
    import types

    import cuda.tile as ct

    from tile2triton.verify import snapshot

    launched = []

    def original(x, y):                 # stands in for the cuTile kernel
        y.copy_(x * 2)

    def launch_k(stream, grid, x, y):   # and for the translation's launcher
        launched.append(grid)
        y.copy_(x * 2)

    class Worker:
        def original_module(self, kernel_file, modname):
            return types.SimpleNamespace(k=original)

        def translation(self, kernel_file, modname, override):
            return types.SimpleNamespace(launch_k=launch_k), Path("k_triton.py")

    x = torch.randn(1000, generator=torch.Generator().manual_seed(4))

    class Placed:                       # each side gets its own copy of the recorded arguments
        def __init__(self, snap, device=None):
            self.args = (x.clone(), torch.full((1000,), float("nan")))
            self.views = list(self.args)

    monkeypatch.setattr(snapshot, "Placement", Placed)
    monkeypatch.setattr(ct, "launch", lambda stream, grid, kernel, args: kernel(*args))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda *a: None)
    recorded = types.SimpleNamespace(shape=(1000,), dtype=torch.float32)
    snap = types.SimpleNamespace(tensors=[recorded, recorded])
    rec = bench._bench_launch(Worker(), {"kernel": "k", "kernel_file": "k.py", "grid": [4]},
                              snap, 2, ())
    assert launched and all(g == (4,) for g in launched)
    assert rec["rel_err_vs_cutile"] == 0.0 and rec["ratio"] > 0
    assert rec["config"] == "(1000,):float32, (1000,):float32"
