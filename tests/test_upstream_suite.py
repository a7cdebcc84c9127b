"""benchmarks/upstream/: kernels in the styles of cuTile op libraries (issue 23), on the CPU.

Each translates here, and what the launcher chooses for their hints is pinned through the
compile probe of `tile2triton inspect` (sm_90, no GPU). The differential check of every CASES
configuration, `tile2triton check benchmarks/upstream --backend cpu`, takes about a minute on
two cores (a worker process per case), so it is not repeated here; bench compares the outputs
of both sides on the GPU.
"""
from pathlib import Path

import pytest

from tile2triton.translate import translate_source
from tile2triton.verify.inspection import inspect_case

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "benchmarks" / "upstream"
CASES = sorted(p.name for p in UPSTREAM.iterdir() if (p / "case.py").is_file())


def test_the_suite_has_the_kernels_the_issue_names():
    assert set(CASES) >= {"gemm_hints", "persistent_gemm", "decode_attention", "decode_combine",
                          "rmsnorm_persistent"}


@pytest.mark.parametrize("name", CASES)
def test_every_upstream_kernel_translates(name):
    path = UPSTREAM / name / "kernel.py"
    res = translate_source(path.read_text(), str(path))
    assert res.ok, [d.format() for d in res.diagnostics()]


def test_num_ctas_hint_becomes_a_cluster_of_ctas_on_sm90():
    """gemm_hints' BENCH configurations launch with num_ctas=2 (what cuTile op libraries
    set): the translation compiles for sm_90 as two CTAs per program (Triton's num_ctas, a
    cluster launch), its products still warp-group MMAs over TMA loads."""
    [rep] = inspect_case(UPSTREAM / "gemm_hints", bench_index=1, with_ptxas=False)
    assert rep.ok, rep.error
    assert rep.num_ctas == 2
    assert rep.wgmma_dots == rep.dots == 1 and rep.tma_loads > 0
