"""tile2triton: translate NVIDIA cuTile Python kernels into Triton, and check the translation."""
from .translate import ModuleResult, translate_source

__all__ = ["translate_source", "ModuleResult"]
__version__ = "0.1.0"
