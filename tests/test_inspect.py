"""`tile2triton inspect` and the perf lint: translations compiled for sm_90 on the CPU.

Each compile takes seconds on CI's two cores, so the lint runs over a subset: the benchmark
suite's kernels at their GPU sizes (BENCH), where every slow form the lint knows has been fixed.
These tests also pin the fast forms of the generated code: a batched matmul's dot is a wgmma,
a row length that is a multiple of 8 but not of 16 still gives 16-byte loads.
"""
import json
from pathlib import Path

import pytest

from tile2triton.cli import main
from tile2triton.translate import translate_source
from tile2triton.verify.inspection import inspect_case

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "suite"

# (case, BENCH index): the GPU sizes the suite times
LINTED = [("matmul", 0), ("matmul", 3), ("batched_matmul", 0), ("layernorm_fwd", 0),
          ("vector_add", 1)]


@pytest.mark.parametrize("case,bench", LINTED, ids=[f"{c}-{b}" for c, b in LINTED])
def test_perf_lint_is_clean_on_the_suite(case, bench):
    reports = inspect_case(SUITE / case, bench_index=bench, with_ptxas=False)
    assert reports and all(r.ok for r in reports), [r.error for r in reports]
    assert [f for r in reports for f in r.findings] == []


def test_batched_matmul_with_unit_batch_tiles_is_a_wgmma():
    (rep,) = inspect_case(SUITE / "batched_matmul", bench_index=0, with_ptxas=False)
    assert rep.dots >= 1 and rep.wgmma_dots == rep.dots


def test_lint_flags_a_three_d_dot(tmp_path):
    path = SUITE / "batched_matmul" / "kernel.py"
    text = translate_source(path.read_text(), str(path)).output
    fast = ("tl.reshape(tl.dot(tl.reshape(a, (tm, tk)), tl.reshape(b, (tk, tn)), "
            "tl.reshape(acc, (tm, tn))")
    assert fast in text
    start = text.index(fast)
    end = text.index("\n", start)
    slow = text[:start] + 'tl.dot(a, b, acc, input_precision="ieee")' + text[end:]
    (tmp_path / "slow.py").write_text(slow)
    (rep,) = inspect_case(SUITE / "batched_matmul", bench_index=0, with_ptxas=False,
                          translation=tmp_path / "slow.py")
    codes = [f["code"] for f in rep.findings]
    assert "T2P001" in codes and rep.wgmma_dots == 0


def test_inspect_command_reports_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["inspect", str(SUITE / "softmax"), "--bench", "0", "--json", str(out),
               "--stage", "ttgir"])
    text = capsys.readouterr().out
    assert rc == 0
    assert "softmax: softmax_kernel: no dots; ld.global" in text
    assert "----- softmax_kernel: ttgir -----" in text and "tt.func" in text
    (rec,) = json.loads(out.read_text())
    assert rec["kernel"] == "softmax_kernel" and rec["registers"] > 0
    assert max(int(b) for b in rec["load_bytes"]) == 16     # 8 fp16 per load: vectorized


def test_row_length_multiple_of_8_still_gives_16_byte_loads():
    # K = 4088: rows of A are 8176 bytes apart, 16-byte aligned, which Triton cannot see from
    # a stride that is not a multiple of 16; the launcher's x_div arguments tell it
    (rep,) = inspect_case(SUITE / "matmul", bench_index=3, with_ptxas=False)
    assert rep.wgmma_dots == rep.dots == 1
    assert set(rep.cp_async_bytes) | set(rep.load_bytes) == {16}


def test_launcher_passes_the_multiples_it_checked():
    path = SUITE / "matmul" / "kernel.py"
    text = translate_source(path.read_text(), str(path)).output
    assert "    A_stride0 = A_stride0 // A_div[0] * A_div[0]\n" in text
    assert "    A_shape1 = A_shape1 // A_div[1] * A_div[1]\n" in text
    assert "            A_div=_multiples(A),\n" in text
    ns = {}
    exec(text.split("\n\n\ndef _multiples", 1)[0].split("import triton.language as tl", 1)[0]
         + "import torch\n", ns)
    start = text.index("def _multiples(x):")
    exec(text[start:text.index("\n\n\n", start)], ns)
    import torch
    assert ns["_multiples"](torch.empty(10, 4088)) == (8, 8)
    assert ns["_multiples"](torch.empty(10, 64)[:, :30]) == (16, 2)
    assert ns["_multiples"](torch.empty(12, 4096).T) == (1, 4)
