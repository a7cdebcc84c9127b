#!/usr/bin/env bash
# Issue 21, on the H200: what `convert` writes is what gets verified.
#   1. cuTile's test suite through the pytest plugin in its default mode (static: each launch
#      against the translation `convert` writes for its kernel's module) and in live mode; the
#      share of launches made by plainly passing tests that get `pass` in each (target: static
#      >= 98 %), over the files both modes finished and over each mode's own files.
#   2. cuTile's samples/ converted in place (a copy) together with test/kernels, then each
#      sample's own --correctness-check run with cuda.tile unimportable.
# Run from the repo root after `source .gpu/activate.sh`, with cuTile's upstream repo at .cutile/
# (test/, samples/). Writes $OUT/static_conformance.json (the summary), $OUT/summary.txt, the
# conformance states and reports ($OUT/conf-static.json/.md, $OUT/conf-live.json/.md) and the
# samples' logs ($OUT/samples/). Resumable: with T2T_SC_STATES=DIR holding conf-static.json and
# conf-live.json from an earlier run (carried), it goes on where that one stopped.
# Knobs: T2T_SC_BUDGET_S (seconds for the conformance runs, default 400), T2T_SC_LIVE_SHARE
# (the live mode's share of them, default 35 %), T2T_SC_JOBS (files at once, default 12),
# T2T_SC_FILES (test-file globs, default all), T2T_SC_SAMPLES_S (default 360; 0 skips the
# samples), T2T_SC_MIN_RUN_S (no run starts with less budget left, default 20),
# T2T_SC_CHECK_JOBS (launches checked at once in each plugin run, default 2).
# T2T_SC_QUICK=1: a fixed subset of 10 test files (QUICK_FILES below: class kernels, kernel
# factories with closure constants and function values, kernels of test functions with their
# own helpers and dataclasses, string-built kernels, rank- and slice-heavy module kernels),
# 75 s of conformance (45 static with the plain runs, 30 live), no samples, 10 files at once:
# the whole script in about 90 s on the H200. Each knob above still overrides it.
set -u
root=$(pwd)
ct=$root/.cutile
out=${OUT:?OUT must be set}
QUICK_FILES="test_control_flow.py test_reduction.py test_scan.py test_dict.py test_closure.py
  test_tuple.py test_full.py test_reshape.py test_dataclass.py test_array_slice.py"
if [ "${T2T_SC_QUICK:-0}" = 1 ]; then
  budget=${T2T_SC_BUDGET_S:-75}; share=${T2T_SC_LIVE_SHARE:-40}; jobs=${T2T_SC_JOBS:-10}
  samples_s=${T2T_SC_SAMPLES_S:-0}; files=${T2T_SC_FILES:-$(echo $QUICK_FILES)}
  min_run=${T2T_SC_MIN_RUN_S:-5}
else
  budget=${T2T_SC_BUDGET_S:-400}; share=${T2T_SC_LIVE_SHARE:-35}; jobs=${T2T_SC_JOBS:-12}
  samples_s=${T2T_SC_SAMPLES_S:-360}; files=${T2T_SC_FILES:-}
  min_run=${T2T_SC_MIN_RUN_S:-20}
fi
rev=$(git -C "$ct" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -f .cutile.tgz ] && [ ! -d "$ct" ]; then mkdir -p "$ct" && tar xzf .cutile.tgz -C "$ct"; fi
[ -d "$ct/test" ] && [ -d "$ct/samples" ] || { echo "no cuTile checkout at $ct" >&2; exit 2; }
work=$(mktemp -d)
if [ -n "${T2T_SC_STATES:-}" ]; then
  cp "$T2T_SC_STATES"/conf-static.json "$T2T_SC_STATES"/conf-live.json "$out"/ 2>/dev/null
fi

# -- 2. samples, in the background (2 cores of 16) --------------------------------------------
samples() {
  local s=$work/samples log=$out/samples
  mkdir -p "$s/test" "$log"
  cp -r "$ct/samples" "$s/samples"
  cp -r "$ct/test/kernels" "$s/test/kernels"
  ( cd "$s" && python -m tile2triton convert samples test/kernels --in-place \
      --json "$log/convert.json" > "$log/convert.txt" 2>&1 ); echo "convert rc=$?" > "$log/rc.txt"
  for f in "$s"/samples/*.py; do
    name=$(basename "$f" .py)
    case "$name" in __init__|test_samples) continue ;; esac
    ( cd "$s/samples" && PYTHONPATH="$s:$s/samples" timeout 150 \
        python -u "$root/tools/gpu/without_cutile.py" "$f" --correctness-check \
        > "$log/$name.txt" 2>&1 ); echo "$name rc=$?" >> "$log/rc.txt"
  done
}
if [ "$samples_s" -gt 0 ]; then
  ( timeout "$samples_s" bash -c "$(declare -f samples); work=$work out=$out ct=$ct root=$root samples" ) &
  samples_pid=$!
else
  samples_pid=
fi

# -- 1. the test suite, static then live (the live runs reuse the plain runs) ------------------
sel=(); [ -n "$files" ] && sel=(--files $files)
static_s=$(( budget * (100 - share) / 100 ))
python -m tile2triton.verify.conformance "$ct" --json "$out/conf-static.json" \
    --out "$out/conf-static.md" --mode static --budget-s "$static_s" --jobs "$jobs" \
    --check-jobs "${T2T_SC_CHECK_JOBS:-2}" --min-run-s "$min_run" --upstream-rev "$rev" --work-dir "$work/cs" -q \
    "${sel[@]}"
if [ ! -f "$out/conf-live.json" ]; then   # the plain runs are the same in both modes
  python3 - "$out/conf-static.json" "$out/conf-live.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["meta"]["mode"] = "live"
for runs in s["files"].values():
    runs.pop("plugin", None)
json.dump(s, open(sys.argv[2], "w"))
PY
fi
left=$(( budget - static_s ))
python -m tile2triton.verify.conformance "$ct" --json "$out/conf-live.json" \
    --out "$out/conf-live.md" --mode live --phases plugin --budget-s "$left" --jobs "$jobs" \
    --check-jobs "${T2T_SC_CHECK_JOBS:-2}" --min-run-s "$min_run" --upstream-rev "$rev" --work-dir "$work/cl" -q \
    "${sel[@]}"
[ -n "$samples_pid" ] && wait "$samples_pid"

# -- the summary ---------------------------------------------------------------------------------
python3 - "$out" <<'PY'
import json, re, sys
from pathlib import Path
from tile2triton.verify.conformance import summarize
out = Path(sys.argv[1])
states = {m: json.loads((out / f"conf-{m}.json").read_text()) for m in ("static", "live")}
def finished(state):
    return {n for n, r in state["files"].items()
            if all((r.get(ph) or {}).get("status") == "done" for ph in ("plain", "plugin"))}
both = finished(states["static"]) & finished(states["live"])
res = dict(files_finished_in_both=len(both))
for mode, state in states.items():
    own = summarize(state)["target"]
    common = summarize(dict(state, files={n: state["files"][n] for n in both}))["target"]
    res[mode] = dict(
        own=dict(passed=own["pass_"], of=own["of"], files=len(finished(state))),
        common=dict(passed=common["pass_"], of=common["of"],
                    percent=round(100 * common["pass_"] / common["of"], 2) if common["of"] else None))
log = out / "samples"
rc = dict(re.findall(r"^(\S+) rc=(\d+)$", (log / "rc.txt").read_text(), re.M)) \
    if (log / "rc.txt").exists() else {}
samples = {}
for name, code in rc.items():
    if name == "convert":
        continue
    text = (log / f"{name}.txt").read_text(errors="replace")
    ok = code == "0" and "An unexpected error occurred" not in text and (
        "Skipped test" in text or ("Correctness check passed" in text
                                   and "Correctness check failed" not in text))
    samples[name] = dict(rc=int(code), ok=ok, skipped="Skipped test" in text)
res["samples"] = dict(convert_rc=int(rc.get("convert", -1)), runs=samples,
                      passed=sum(s["ok"] for s in samples.values()), of=len(samples))
(out / "static_conformance.json").write_text(json.dumps(res, indent=1))
for mode in ("static", "live"):
    c = res[mode]["common"]
    print(f"{mode}: {c['passed']} of {c['of']} launches of plainly passing tests pass "
          f"({c['percent']} %) over the {len(both)} files both modes finished; "
          f"own: {res[mode]['own']}")
print(f"samples: {res['samples']['passed']} of {res['samples']['of']} pass their "
      f"--correctness-check with cuda.tile unimportable (convert rc {res['samples']['convert_rc']}); "
      + ", ".join(f"{n} {'ok' if s['ok'] else 'FAIL rc=' + str(s['rc'])}" for n, s in samples.items()))
PY
