#!/usr/bin/env bash
# Issue 21 item 2 on the H200 (about a minute): cuTile's samples/BlockScaledMatMul.py indexes
# its scales with rank 2 or 4; convert translates its kernel once per rank combination and the
# launcher picks one. Triton's interpreter has no tl.dot_scaled, so this runs on the GPU only.
# Run from the repository root:  source .gpu/activate.sh && tools/gpu/rank_variants.sh
# Writes $OUT/convert.log, $OUT/variants.jsonl (one line per rank combination) and
# $OUT/summary.txt. Confirms item 2 for the sample when all four lines say "ok": true.
# (--keep-unconverted: four host lines of the sample use private cuda.tile modules, T2T109;
# they stay cuTile code, which imports on the H200. cuTile itself runs the sample on
# Blackwell only, so the reference is float64 torch.)
set -u
OUT=${OUT:-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT/work"
cp .cutile/samples/BlockScaledMatMul.py "$OUT/work/"
$PY -m tile2triton convert "$OUT/work/BlockScaledMatMul.py" --in-place --keep-unconverted \
    > "$OUT/convert.log" 2>&1
echo "convert: exit $?" > "$OUT/summary.txt"
grep -c "^def block_scaled_matmul_kernel_" "$OUT/work/BlockScaledMatMul.py" \
    | sed 's/^/variant kernels: /' >> "$OUT/summary.txt"
timeout 600 $PY tools/gpu/block_scaled_variants.py "$OUT/work" > "$OUT/variants.jsonl" \
    2> "$OUT/variants.err"
echo "variants: exit $?" >> "$OUT/summary.txt"
cat "$OUT/summary.txt" "$OUT/variants.jsonl"
