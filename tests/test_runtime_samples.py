"""cuTile's own samples/ run through the runtime backend on the CPU (`tile2triton run --cpu`,
Triton's interpreter), with cuda.tile unimportable, each sample's own `--correctness-check`
the oracle (issue 29, docs/runtime.md).

The samples fix their sizes in their `__main__` blocks, sized for a GPU: at those sizes they
take from 12 s to many minutes each under the interpreter. Here each runs from a copy whose
size constants are smaller (tools/cutile_samples.py: SIZES lists the samples and sizes);
kernels, launches, references and tolerances are the sample's own. All of them run in one
`tile2triton run --cpu` process (the driver), about 40 s on a loaded 2-core machine.

The samples come from a cuTile checkout: `T2T_CUTILE_SAMPLES` (its samples/ folder), else
/tmp/cutile/samples; `.ci/run` clones one at a fixed revision. Without one the sample test
skips.
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("T2T_CUTILE_SAMPLES", "/tmp/cutile/samples"))

_spec = importlib.util.spec_from_file_location("cutile_samples", ROOT / "tools" / "cutile_samples.py")
cutile_samples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cutile_samples)
SIZES = cutile_samples.SIZES


def _hidden_cutile(tmp_path) -> Path:
    """First on PYTHONPATH, a `cuda/tile` whose import fails: cuda-tile is installed in the
    test environment, and the samples must not need it."""
    blocker = tmp_path / "hide_cutile" / "cuda" / "tile"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('cuda-tile is hidden')\n")
    return blocker.parents[1]


def test_resized_replaces_only_the_named_assignments():
    src = ("import x\nN = 5\n\nif __name__ == '__main__':\n    N = 1000\n    M = (4, 4)\n"
           "    print(N)\n    N = 7\n")
    out = cutile_samples.resized(src, {"N": [10, 20], "M": (2, 3)})
    assert out == ("import x\nN = 5\n\nif __name__ == '__main__':\n    N = 10\n    M = (2, 3)\n"
                   "    print(N)\n    N = 20\n")
    with pytest.raises(AssertionError, match="K: 0 assignments"):
        cutile_samples.resized(src, {"K": 1})


@pytest.fixture
def sample_runs(tmp_path):
    if not SAMPLES.is_dir():
        pytest.skip(f"no cuTile samples at {SAMPLES} (set T2T_CUTILE_SAMPLES)")
    progs = cutile_samples.write(SAMPLES, tmp_path / "samples")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(_hidden_cutile(tmp_path)), str(ROOT / "src")])
    env.pop("TRITON_INTERPRET", None)
    results = tmp_path / "results.json"
    r = subprocess.run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python",
                        str(tmp_path / "samples" / "driver.py"), str(results),
                        *map(str, progs)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                       check=False)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    return {Path(k).stem: v for k, v in json.loads(results.read_text()).items()}


def test_every_sample_passes_its_own_correctness_check_on_the_cpu(sample_runs):
    """One test, not one per sample: the samples run in one process (the fixture), which a
    parametrized test would start once per pytest-xdist worker."""
    failures = []
    assert set(sample_runs) == set(SIZES)
    for name, (_, checks) in sorted(SIZES.items()):
        run = sample_runs[name]
        out = run["stdout"]
        if run["status"] != 0:
            failures.append(f"{name}: exit {run['status']}\n{out[-1500:]}\n{run['error'][-3000:]}")
        elif out.count("Correctness check passed") != checks or "disabled" in out:
            failures.append(f"{name}: {out.count('Correctness check passed')} of {checks} "
                            f"checks passed\n{out[-1500:]}")
    assert not failures, "\n\n".join(failures)
