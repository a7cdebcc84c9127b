#!/usr/bin/env bash
# Issue 29: which Triton product matches cuTile's tf32 and fp8 numerics (tools/gpu/numerics_probe.py).
set -u
python3 tools/gpu/numerics_probe.py --json "$OUT/numerics.json"
