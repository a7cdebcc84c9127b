#!/usr/bin/env bash
# One device run for several GPU checks: run on the H200 from the repo root, after
#   source .gpu/activate.sh
# with cuTile's upstream test/ and samples/ packed in .cutile.tgz (carried). Each named script
# (tools/gpu/NAME.sh) runs under its own time limit and writes into $OUT/NAME/; everything comes
# back as one archive, $OUT/results.tgz, with $OUT/summary.txt (the device returns 8 files).
#   tools/gpu/run_all.sh NAME=SECONDS [NAME=SECONDS ...]
set -u
root=$(pwd)
if [ -f .cutile.tgz ] && [ ! -d .cutile ]; then mkdir -p .cutile && tar xzf .cutile.tgz -C .cutile; fi
export T2T_BENCH_COMMIT=${T2T_BENCH_COMMIT:-unknown}
final=$OUT
work=$(mktemp -d)
summary=$final/summary.txt
: > "$summary"
for spec in "$@"; do
  name=${spec%%=*}; limit=${spec#*=}
  mkdir -p "$work/$name"
  start=$(date +%s)
  OUT=$work/$name timeout --signal=TERM --kill-after=20 "$limit" bash "tools/gpu/$name.sh" \
      > "$work/$name/log.txt" 2>&1
  rc=$?
  echo "== $name: rc=$rc, $(( $(date +%s) - start )) s (limit $limit)" | tee -a "$summary"
  tail -n 25 "$work/$name/log.txt" >> "$summary"
  cd "$root"
done
tar czf "$final/results.tgz" -C "$work" .
