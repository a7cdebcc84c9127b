#!/usr/bin/env bash
# Issue 23's GPU measurements in one shot on the H200, within ~9 minutes, everything under $OUT:
#   1. benchmarks/upstream/ (kernels in the styles of cuTile op libraries) at fixed BENCH
#      configurations, then launch-option sweeps of the translation with the time left
#   2. the same kernels at the configuration ct.tune chooses on real cuTile (bench --exec of
#      benchmarks/upstream/tuned.py; both sides at cuTile's choice, the translation's own best
#      launch options beside it)
#   3. cuTile's own samples and test/bench_*.py programs through bench --exec
#   4. launcher host time per launch against ct.launch and a raw Triton launch (the combine
#      kernel of split-KV decode included), then the existing suite (benchmarks/suite) with the
#      time left (its later cases may be skipped: the lead can run it alone, docs/performance.md)
# Run from the repository root (needs src/ and benchmarks/, not docs/ or tests/):
#   source .gpu/activate.sh && T2T_BENCH_COMMIT=<hash> tools/gpu/perf_suite.sh
# $OUT/summary.md collects every table; each step's log is $OUT/<step>.log. A step that fails
# or runs out of time is recorded and the next one runs.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)     # absolute: some steps run from cuTile's folders
UP=.cutile
T0=$(date +%s)
SUMMARY="$OUT/summary.md"
PY=${PYTHON:-python3}
T2T="$PY -m tile2triton"

DEADLINE=${T2T_PERF_DEADLINE_S:-550}   # the device runs one command for at most 600 s
HEADER="commit ${T2T_BENCH_COMMIT:-unknown}, $(date -u '+%Y-%m-%d %H:%M UTC'), $($PY -c 'import torch; print(torch.cuda.get_device_name())' 2>&1)"

elapsed() { echo $(( $(date +%s) - T0 )); }
note() { echo "[$(elapsed)s] $*" | tee -a "$OUT/progress.log"; }

# the summary, rewritten after every step (a run cut short still leaves one)
summarize() {
  {
    echo "# Issue 23 performance run"
    echo
    echo "$HEADER"
    echo
    echo "## Step status"
    echo
    sed 's/^/- /' "$OUT/status.txt" 2>/dev/null
    for f in upstream variant_pgemm_c_desc upstream_tuned sample_MatMul sample_LayerNorm bench_matmul \
             bench_rms_norm bench_layer_norm bench_attention launch_overhead perf; do
      if [ -f "$OUT/$f.md" ]; then
        echo
        echo "## $f"
        echo
        cat "$OUT/$f.md"
      fi
    done
  } > "$SUMMARY"
}

# step NAME SECONDS CMD...: run with a hard time limit (never past the deadline), log kept
step() {
  local name=$1 limit=$2; shift 2
  local left=$(( DEADLINE - $(elapsed) ))
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$limit" -lt 20 ]; then
    note "skip $name: the run's time is spent"
    echo "$name: not run (time spent)" >> "$OUT/status.txt"
    return 0
  fi
  note "start $name (limit ${limit}s)"
  timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  note "end $name: exit $rc"
  echo "$name: exit $rc after $(elapsed)s" >> "$OUT/status.txt"
  summarize
  return 0
}

# 1. the upstream-style suite at its BENCH configurations (fixed tiles and hints), sweeps after
step upstream_suite 230 $PY benchmarks/run_suite.py --suite benchmarks/upstream \
  --out "$OUT/upstream.json" --md "$OUT/upstream.md" --budget-s 220 --rounds 7 \
  --case-timeout 90 --no-overhead

# 1b. experiments: hand-edited translations (tools/gpu/variants/) at the BENCH configurations
if [ -f tools/gpu/variants/persistent_gemm_c_desc.py ]; then
  step variant_pgemm_c_desc 45 $T2T bench benchmarks/upstream/persistent_gemm \
    --translation tools/gpu/variants/persistent_gemm_c_desc.py --rounds 7 \
    --json "$OUT/variant_pgemm_c_desc.json" --md "$OUT/variant_pgemm_c_desc.md"
fi

# 2. at cuTile's tuned configuration: ct.tune runs on real cuTile inside the program
step upstream_tuned 90 $T2T bench --exec "$PY benchmarks/upstream/tuned.py" --rounds 7 \
  --max-launches 12 --variants "num_warps=4,8" \
  --json "$OUT/upstream_tuned.json" --md "$OUT/upstream_tuned.md"

# 3. cuTile's own programs: samples at their own sizes, bench_*.py where pytest-benchmark is
if [ -d "$UP/samples" ]; then
  # (AttentionFMHA: past 30 s in run 55)
  for s in MatMul LayerNorm; do
    step "sample_$s" 30 sh -c "cd $UP/samples && $T2T bench --exec '$PY $s.py' --rounds 5 \
      --max-launches 8 --json '$OUT/sample_$s.json' --md '$OUT/sample_$s.md'"
  done
  # pytest-benchmark, which cuTile's test/conftest.py needs, from wheels carried in .wheels/
  [ -d .wheels ] && $PY -m pip install -q --no-index --no-deps .wheels/*.whl >/dev/null 2>&1
  if $PY -c "import pytest_benchmark" >/dev/null 2>&1; then
    # (cuTile's pytest.ini, which names bench_* functions tests, is not packed: said here)
    # (run 56: each program, all its sizes, took more than 30 s: one dtype here)
    for b in bench_matmul bench_rms_norm bench_layer_norm bench_attention; do
      step "upstream_$b" 30 sh -c "cd $UP/test && $T2T bench --exec \
        '$PY -m pytest $b.py -q -x -k \"cutile and float16\" --benchmark-disable -p no:cacheprovider \
        -o python_functions=\"test_* bench_*\"' \
        --rounds 5 --max-launches 6 --json '$OUT/$b.json' --md '$OUT/$b.md'"
    done
  else
    note "test/bench_*.py not run: pytest-benchmark is not installed here"
    echo "test/bench_*.py: not run (pytest-benchmark not installed)" >> "$OUT/status.txt"
  fi
else
  note "no $UP/: cuTile's samples and bench programs not run"
  echo "samples: not run (no $UP/)" >> "$OUT/status.txt"
fi

# 4. launcher host time per launch (vector add, TMA matmul, the decode combine kernel) against
#    a raw Triton launch and ct.launch; then the existing suite with the time left
step launch_overhead 30 $PY benchmarks/launch_overhead.py --json "$OUT/overhead.json"
grep '^|\|^[a-z_]*$' "$OUT/launch_overhead.log" > "$OUT/launch_overhead.md" 2>/dev/null
summarize
left=$(( DEADLINE - $(elapsed) ))
step existing_suite $left $PY benchmarks/run_suite.py --out "$OUT/perf.json" --md "$OUT/perf.md" \
  --budget-s $(( left - 10 )) --rounds 7 --case-timeout 60 --no-sweeps --no-overhead

summarize
note "done; summary in $SUMMARY"
