#!/usr/bin/env bash
# Issue 29, on the H200: cuTile programs run through the runtime backend (`tile2triton run`)
# with cuda-tile hidden (a `cuda/tile` that raises ImportError first on PYTHONPATH).
#   1. cuTile's samples/ at their own sizes, each with its own --correctness-check (its exit
#      status the verdict), all at once (10 processes on the machine's 16 cores, one GPU),
#      50 s each at most;
#   2. then host time per launch, runtime backend against the static output's launcher
#      (tools/gpu/runtime_host_time.py; target within 1.2x), 25 s at most;
#   3. only with T2T_RUNTIME_TESTS=1 (several minutes): a fixed set of 23 files of cuTile's
#      test/ (public API only), each test's own assertions the oracle: passed / failed /
#      skipped per file from pytest's junit report, T2T_RUNTIME_TEST_S per file (default 150),
#      T2T_RUNTIME_TEST_JOBS files at a time (default 8).
# Run from the repo root after `source .gpu/activate.sh`, with cuTile's upstream repo at
# .cutile/ (or .cutile.tgz). Writes $OUT/summary.txt, $OUT/runtime_backend.json, logs under
# $OUT/samples/ (and $OUT/tests/). About 60 s without the test files (75 s at most).
set -u
root=$(pwd)
ct=$root/.cutile
out=${OUT:?OUT must be set}
if [ -f .cutile.tgz ] && [ ! -d "$ct" ]; then mkdir -p "$ct" && tar xzf .cutile.tgz -C "$ct"; fi
[ -d "$ct/test" ] && [ -d "$ct/samples" ] || { echo "no cuTile checkout at $ct" >&2; exit 2; }
mkdir -p "$out/samples" "$out/tests"
hide=$(mktemp -d)
mkdir -p "$hide/cuda/tile"
echo 'raise ImportError("cuda-tile is hidden (tools/gpu/runtime_backend.sh)")' > "$hide/cuda/tile/__init__.py"
export PYTHONPATH="$hide:$root/src${PYTHONPATH:+:$PYTHONPATH}"
if python -c "import cuda.tile" 2>/dev/null; then hidden=no; else hidden=yes; fi
echo "cuda-tile hidden: $hidden" > "$out/summary.txt"

# -- 1. samples -----------------------------------------------------------------------------
run_sample() {
  local s=$1 name; name=$(basename "$s" .py)
  local start=$(date +%s.%N)
  ( cd "$ct/samples" && timeout 50 python -m tile2triton run -- python "$s" --correctness-check ) \
    > "$out/samples/$name.log" 2>&1
  local rc=$?
  echo "$name $rc $(python -c "print(round($(date +%s.%N) - $start, 1))")" >> "$out/samples/status.txt"
}
: > "$out/samples/status.txt"
for s in "$ct"/samples/*.py; do
  case $(basename "$s") in __init__.py|test_samples.py) continue;; esac
  run_sample "$s" &
done
wait
# -- 2. host time per launch (after the samples: their compiles would load the host) ----------
timeout 25 python tools/gpu/runtime_host_time.py "$out/host_time.json" > "$out/host_time.log" 2>&1
echo "host time rc $?" >> "$out/summary.txt"

# -- 3. a fixed part of cuTile's test suite (T2T_RUNTIME_TESTS=1) ------------------------------
FILES="test_alias test_assert test_attention test_closure test_copy test_dict test_enum test_fma
test_group_gemm test_int64_kernel_args test_loose_typing test_num_tiles
test_posponed_const_annotation test_raw_array_memory test_select test_softmax test_static_assert
test_static_eval test_static_iter test_torch_backward test_tuple test_tuple_comprehension
test_unpacking"
run_test() {
  local f=$1
  ( cd "$ct/test" && timeout "${T2T_RUNTIME_TEST_S:-150}" python -m tile2triton run -- python -m pytest -q \
      -p no:cacheprovider -o addopts= -n 2 "$f.py" --junitxml="$out/tests/$f.xml" ) > "$out/tests/$f.log" 2>&1
  echo "$f $?" >> "$out/tests/status.txt"
}
: > "$out/tests/status.txt"
if [ "${T2T_RUNTIME_TESTS:-0}" = 1 ]; then
  for f in $FILES; do
    run_test "$f" &
    while [ "$(jobs -rp | wc -l)" -ge "${T2T_RUNTIME_TEST_JOBS:-8}" ]; do sleep 0.5; done
  done
  wait
fi

python - "$out" <<'PY' >> "$out/summary.txt"
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
out = Path(sys.argv[1])
samples = {}
for line in (out / "samples/status.txt").read_text().split("\n"):
    if line.strip():
        name, rc, secs = line.split()
        samples[name] = dict(passed=rc == "0", rc=int(rc), seconds=float(secs))
tests = {}
for line in (out / "tests/status.txt").read_text().split("\n"):
    if not line.strip():
        continue
    f, rc = line.split()
    x = out / "tests" / f"{f}.xml"
    row = dict(rc=int(rc))
    if x.exists():
        s = ET.parse(x).getroot()
        s = s if s.tag == "testsuite" else s.find("testsuite")
        total, fail, err, skip = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
        row.update(tests=total, passed=total - fail - err - skip, failed=fail + err, skipped=skip)
    tests[f] = row
host = json.loads((out / "host_time.json").read_text()) if (out / "host_time.json").exists() else None
summary = dict(samples=samples, tests=tests, host_time=host)
(out / "runtime_backend.json").write_text(json.dumps(summary, indent=1))
print(f"samples: {sum(s['passed'] for s in samples.values())}/{len(samples)} passed their correctness check")
for n, s in sorted(samples.items()):
    print(f"  {n}: {'pass' if s['passed'] else 'FAIL rc=%d' % s['rc']} ({s['seconds']} s)")
t = [r for r in tests.values() if "tests" in r]
print(f"tests: {len(tests)} files; {sum(r['passed'] for r in t)} passed, {sum(r['failed'] for r in t)} failed, "
      f"{sum(r['skipped'] for r in t)} skipped; files without a report: {sum('tests' not in r for r in tests.values())}")
for f, r in sorted(tests.items()):
    print(f"  {f}: {r}")
print(f"host time per launch (runtime vs static): {host}")
PY
cat "$out/summary.txt"
