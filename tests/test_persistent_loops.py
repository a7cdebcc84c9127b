"""Persistent (grid-stride) loops over output tiles whose body is a loop of dots are emitted as
`tl.range(..., flatten=True)`: Triton software-pipelines only innermost loops, so without it the
pipeline drains and refills at every output tile (docs/performance.md, "persistent matmul").
The flattened form is pinned here and run under the interpreter on ragged shapes."""
from pathlib import Path

import pytest

from tile2triton import translate_source
from tile2triton.verify.corpus import compare, discover, load_module, run_case_config

ROOT = Path(__file__).resolve().parents[1]
FLAT = ("for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, tl.num_programs(0), "
        "flatten=True):")

HEADER = "import cuda.tile as ct\n\nConstInt = ct.Constant[int]\n\n\n"


def _translate(src, name="k.py"):
    res = translate_source(src, name)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    return res.output


def test_persistent_matmul_loop_is_flattened():
    path = ROOT / "benchmarks" / "suite" / "persistent_matmul" / "kernel.py"
    out = _translate(path.read_text(), str(path))
    assert FLAT in out
    assert out.count("flatten=True") == 1          # the inner K loop stays a plain range
    assert "for k in range(tl.cdiv(A_shape1, tk)):" in out


@pytest.mark.parametrize("body", [
    # a grid-stride loop without dots: nothing to pipeline across tiles
    "        ct.store(y, (t,), ct.load(x, (t,), (16,)) * 2)\n",
    # dots, but not inside an inner loop
    "        a = ct.load(x2, (t, 0), (16, 16))\n"
    "        ct.store(y2, (t, 0), ct.mma(a, a, ct.zeros((16, 16), ct.float32)))\n",
], ids=["no_dot", "no_inner_loop"])
def test_other_grid_stride_loops_keep_plain_range(body):
    src = HEADER + ("@ct.kernel\ndef k(x, y, x2, y2, n: ConstInt):\n"
                    "    for t in range(ct.bid(0), n, ct.num_blocks(0)):\n" + body)
    out = _translate(src)
    assert "for t in range(tl.program_id(0), n, tl.num_programs(0)):" in out
    assert "flatten" not in out


def test_loop_of_dots_not_strided_by_the_grid_keeps_plain_range():
    src = HEADER + '''@ct.kernel
def k(a, b, c, n: ConstInt):
    for t in range(ct.bid(0), n):
        acc = ct.zeros((16, 16), ct.float32)
        for i in range(4):
            acc = ct.mma(ct.load(a, (t, i), (16, 16)), ct.load(b, (i, 0), (16, 16)), acc)
        ct.store(c, (t, 0), acc)
'''
    out = _translate(src)
    assert "flatten" not in out and "for t in range(tl.program_id(0), n):" in out


@pytest.mark.parametrize("index", [0, 1])
def test_flattened_persistent_matmul_matches_float64(index, tmp_path):
    case = next(c for c in discover(ROOT / "benchmarks" / "suite")
                if c.name == "persistent_matmul")
    spec = case.spec()
    translated = tmp_path / "persistent_matmul_triton.py"
    translated.write_text(_translate(case.kernel_path.read_text(), str(case.kernel_path)))
    module = load_module(translated, f"t2t_persistent_flat_{index}")
    for name, (actual, expected, tol) in run_case_config(module, spec, spec.CASES[index], 3,
                                                         "cpu").items():
        m = compare(actual, expected, **tol)
        assert m["ok"], f"output {name!r}: {m}"
