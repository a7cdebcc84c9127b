"""The tile2triton version: printed by --version and written into every generated module's
header. pyproject.toml repeats it (tests/test_packaging.py keeps the two equal)."""
__version__ = "0.1.0"
