#!/usr/bin/env bash
# Issue 23's GPU measurements in one shot on the H200, within ~9 minutes, everything under $OUT:
#   1. benchmarks/upstream/ (kernels in the styles of cuTile op libraries) at fixed BENCH
#      configurations, then launch-option sweeps of the translation with the time left
#   2. the same kernels at the configuration ct.tune chooses on real cuTile (bench --exec of
#      benchmarks/upstream/tuned.py; both sides at cuTile's choice, the translation's own best
#      launch options beside it)
#   3. cuTile's own samples and test/bench_*.py programs through bench --exec
#   4. the existing suite (benchmarks/suite) with launcher host time against ct.launch and a
#      raw Triton launch, the combine kernel of split-KV decode included
# Run from the repository root (needs src/ and benchmarks/, not docs/ or tests/):
#   source .gpu/activate.sh && T2T_BENCH_COMMIT=<hash> tools/gpu/perf_suite.sh
# $OUT/summary.md collects every table; each step's log is $OUT/<step>.log. A step that fails
# or runs out of time is recorded and the next one runs.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
ROOT=$(pwd)
UP=.cutile
T0=$(date +%s)
SUMMARY="$OUT/summary.md"
PY=${PYTHON:-python3}
T2T="$PY -m tile2triton"

elapsed() { echo $(( $(date +%s) - T0 )); }
note() { echo "[$(elapsed)s] $*" | tee -a "$OUT/progress.log"; }

# step NAME SECONDS CMD...: run with a hard time limit, log kept, status noted
step() {
  local name=$1 limit=$2; shift 2
  note "start $name (limit ${limit}s)"
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  note "end $name: exit $rc"
  echo "$name: exit $rc after $(elapsed)s" >> "$OUT/status.txt"
  return 0
}

{
  echo "# Issue 23 performance run"
  echo
  echo "commit ${T2T_BENCH_COMMIT:-unknown}, $(date -u '+%Y-%m-%d %H:%M UTC'), $($PY -c 'import torch; print(torch.cuda.get_device_name())' 2>&1)"
} > "$SUMMARY"

# 1. the upstream-style suite at its BENCH configurations (fixed tiles and hints), sweeps after
step upstream_suite 165 $PY benchmarks/run_suite.py --suite benchmarks/upstream \
  --out "$OUT/upstream.json" --md "$OUT/upstream.md" --budget-s 150 --rounds 7 \
  --case-timeout 70 --no-overhead

# 2. at cuTile's tuned configuration: ct.tune runs on real cuTile inside the program
step upstream_tuned 130 $T2T bench --exec "$PY benchmarks/upstream/tuned.py" --rounds 7 \
  --max-launches 12 --variants "num_warps=4,8" \
  --json "$OUT/upstream_tuned.json" --md "$OUT/upstream_tuned.md"

# 3. cuTile's own programs: samples at their own sizes, bench_*.py where pytest-benchmark is
if [ -d "$UP/samples" ]; then
  for s in MatMul AttentionFMHA LayerNorm; do
    step "sample_$s" 35 sh -c "cd $UP/samples && $T2T bench --exec '$PY $s.py' --rounds 5 \
      --max-launches 8 --json '$ROOT/$OUT/sample_$s.json' --md '$ROOT/$OUT/sample_$s.md'"
  done
  if $PY -c "import pytest_benchmark" 2>/dev/null; then
    for b in bench_rms_norm bench_attention; do
      step "upstream_$b" 35 sh -c "cd $UP/test && $T2T bench --exec \
        '$PY -m pytest $b.py -q -x -k cutile --benchmark-disable -p no:cacheprovider' \
        --rounds 5 --max-launches 6 --json '$ROOT/$OUT/$b.json' --md '$ROOT/$OUT/$b.md'"
    done
  else
    note "test/bench_*.py not run: pytest-benchmark is not installed here"
    echo "test/bench_*.py: not run (pytest-benchmark not installed)" >> "$OUT/status.txt"
  fi
else
  note "no $UP/: cuTile's samples and bench programs not run"
  echo "samples: not run (no $UP/)" >> "$OUT/status.txt"
fi

# 4. the existing suite, then launcher host time (vector add, TMA matmul, decode combine)
left=$(( 560 - $(elapsed) ))
[ $left -lt 120 ] && left=120
step existing_suite $left $PY benchmarks/run_suite.py --out "$OUT/perf.json" --md "$OUT/perf.md" \
  --budget-s $(( left - 15 )) --rounds 7 --case-timeout 60 --no-sweeps

{
  echo
  echo "## Step status"
  echo
  sed 's/^/- /' "$OUT/status.txt"
  for f in upstream upstream_tuned sample_MatMul sample_AttentionFMHA sample_LayerNorm \
           bench_rms_norm bench_attention perf; do
    if [ -f "$OUT/$f.md" ]; then
      echo
      echo "## $f"
      echo
      cat "$OUT/$f.md"
    fi
  done
} >> "$SUMMARY"
note "done; summary in $SUMMARY"
