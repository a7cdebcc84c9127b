#!/usr/bin/env bash
# Issue 27, what one GPU allows: `check --gpus 0` and `--gpus all` on a one-GPU host agree,
# launch by launch, with the default (the current GPU), on a fixed part of the corpus.
set -u
cases="corpus/vector_add_2d corpus/softmax_rows corpus/matmul_fp16 corpus/rmsnorm corpus/histogram_atomic corpus/cumsum_rows"
for mode in default 0 all; do
  args=(); [ "$mode" = default ] || args=(--gpus "$mode")
  start=$(date +%s.%N)
  python -m tile2triton check $cases --backend gpu -j 2 "${args[@]}" --json "$OUT/gpus_$mode.json" -q
  echo "gpus=$mode rc=$? wall=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 1))") s"
done
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
def verdicts(mode):
    data = json.loads((out / f"gpus_{mode}.json").read_text())
    return {(r["case"], r["config"], r["seed"], r["launch_index"]): r["verdict"]
            for r in data["launches"]}
base = verdicts("default")
for mode in ("0", "all"):
    other = verdicts(mode)
    same = sum(1 for k in base if other.get(k) == base[k])
    print(f"--gpus {mode}: {same}/{len(base)} launches with the same verdict as the default; "
          f"verdicts {sorted(set(other.values()))}")
PY
