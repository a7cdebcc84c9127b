"""A tile helper in its own module, imported by kernels_anywhere.py."""
import cuda.tile as ct


@ct.function
def axpy_tile(a, x, y):
    return a * x + y
