#!/usr/bin/env bash
# Issue 28: the three checks GPU run 46 left unconfirmed, against real cuTile 1.7.0 on the H200
# (about 40 s). Run from the repo root after `source .gpu/activate.sh`, cuTile's repo at .cutile/
# (tools/gpu/run_all.sh unpacks .cutile.tgz there):
#   tools/gpu/run_all.sh issue28_confirm=120
# or directly: OUT=/some/dir bash tools/gpu/issue28_confirm.sh
#   1. tools/gpu/issue28_confirm.py: samples/BatchMatMul.py's fp8 launch (class 8: cuTile, the
#      translation and cuBLAS each against the float64 product, and the checker's verdict with
#      the fp8 product allowance), the ct.sigmoid branch in a helper (class 1: FAST=True a
#      compile error naming ct.sigmoid), num_worker_warps=8 (class 2);
#   2. the pytest plugin on upstream test/test_compiler_options.py, which launches nothing:
#      the JSON report must exist (it did not in run 46) with 0 launches.
# Writes $OUT/summary.txt (one line per check), $OUT/confirm.txt, $OUT/plugin-compiler-options.*
set -u
root=$(pwd)
ct=$root/.cutile
out=${OUT:?OUT must be set}
export PYTHONPATH=$root/src:${PYTHONPATH:-}
summary=$out/summary.txt
: > "$summary"

timeout 90 python3 tools/gpu/issue28_confirm.py --cutile "$ct" > "$out/confirm.txt" 2>&1
echo "confirm.py rc=$?" >> "$summary"
grep -E "^(bmm|sigmoid|warps|issue 28)|^    " "$out/confirm.txt" >> "$summary"

js=$out/plugin-compiler-options.json
rm -f "$js"
( cd "$ct/test" && timeout 60 python3 -m pytest -q test_compiler_options.py -o addopts= \
    -p tile2triton.verify.pytest_plugin --tile2triton --tile2triton-json "$js" \
    > "$out/plugin-compiler-options.txt" 2>&1 )
rc=$?
python3 - "$js" "$rc" "$out/plugin-compiler-options.txt" >> "$summary" <<'PY'
import json, sys
js, rc, log = sys.argv[1:]
tail = open(log).read().strip().splitlines()[-1:] or ["(no output)"]
try:
    data = json.load(open(js))
    n = len(data["launches"])
    print(f"test_compiler_options.py: {'PASS' if n == 0 else 'CHECK'} report written, {n} "
          f"launches, pytest rc={rc}: {tail[0]}")
except Exception as e:  # noqa: BLE001
    print(f"test_compiler_options.py: FAIL no report ({e}); pytest rc={rc}: {tail[0]}")
PY
cat "$summary"
