"""Translations compile for GPUs that are not here (docs/runtime.md): NVIDIA sm_75, sm_80,
sm_90 and AMD gfx90a, gfx942, with the launch paths each takes (TMA only on sm_90, ptxas
options only on NVIDIA). Each target compiles in a process of its own, without Triton's
interpreter. The default run compiles three corpus cases and one launch recorded by the
runtime backend, which cover the launcher's target-dependent paths; `.ci/run` compiles the
whole corpus for every target (`python -m tile2triton.portability`)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.portability import TARGETS

ROOT = Path(__file__).resolve().parents[1]
# elementwise; a tensor-core product; an fp32 product on CUDA cores (ptxas -O1 on NVIDIA: the
# option ROCm's backend refused, which failed all 12 matrix kernels for gfx942)
CASES = ("vector_add_1d", "matmul_fp16", "matmul_fp32")
# an fp16 product over 16-byte aligned rows: TMA descriptors on sm_90, pointer loads elsewhere
ALIGNED = ROOT / "tests" / "fixtures" / "runtime" / "fp16_matmul.py"


def _env(tmp):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    env["TRITON_CACHE_DIR"] = str(tmp / "cache")     # compiled here, not found cached
    return env


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The launch of ALIGNED, recorded by `tile2triton run --cpu --record` (which runs it)."""
    folder = tmp_path_factory.mktemp("recorded")
    r = subprocess.run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--record",
                        str(folder), "--", "python", str(ALIGNED), "--correctness-check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Correctness check passed" in r.stdout, r.stderr[-3000:]
    assert len(list(folder.glob("*.pt"))) == 1
    return folder


@pytest.mark.parametrize("target", list(TARGETS))
def test_kernels_compile_for(target, recorded, tmp_path):
    out = tmp_path / "records.json"
    r = subprocess.run([sys.executable, "-m", "tile2triton.portability", *CASES,
                        "--launches", str(recorded), "--targets", target, "--json", str(out)],
                       cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True,
                       timeout=300)
    records = json.loads(out.read_text()) if out.exists() else []
    failures = [f"{x['source']}: {x['kernel']}: {x['error']}" for x in records if not x["ok"]]
    assert r.returncode == 0 and not failures, "\n".join(failures) or r.stdout + r.stderr
    assert all(x["target"] == target for x in records)
    by_source: dict = {}
    for x in records:
        by_source.setdefault(x["source"], []).append(x)
    assert set(by_source) == {*CASES, "fp16_matmul.py:matmul"}
    # TMA descriptors where the target has TMA, pointer loads elsewhere
    assert [x["tma"] for x in by_source["fp16_matmul.py:matmul"]] == [target == "sm_90"]
    assert not any(x["tma"] for x in by_source["vector_add_1d"])


def test_tf32_products_compile_for_gfx90a_as_fp32_products(tmp_path):
    """Triton's ROCm backend has tf32 only on gfx942 and refused tf32 products for gfx90a
    (MI200), which left two corpus cases out of its portability run. The launcher now allows
    the precision there (_tf32_options), and the backend computes those products with CDNA2's
    fp32 matrix instructions: exact fp32 products, within what tf32 promises. gfx942 keeps
    its tf32 (xf32) instructions."""
    out = tmp_path / "records.json"
    r = subprocess.run([sys.executable, "-m", "tile2triton.portability", "matmul_tf32",
                        "--targets", "gfx90a,gfx942", "--json", str(out)],
                       cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True,
                       timeout=300)
    records = json.loads(out.read_text()) if out.exists() else []
    assert r.returncode == 0 and records and all(x["ok"] for x in records), r.stdout + r.stderr
    ops = {t: {op for x in records if x["target"] == t for op in x["matrix_ops"]}
           for t in ("gfx90a", "gfx942")}
    assert ops["gfx90a"] and all(op.endswith("f32") and "xf32" not in op
                                 for op in ops["gfx90a"]), ops
    assert any("xf32" in op for op in ops["gfx942"]), ops
