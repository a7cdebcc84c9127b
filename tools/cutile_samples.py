"""cuTile's samples/ resized for Triton's interpreter: copies whose `__main__` size constants
are smaller (SIZES), and a driver that runs them one after another in one process, each as
__main__ with `--correctness-check`, each sample's own check the verdict.

    python tools/cutile_samples.py SAMPLES_DIR OUT_DIR    # OUT_DIR/<Sample>.py, OUT_DIR/driver.py
    tile2triton run --cpu [--record DIR] -- python OUT_DIR/driver.py RESULTS.json OUT_DIR/*.py

tests/test_runtime_samples.py runs them (docs/runtime.md); .ci/run records their launches for
`python -m tile2triton.portability --launches`. The samples fix their sizes for a GPU (12 s to
many minutes each under the interpreter); the copies keep the samples' kernels, launches,
references and tolerances, and most of the smaller sizes are not multiples of the samples'
tiles. A constant not found exactly as listed is an error (the sample changed), so no size is
silently left large.
"""
import ast
import sys
from pathlib import Path

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
# "Skipped test" and exits 0), BlockScaledMatMul (needs sm_100: before Blackwell it skips itself,
# under cuTile and the runtime alike, tests/test_runtime.py). docs/runtime.md says more.


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



def write(samples: Path, out: Path) -> list:
    """The resized copies of the samples in SIZES, and driver.py, written to `out`; the
    copies' paths. The driver finds the samples' own helpers (utils/) in `samples`."""
    out.mkdir(parents=True, exist_ok=True)
    progs = []
    for name, (sizes, _) in sorted(SIZES.items()):
        prog = out / f"{name}.py"
        prog.write_text(resized((samples / f"{name}.py").read_text(), sizes))
        progs.append(prog)
    (out / "driver.py").write_text(f"import sys\nsys.path.insert(0, {str(samples)!r})\n" + DRIVER)
    return progs


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for p in write(Path(sys.argv[1]), Path(sys.argv[2])):
        print(p)
