"""cuTile's own samples/ run through the runtime backend on the CPU (`tile2triton run --cpu`,
Triton's interpreter), with cuda.tile unimportable, each sample's own `--correctness-check`
the oracle (issue 29, docs/runtime.md).

The samples fix their sizes in their `__main__` blocks, sized for a GPU: at those sizes they
take from 12 s to minutes each under the interpreter. Here each runs from a copy in tmp_path
whose size constants (`SIZES`, named assignments of the `__main__` block) are smaller, most of
them not multiples of the samples' tiles; kernels, launches, references and tolerances are the
sample's own. A constant that is not found exactly as listed fails the test (the sample
changed), so no size is silently left large.

The samples come from a cuTile checkout: `T2T_CUTILE_SAMPLES` (its samples/ folder), else
/tmp/cutile/samples; `.ci/run` fetches one at a fixed revision. Without one the tests skip.
"""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("T2T_CUTILE_SAMPLES", "/tmp/cutile/samples"))

# sample -> ({constant of its __main__ block: value, or one value per assignment in order},
#            how many "Correctness check passed" lines a full pass prints)
SIZES = {
    "VectorAddition": ({"VECTOR_SIZE_1D": 3000, "VECTOR_SIZE_1D_GATHER": 3001,
                        "MATRIX_SHAPE_2D": (48, 96), "MATRIX_SHAPE_2D_GATHER": (50, 70)}, 4),
    "Transpose": ({"M_dim": 96, "N_dim": 64, "M_dim_non_mult": 100,
                   "N_dim_non_mult": 50}, 3),
    "MatMul": ({"M_dim": 96, "N_dim": 64, "K_dim": 80, "M_dim_non_mult": 100,
                "N_dim_non_mult": 50, "K_dim_non_mult": 70}, 4),
    "BatchMatMul": ({"BATCH_DIM": 2, "M_DIM": 96, "K_DIM": 80, "N_DIM": 160}, 1),
    "FFT": ({}, 1),
    "LayerNorm": ({"shape": (40, 1100)}, 1),
    "MoE": ({"num_tokens": 5, "hidden_size": 64, "num_experts": 8,
             "intermediate_size": 96, "topk": 2}, 1),
    "AttentionFMHA": ({"BATCH_SIZE": [1, 1], "NUM_HEADS": [2, 2], "SEQ_LEN_Q": [128, 100],
                       "SEQ_LEN_KV": [128, 100]}, 3),
}
# Not here: AllGatherMatmul (several GPUs, NCCL and symmetric memory; without NCCL it prints
# "Skipped test" and exits 0), BlockScaledMatMul (cuda.tile's private modules, sm_100 and
# ct.mma_scaled, which the translator does not translate). docs/runtime.md says more.


def resized(source: str, sizes: dict) -> str:
    """`source` with the named assignments of its `if __name__ == "__main__":` block given the
    values in `sizes` (a list: one value per assignment, in order)."""
    tree = ast.parse(source)
    [main] = [n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)]
    seen: dict = {}
    edits = []
    for node in main.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in sizes):
            name = node.targets[0].id
            want = sizes[name]
            k = seen.get(name, 0)
            seen[name] = k + 1
            if isinstance(want, list):
                assert k < len(want), f"{name} is assigned more than {len(want)} times"
                want = want[k]
            edits.append((node.value, repr(want)))
    for name, want in sizes.items():
        n = len(want) if isinstance(want, list) else 1
        assert seen.get(name) == n, f"{name}: {seen.get(name, 0)} assignments, expected {n}"
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out = source
    for value, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        # ast columns are UTF-8 byte offsets; these lines are ASCII
        start = offsets[value.lineno - 1] + value.col_offset
        end = offsets[value.end_lineno - 1] + value.end_col_offset
        out = out[:start] + text + out[end:]
    return out


def _hidden_cutile(tmp_path) -> Path:
    blocker = tmp_path / "hide_cutile" / "cuda" / "tile"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('cuda-tile is hidden')\n")
    return blocker.parents[1]


def test_resized_replaces_only_the_named_assignments():
    src = ("import x\nN = 5\n\nif __name__ == '__main__':\n    N = 1000\n    M = (4, 4)\n"
           "    print(N)\n    N = 7\n")
    out = resized(src, {"N": [10, 20], "M": (2, 3)})
    assert out == ("import x\nN = 5\n\nif __name__ == '__main__':\n    N = 10\n    M = (2, 3)\n"
                   "    print(N)\n    N = 20\n")
    with pytest.raises(AssertionError, match="K: 0 assignments"):
        resized(src, {"K": 1})


# One `tile2triton run --cpu` process runs every resized sample, one after another, each as
# __main__ with its own argv (python, torch and Triton start once: about 6 s of each sample's
# run on a loaded 2-core machine was that start).
DRIVER = """
import contextlib, io, json, runpy, sys, time, traceback
out, progs = sys.argv[1], sys.argv[2:]
results = {}
for prog in progs:
    buf = io.StringIO()
    sys.argv = [prog, "--correctness-check"]
    start = time.perf_counter()
    status, error = 0, ""
    with contextlib.redirect_stdout(buf):
        try:
            runpy.run_path(prog, run_name="__main__")
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            status, error = 1, traceback.format_exc()
    results[prog] = dict(status=status, stdout=buf.getvalue(), error=error,
                         seconds=round(time.perf_counter() - start, 1))
json.dump(results, open(out, "w"))
"""


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    if not SAMPLES.is_dir():
        pytest.skip(f"no cuTile samples at {SAMPLES} (set T2T_CUTILE_SAMPLES)")
    tmp = tmp_path_factory.mktemp("samples")
    progs = []
    for name, (sizes, _) in sorted(SIZES.items()):
        prog = tmp / f"{name}.py"
        prog.write_text(resized((SAMPLES / f"{name}.py").read_text(), sizes))
        progs.append(str(prog))
    (tmp / "driver.py").write_text(DRIVER)
    env = dict(os.environ)
    # the copies import the samples' own helpers (utils.benchmark) from their folder
    env["PYTHONPATH"] = os.pathsep.join([str(_hidden_cutile(tmp)), str(ROOT / "src"),
                                         str(SAMPLES)])
    env.pop("TRITON_INTERPRET", None)
    r = subprocess.run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python",
                        str(tmp / "driver.py"), str(tmp / "results.json"), *progs],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    results = json.loads((tmp / "results.json").read_text())
    return {Path(k).stem: v for k, v in results.items()}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_sample_passes_its_own_correctness_check_on_the_cpu(sample_runs, name):
    run = sample_runs[name]
    assert run["status"] == 0, run["stdout"][-3000:] + run["error"][-5000:]
    assert run["stdout"].count("Correctness check passed") == SIZES[name][1], run["stdout"][-3000:]
    assert "disabled" not in run["stdout"]
