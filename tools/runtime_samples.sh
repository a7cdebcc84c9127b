#!/usr/bin/env bash
# cuTile's samples/ run on the CPU through the runtime backend: `tile2triton run --cpu` (kernels
# in Triton's interpreter, tensors the program puts on CUDA on the CPU), cuda-tile hidden, each
# sample's own --correctness-check as the verdict. The figure in docs/runtime.md.
#   tools/runtime_samples.sh /tmp/cutile-python/samples OUT_DIR [TIMEOUT_S]
set -u
samples=${1:?samples folder}
out=${2:?output folder}
limit=${3:-900}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
hide=$(mktemp -d)
mkdir -p "$hide/cuda/tile"
echo 'raise ImportError("cuda-tile is hidden (tools/runtime_samples.sh)")' > "$hide/cuda/tile/__init__.py"
export PYTHONPATH="$hide:$root/src${PYTHONPATH:+:$PYTHONPATH}"
: > "$out/summary.txt"
for s in "$samples"/*.py; do
  case $(basename "$s") in __init__.py|test_samples.py) continue;; esac
  name=$(basename "$s" .py)
  start=$(date +%s)
  ( cd "$samples" && timeout "$limit" python -m tile2triton run --cpu -- python "$s" --correctness-check ) \
    > "$out/$name.log" 2>&1
  echo "$name rc=$? $(( $(date +%s) - start ))s" | tee -a "$out/summary.txt"
done
