# Translated from launch.py (cuTile) to Triton by tile2triton 0.1.0.
import triton

from .kernels import launch_scaled_add_rows


def launch(stream, x, y, w, out, alpha):
    tm, tn = 16, 64
    m, n = x.shape
    grid = (triton.cdiv(m, tm), triton.cdiv(n, tn))
    launch_scaled_add_rows(stream, grid, x, y, w, out, alpha, tm, tn)
