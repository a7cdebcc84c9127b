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
    set): past 128x256 tiles the translation compiles for sm_90 as two CTAs per program
    (Triton's num_ctas, a cluster launch), its products still warp-group MMAs over TMA loads;
    at 128x256 one CTA, which GPU run 56 measured faster there (docs/performance.md)."""
    [rep] = inspect_case(UPSTREAM / "gemm_hints", bench_index=3, with_ptxas=False)
    assert rep.ok, rep.error
    assert rep.num_ctas == 2
    assert rep.wgmma_dots == rep.dots == 1 and rep.tma_loads > 0
    [rep] = inspect_case(UPSTREAM / "gemm_hints", bench_index=1, with_ptxas=False)
    assert rep.ok and rep.num_ctas == 1
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


def test_the_gpu_script_names_only_options_that_exist(capsys):
    """tools/gpu/perf_suite.sh runs once on the H200 with no second try: every tile2triton and
    run_suite.py option it passes exists (a renamed option fails here, not on the device)."""
    import re
    import shlex
    import sys

    from tile2triton.cli import build_parser
    text = (ROOT / "tools" / "gpu" / "perf_suite.sh").read_text().replace("\\\n", " ")
    bench = build_parser()._subparsers._group_actions[0].choices["bench"]
    known = set(bench._option_string_actions)
    calls = [line for line in text.splitlines() if "$T2T bench" in line]
    assert len(calls) >= 3
    for line in calls:
        for tok in shlex.split(line.split("$T2T bench", 1)[1].replace('"', " "), posix=False):
            if tok.startswith("--"):
                assert tok in known, f"bench has no option {tok}"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run_suite
    with pytest.raises(SystemExit):
        run_suite.main(["--help"])
    suite_help = capsys.readouterr().out
    used = {m for line in text.splitlines() if "run_suite.py" in line
            for m in re.findall(r"(--[a-z][a-z-]+)", line)}
    assert used and all(opt in suite_help for opt in used), used
