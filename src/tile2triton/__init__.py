"""tile2triton: translate NVIDIA cuTile Python kernels into Triton, and check the translation.

`translate_source` is imported lazily so that `tile2triton.interp` (the reference interpreter)
and `tile2triton.verify` can be used without loading the translator.
"""
__version__ = "0.1.0"
__all__ = ["translate_source", "ModuleResult"]


def __getattr__(name):
    if name in __all__:
        from . import translate
        return getattr(translate, name)
    raise AttributeError(name)
