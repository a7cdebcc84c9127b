"""tile2triton: translate NVIDIA cuTile Python kernels into Triton, and check the translation.

`translate_source` (a module's text) and `translate_kernel` (a live kernel object, see live.py)
are imported lazily so that `tile2triton.interp` (the reference interpreter)
and `tile2triton.verify` can be used without loading the translator.
"""
from .version import __version__

__all__ = ["translate_source", "ModuleResult", "translate_kernel", "KernelTranslation",
           "TranslationError"]


def __getattr__(name):
    if name in ("translate_kernel", "KernelTranslation"):
        from . import live
        return getattr(live, name)
    if name == "TranslationError":
        from .diagnostics import TranslationError
        return TranslationError
    if name in __all__:
        from . import translate
        return getattr(translate, name)
    raise AttributeError(name)
