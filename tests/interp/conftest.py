"""Make ``tile2triton`` importable from the source tree when it is not installed."""

import importlib.util
import pathlib
import sys

if "tile2triton" not in sys.modules and importlib.util.find_spec("tile2triton") is None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "src"))
