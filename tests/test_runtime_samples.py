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
    "AttentionFMHA": ({"BATCH_SIZE": [1, 1], "NUM_HEADS": [2, 2], "SEQ_LEN_Q": [128, 200],
                       "SEQ_LEN_KV": [128, 200]}, 3),
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


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"no cuTile samples at {SAMPLES} "
                    "(set T2T_CUTILE_SAMPLES)")
@pytest.mark.parametrize("name", sorted(SIZES))
def test_sample_passes_its_own_correctness_check_on_the_cpu(tmp_path, name):
    sizes, checks = SIZES[name]
    prog = tmp_path / f"{name}.py"
    prog.write_text(resized((SAMPLES / f"{name}.py").read_text(), sizes))
    env = dict(os.environ)
    # the copy imports the samples' own helpers (utils.benchmark) from their folder
    env["PYTHONPATH"] = os.pathsep.join([str(_hidden_cutile(tmp_path)), str(ROOT / "src"),
                                         str(SAMPLES)])
    env.pop("TRITON_INTERPRET", None)
    r = subprocess.run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python",
                        str(prog), "--correctness-check"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert r.stdout.count("Correctness check passed") == checks, r.stdout[-3000:]
    assert "disabled" not in r.stdout
