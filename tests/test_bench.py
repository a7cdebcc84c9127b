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


@pytest.mark.parametrize("name", sorted(p.name for p in SUITE.iterdir()
                                        if (p / "kernel.py").is_file()))
def test_every_suite_kernel_translates(name):
    path = SUITE / name / "kernel.py"
    res = translate_source(path.read_text(), str(path))
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "@triton.jit" in res.output


def test_bench_case_on_cpu_times_both_sides_on_identical_inputs():
    cfg = {"n": 1000, "tile": 128, "dtype": torch.float32}
    recs = bench.bench_case(SUITE / "vector_add", configs=[cfg], rounds=2,
                            variants=bench.parse_variants("num_warps=2"), log=lambda m: None)
    assert len(recs) == 1
    r = recs[0]
    assert r["status"] == "ok", r.get("traceback")
    assert r["rel_err_vs_cutile"] == 0.0           # an exact elementwise sum on both sides
    assert r["bytes"] == 3 * 1000 * 4               # from case.py's work()
    assert r["unit"] == "GB/s" and r["reference"] == "copy"
    assert r["ratio"] == pytest.approx(r["cutile_ms"] / r["translation_ms"])
    assert r["variants"][0]["options"] == {"num_warps": 2} and r["variants"][0]["ms"] > 0


def test_bench_case_reports_a_failing_config_and_goes_on():
    bad = {"n": -5, "tile": 128, "dtype": torch.float32}      # make_args raises
    good = {"n": 300, "tile": 128, "dtype": torch.float32}
    recs = bench.bench_case(SUITE / "vector_add", configs=[bad, good], rounds=1,
                            log=lambda m: None)
    assert [r["status"] for r in recs] == ["error", "ok"]
    assert "RuntimeError" in recs[0]["detail"] or "Error" in recs[0]["detail"]


def test_variant_override_reaches_the_launchers_kernel_call():
    calls = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *a, **kw: calls.append((grid, a, kw))

    class Module:
        k = Kernel()

        @staticmethod
        def launch_k(grid):
            Module.k[grid](1, num_warps=4, num_stages=3)

    with bench.with_variant(Module, {"num_warps": 8}):
        Module.launch_k((2,))
    Module.launch_k((3,))
    assert calls == [((2,), (1,), dict(num_warps=8, num_stages=3)),
                     ((3,), (1,), dict(num_warps=4, num_stages=3))]


def test_markdown_table_geometric_mean_and_failures():
    ok = dict(status="ok", case="a", config="x", cutile_ms=2.0, translation_ms=1.0, ratio=2.0,
              translation_rate=10.0, unit="GB/s", reference="copy", reference_rate=20.0,
              translation_of_reference=0.5, rel_err_vs_cutile=0.0)
    ok2 = dict(ok, ratio=0.5, config="y")
    bad = dict(status="error", case="b", config="z", detail="RuntimeError: boom\nmore")
    text = bench.markdown_table([ok, ok2, bad])
    assert "| a | x | 2.0000 | 1.0000 | 2.00 | 10.0 GB/s | copy 20.0 | 50 % |" in text
    assert "| b | z | | | error | | RuntimeError: boom |" in text
    assert f"Geometric mean of the ratios: {math.sqrt(2.0 * 0.5):.3f} over 2" in text


def test_bench_without_gpu_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["bench", str(SUITE / "vector_add")]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(p.name for p in SUITE.iterdir()
                                        if (p / "case.py").is_file()))
def test_every_suite_case_passes_the_checker_on_cpu(name, tmp_path):
    """Each benchmark's small CASES (shapes not multiples of the tiles), reference interpreter
    against the translation, and the original against its float64 reference."""
    import json
    out = tmp_path / "check.json"
    code = main(["check", str(SUITE / name), "--backend", "cpu", "--jobs", "1", "-q",
                 "--json", str(out)])
    data = json.loads(out.read_text())
    verdicts = [r["verdict"] for r in data["launches"]]
    assert verdicts and set(verdicts) == {"pass"}, verdicts
    assert data["references"] and all(r["ok"] for r in data["references"])
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
