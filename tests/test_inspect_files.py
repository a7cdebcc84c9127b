"""`tile2triton inspect` on a user's own kernel file: the launch given on the command line
(`--launch 'kernel[grid](x=float16[M, K], ..., TILE=64)'`) or in a file of such lines
(`--launch @FILE`); a kernel file without one gets a hint that inspect can follow; without
torch, a usage error (exit 2) that says what to install, never an internal error."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.diagnostics import UsageError
from tile2triton.verify.launch_spec import ArraySpec, parse_launch, read_launches

ROOT = Path(__file__).resolve().parents[1]

KERNELS = '''import cuda.tile as ct


@ct.kernel
def scale_rows(x, out, alpha: float, TILE: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, TILE))
    ct.store(out, (row, 0), t * alpha)


@ct.kernel
def matmul(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(a.shape[1], TK)):
        acc = ct.mma(ct.load(a, (bm, k), (TM, TK)), ct.load(b, (k, bn), (TK, TN)), acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))
'''


def _inspect(*argv, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "tile2triton", "inspect", *map(str, argv)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_parse_launch():
    spec = parse_launch("matmul[(7, 9)](float16[1000, 512], b=bf16[512, 1000], TM=128, "
                        "alpha=-0.5, flag=True, xs=[f32[3], f32[4, 5]])")
    assert spec.kernel == "matmul" and spec.grid == (7, 9)
    assert spec.args == [ArraySpec("float16", (1000, 512))]
    assert spec.kwargs == {"b": ArraySpec("bfloat16", (512, 1000)), "TM": 128, "alpha": -0.5,
                           "flag": True, "xs": [ArraySpec("float32", (3,)),
                                                ArraySpec("float32", (4, 5))]}
    assert parse_launch("k[12](n=3)").grid == (12,)


@pytest.mark.parametrize("spec, why, caret_under", [
    ("k[0](x=f32[4])", "the grid is a positive int", "0"),
    ("k[1, 2, 3, 4](x=f32[4])", "the grid is a positive int", "1"),
    ("k[1](x=float33[4])", "unknown dtype `float33`", "float33"),
    ("k[1](x=f32[n])", "extents must be non-negative integers", "n"),
    ("k[1](x='a')", "an argument is a number", "'a'"),
    ("k(x=f32[4])", "expected KERNEL[GRID](ARGUMENTS)", "k"),
])
def test_bad_launch_is_a_usage_error_with_a_caret(spec, why, caret_under):
    with pytest.raises(UsageError) as e:
        parse_launch(spec)
    text = str(e.value)
    assert why in text and "help: write the launch as" in text
    lines = text.splitlines()
    assert lines[1] == f"  {spec}" and lines[2].index("^") == 2 + spec.index(caret_under)


def test_launch_file_lines_and_comments(tmp_path):
    f = tmp_path / "launches.txt"
    f.write_text("# sizes the model uses\nk[4](x=f32[64])  # prefill\n\nk[8](x=f32[128])\n")
    assert [s.grid for s in read_launches([f"@{f}"])] == [(4,), (8,)]
    f.write_text("k[4](x=f32[64])\nk[](x)\n")
    with pytest.raises(UsageError, match=rf"{f}:2: "):
        read_launches([f"@{f}"])
    f.write_text("# nothing\n")
    with pytest.raises(UsageError, match="holds no launch"):
        read_launches([f"@{f}"])


def test_inspect_a_plain_kernel_file_at_a_launch(tmp_path):
    kernels = tmp_path / "my_kernels.py"
    kernels.write_text(KERNELS)
    launches = tmp_path / "launches.txt"
    launches.write_text("# a GEMM with extents that are not multiples of the tiles\n"
                        "matmul[(16, 16)](a=float16[1000, 520], b=float16[520, 1000], "
                        "c=float16[1000, 1000], TM=64, TN=64, TK=32)\n")
    report = tmp_path / "r.json"
    p = _inspect(kernels, "--launch", f"@{launches}", "--no-ptxas", "--json", report)
    assert p.returncode == 0, p.stdout + p.stderr
    (rec,) = json.loads(report.read_text())
    assert rec["kernel"] == "matmul" and rec["ok"] and rec["case"].endswith(":matmul[16, 16]")
    assert rec["dots"] == 1 and rec["wgmma_dots"] == 1     # the fp16 dot is a wgmma on sm_90
    assert f"{kernels}:matmul[16, 16]: matmul: 1/1 wgmma" in p.stdout


def test_launch_naming_no_kernel_of_the_file_is_a_usage_error(tmp_path):
    kernels = tmp_path / "my_kernels.py"
    kernels.write_text(KERNELS)
    p = _inspect(kernels, "--launch", "softmax[4](x=f32[4, 64])", "--no-ptxas")
    assert p.returncode == 2, p.stdout + p.stderr
    assert f"{kernels} has no kernel `softmax` (its kernels: matmul, scale_rows)" in p.stderr
    assert "Traceback" not in p.stderr + p.stdout


def test_plain_kernel_file_without_a_launch_gets_a_hint_inspect_accepts(tmp_path):
    kernels = tmp_path / "my_kernels.py"
    kernels.write_text(KERNELS)
    p = _inspect(kernels)
    assert p.returncode == 2
    assert "--exec" not in p.stderr
    assert "--launch 'scale_rows[GRID](x=..., out=..., alpha=..., TILE=...)'" in p.stderr


@pytest.mark.parametrize("with_launch", [False, True])
def test_without_torch_inspect_says_what_to_install(tmp_path, with_launch):
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    kernels = tmp_path / "my_kernels.py"
    kernels.write_text(KERNELS)
    argv = [kernels, "--launch", "scale_rows[4](f32[4, 64], f32[4, 64], 0.5, TILE=64)"] \
        if with_launch else [ROOT / "corpus" / "softmax_rows"]
    env = {"PYTHONPATH": os.pathsep.join([str(fake.parent), str(ROOT / "src")])}
    p = _inspect(*argv, env_extra=env)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.strip().splitlines() == [
        "tile2triton: error: inspect needs torch (not installed): install the [run] extra: "
        "pip install -e '.[run]' in a tile2triton checkout"]
