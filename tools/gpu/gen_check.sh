#!/usr/bin/env bash
# Issue 24's GPU check on the H200, within ~8 minutes, everything under $OUT: after the changes to
# the generated code (public kernel[grid] launch, one offset dtype per function, ...)
#   1. the corpus against real cuTile (`tile2triton check corpus/`, as docs/gpu-results.md does)
#   2. the performance suite (benchmarks/run_suite.py, as docs/performance.md's standing run),
#      with the launcher host time against a raw Triton launch (its perf.md table)
# Run from the repository root:
#   source .gpu/activate.sh && T2T_BENCH_COMMIT=<hash> tools/gpu/gen_check.sh
# $OUT/summary.md: the check's verdict counts, the suite's table with its geometric mean and
# lowest ratio, the launch overhead; each step's log is $OUT/<step>.log. A step that fails or
# runs out of time is recorded and the next one runs.
# Confirms issue 24's targets when: every corpus verdict is a pass (no mismatch, error or
# crash), the suite's geometric mean is >= 1.6 and no ratio is below 0.95.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
T0=$(date +%s)
SUMMARY="$OUT/summary.md"
PY=${PYTHON:-python3}

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
  echo "# Issue 24 GPU check"
  echo
  echo "commit ${T2T_BENCH_COMMIT:-unknown}, $(date -u '+%Y-%m-%d %H:%M UTC'), triton $($PY -c 'import triton; print(triton.__version__)' 2>&1), $($PY -c 'import torch; print(torch.cuda.get_device_name())' 2>&1)"
} > "$SUMMARY"

# 1. the corpus: each launch of each case, the translation against real cuTile
step check_corpus 200 $PY -m tile2triton check corpus/ --backend gpu --seeds 2 \
  --json "$OUT/check.json"

# 2. the performance suite, one process per benchmark, within its budget, then the launcher
#    host time against a raw Triton launch (the default output launches through kernel[grid])
step perf_suite 300 $PY benchmarks/run_suite.py --out "$OUT/perf.json" --md "$OUT/perf.md" \
  --budget-s 270 --no-sweeps --case-timeout 120

{
  echo
  echo "## Corpus check (\`tile2triton check corpus/ --backend gpu --seeds 2\`)"
  echo
  echo '```'
  tail -n 25 "$OUT/check_corpus.log"
  echo '```'
  if [ -f "$OUT/check.json" ]; then
    $PY - "$OUT/check.json" <<'EOF'
import collections, json, sys
data = json.load(open(sys.argv[1]))
records = data.get("launches", [])
counts = collections.Counter(r.get("verdict", "?") for r in records if isinstance(r, dict))
print("\nverdicts: " + (", ".join(f"{v} {n}" for v, n in sorted(counts.items())) or "none read"))
EOF
  fi
  echo
  echo "## Performance suite (\`benchmarks/run_suite.py --budget-s 270 --no-sweeps\`)"
  echo
  [ -f "$OUT/perf.md" ] && cat "$OUT/perf.md"
  if [ -f "$OUT/perf.json" ]; then
    $PY - "$OUT/perf.json" <<'EOF'
import json, math, sys
data = json.load(open(sys.argv[1]))
rows = [r for r in data.get("records", []) if isinstance(r, dict)
        and isinstance(r.get("ratio"), (int, float)) and r["ratio"] > 0]
if rows:
    g = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    low = min(rows, key=lambda r: r["ratio"])
    print(f"\ngeometric mean {g:.3f} over {len(rows)} configurations; lowest {low['ratio']:.3f} "
          f"({low.get('case')} {low.get('config')})")
else:
    print("\n(no ratios read from perf.json)")
EOF
  fi
  echo
  echo "## Steps"
  echo
  cat "$OUT/status.txt"
} >> "$SUMMARY"
note "done in $(elapsed)s"
