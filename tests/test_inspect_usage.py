"""`tile2triton inspect --bench N` / `--config N` out of range: a usage error at the case's
case.py (exit 2), before anything is compiled; no traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "suite"


def _inspect(*argv):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, "-m", "tile2triton", "inspect", *argv],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("flag,index", [("--bench", 99), ("--bench", -1), ("--config", 57)])
def test_index_out_of_range_is_a_located_usage_error(flag, index):
    case = SUITE / "softmax"
    p = _inspect(str(case), flag, str(index), "--no-ptxas")
    assert p.returncode == 2, p.stdout + p.stderr
    assert f"{case / 'case.py'}: {flag} {index} is out of range" in p.stderr
    assert "Traceback" not in p.stderr and "IndexError" not in p.stderr + p.stdout
    assert "inspected" not in p.stderr                 # nothing was inspected
