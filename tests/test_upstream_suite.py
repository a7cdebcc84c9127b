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
from tile2triton.verify.inspection import inspect_case, launch_work_lint

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
    assert "T2P004" not in {f["code"] for f in rep.findings}      # 4096^3 is no small launch


def test_lint_flags_launches_bound_by_the_host():
    """T2P004: the combine kernel of split-KV decode moves about 2 MB; on an H200 that is well
    under the launcher's measured host time per launch, so the launch is timed as host work."""
    [rep] = inspect_case(UPSTREAM / "decode_combine", bench_index=1, with_ptxas=False)
    assert rep.ok, rep.error
    [finding] = [f for f in rep.findings if f["code"] == "T2P004"]
    assert "bound by the host" in finding["message"] and "CUDA graph" in finding["help"]
    assert launch_work_lint(8192 ** 2 * 6, 2 * 8192 ** 3) is None
    assert launch_work_lint(64 << 20, None) is None         # 64 MB: about 17 us of copying
    assert launch_work_lint(8 << 20, None)["code"] == "T2P004"
