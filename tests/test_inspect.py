"""`tile2triton inspect` and the perf lint: translations compiled for sm_90 on the CPU.

Each compile takes seconds on CI's two cores, so the lint runs over a subset: the benchmark
suite's kernels at their GPU sizes (BENCH), where every slow form the lint knows has been fixed.
These tests also pin the fast forms of the generated code: a batched matmul's dot is a wgmma,
a row length that is a multiple of 8 but not of 16 still gives 16-byte loads.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.translate import translate_source

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "suite"

# (case, BENCH index): the GPU sizes the suite times
def inspect_case(case, bench_index=None, translation=None, extra=(), with_ptxas=False):
    """Records of `tile2triton inspect`, run in its own process: a process that has run kernels
    under TRITON_INTERPRET=1 holds interpreted copies of triton.language's own jit functions,
    which the compiler cannot use (as for the checker's compile probe)."""
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"t2t_inspect_{os.getpid()}_{case.name}.json"
    cmd = [sys.executable, "-c", "import sys; from tile2triton.cli import main; "
           "sys.exit(main(sys.argv[1:]))", "inspect", str(case), "--json", str(out)]
    cmd += ["--bench", str(bench_index)] if bench_index is not None else []
    cmd += ["--translation", str(translation)] if translation else []
    cmd += [] if with_ptxas else ["--no-ptxas"]
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    p = subprocess.run(cmd + list(extra), capture_output=True, text=True, env=env, timeout=600)
    assert out.exists(), p.stdout + p.stderr
    recs = json.loads(out.read_text())
    out.unlink()
    return recs, p


LINTED = [("matmul", 0), ("matmul", 3), ("batched_matmul", 0), ("layernorm_fwd", 0),
          ("vector_add", 1)]


@pytest.mark.parametrize("case,bench", LINTED, ids=[f"{c}-{b}" for c, b in LINTED])
def test_perf_lint_is_clean_on_the_suite(case, bench):
    reports, _ = inspect_case(SUITE / case, bench_index=bench)
    assert reports and all(r["ok"] for r in reports), [r.get("error") for r in reports]
    assert [f for r in reports for f in r["findings"]] == []


def test_batched_matmul_with_unit_batch_tiles_is_a_wgmma():
    (rep,), _ = inspect_case(SUITE / "batched_matmul", bench_index=0)
    assert rep["dots"] >= 1 and rep["wgmma_dots"] == rep["dots"]


def test_lint_flags_a_three_d_dot(tmp_path):
    path = SUITE / "batched_matmul" / "kernel.py"
    text = translate_source(path.read_text(), str(path)).output
    # the batched dot as translated (laid out over several lines): a 2-D dot between reshapes
    dot = text.index("tl.dot(")
    start = text.rindex("acc = tl.reshape(", 0, dot)
    end = text.index(")", text.index("(1, tm, tn),", dot) + len("(1, tm, tn),")) + 1
    fast = " ".join(text[start:end].split())
    assert fast.startswith("acc = tl.reshape( tl.dot( tl.reshape(a, (tm, tk)), tl.reshape(b, "
                           "(tk, tn)), tl.reshape(acc, (tm, tn)),"), fast
    slow = text[:start] + 'acc = tl.dot(a, b, acc, input_precision="ieee")' + text[end:]
    (tmp_path / "slow.py").write_text(slow)
    (rep,), _ = inspect_case(SUITE / "batched_matmul", bench_index=0,
                             translation=tmp_path / "slow.py")
    codes = [f["code"] for f in rep["findings"]]
    assert "T2P001" in codes and rep["wgmma_dots"] == 0


def test_inspect_command_reports_and_writes_json():
    (rec,), p = inspect_case(SUITE / "softmax", bench_index=0, with_ptxas=True,
                             extra=["--stage", "ttgir"])
    assert p.returncode == 0, p.stderr
    assert "softmax: softmax_kernel: no dots; ld.global" in p.stdout
    assert "----- softmax_kernel: ttgir -----" in p.stdout and "tt.func" in p.stdout
    assert rec["kernel"] == "softmax_kernel" and rec["registers"] > 0
    assert max(int(b) for b in rec["load_bytes"]) == 16     # 8 fp16 per load: vectorized


def test_row_length_multiple_of_8_reads_operands_through_tma():
    # K = 4088 fp16: rows of A are 8176 bytes apart, 16-byte aligned, so the launcher builds
    # TMA descriptors (before them, the x_div arguments made these 16-byte cp.async; the fp32
    # case below still checks that path)
    (rep,), _ = inspect_case(SUITE / "matmul", bench_index=3)
    assert rep["wgmma_dots"] == rep["dots"] == 1
    assert rep["tma_loads"] > 0 and not rep["load_bytes"] and not rep["cp_async_bytes"]
    assert (rep["num_warps"], rep["num_stages"]) == (4, 4)


def test_launcher_passes_the_multiples_it_checked():
    path = SUITE / "matmul" / "kernel.py"
    text = translate_source(path.read_text(), str(path)).output
    assert "    A_stride0 = A_stride0 // A_div[0] * A_div[0]\n" in text
    assert "    A_shape1 = A_shape1 // A_div[3] * A_div[3]\n" in text
    assert "        A_div=_multiples(A.shape, A.stride()),\n" in text
    ns = {}
    exec("import functools\nimport math\n", ns)
    start = text.index("@functools.lru_cache(1024)")
    exec(text[start:text.index("\n\n\n", start)], ns)
    import torch

    def multiples(t):  # as the launcher calls it
        return ns["_multiples"](t.shape, t.stride())
    # each stride, then each extent of the contiguous dimension (1 for the others)
    assert multiples(torch.empty(10, 4088)) == (8, 1, 1, 8)
    assert multiples(torch.empty(10, 64)[:, :30]) == (16, 1, 1, 2)
    # column-major (a K-major operand): the first extent bounds the vector loads
    assert multiples(torch.empty(12, 4096).T) == (1, 16, 16, 1)
    assert multiples(torch.empty(12, 4100).T) == (1, 4, 4, 1)
    assert multiples(torch.empty(5000, 2944)[:, :2900].T) == (1, 16, 4, 1)
    # math.gcd(v, 16) is the largest of 16, 8, 4, 2, 1 dividing v, for every int: 0 (an
    # empty dimension's stride or extent) and negative strides too
    for v in [*range(-300, 300), 2**31, 2**31 + 8, -(2**40) - 4, 3 * 2**50]:
        largest = next(m for m in (16, 8, 4, 2, 1) if v % m == 0)
        assert ns["_multiples"]((1,), (v,)) == (largest, 1), v
        assert ns["_multiples"]((v,), (1,)) == (1, largest), v


def test_grouped_gemm_over_lists_gets_16_byte_pipelined_loads():
    # pointers, shapes and strides come from device tables; the launcher's layout constexprs
    # (unit inner stride, checked multiples) give back what Triton needs to vectorize.
    # Before them: 128 two-byte loads, no cp.async pipeline, 1.3 KB of spills.
    (rep,), _ = inspect_case(SUITE / "grouped_gemm", bench_index=0)
    assert rep["wgmma_dots"] == rep["dots"] == 1
    assert set(rep["cp_async_bytes"]) == {"16"}
    assert all(int(b) >= 8 for b in rep["load_bytes"])   # only the 8-byte table entries
    assert rep["findings"] == []


def test_fp32_matmul_gets_a_k_major_b_and_16_byte_loads():
    # a tf32 product over a row-major B: Triton would fill wgmma's K-major buffer with one
    # 4-byte cp.async per element (96 per stage); the launcher's K-major copy (inspect
    # compiles for sm_90, so it makes the copy) leaves only 16-byte copies, even at K = 4088
    reps, _ = inspect_case(SUITE / "matmul", bench_index=7)
    assert sorted(r["kernel"] for r in reps) == ["_k_major_copy_kernel", "_tf32_round_kernel",
                                                 "matmul_kernel"]
    rep = next(r for r in reps if r["kernel"] == "matmul_kernel")
    # (both operands rounded to tf32 by the launcher: none in registers, one wgmma)
    assert rep["wgmma_dots"] == rep["dots"] == 1
    assert set(rep["cp_async_bytes"]) | set(rep["load_bytes"]) == {"16"}
    # the copy itself is a Triton transpose: 16-byte loads, no dot
    copy = next(r for r in reps if r["kernel"] == "_k_major_copy_kernel")
    assert copy["dots"] == 0 and set(copy["load_bytes"]) == {"16"}
