#!/usr/bin/env bash
# The matrix products whose numerics changed (tf32 operands rounded as cuTile rounds them, fp8
# B operands K-major with one promotion per product): the project suite's matmul, persistent
# and batched matmul cases against real cuTile (bench: outputs compared, times side by side).
set -u
# T2T_MM_CASES: the cases (default: matmul persistent_matmul batched_matmul)
cases=${T2T_MM_CASES:-matmul persistent_matmul batched_matmul}
python3 -m tile2triton bench $(for c in $cases; do echo benchmarks/suite/$c; done) --rounds 5 \
    --json "$OUT/bench.json" 2>&1 | tail -n 60
