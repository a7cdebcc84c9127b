"""Triton's interpreter (TRITON_INTERPRET=1), as the checker runs translations on a CPU, made to
work with every numpy the `[run]` extra allows.

Triton 3.6's interpreter holds a scalar (a kernel's integer argument, `tl.cdiv(K, BK)`) as a
one-element array and turns it into a Python int with `int(array)`. numpy 2.3 made that
conversion of an array with ndim > 0 an error ("only 0-dimensional arrays can be converted to
Python scalars"), so `range()` over a kernel's integer argument fails and a correct translation
gets an `error` verdict. Later Triton squeezes the array first. `enable()` does the equivalent
for the interpreter of this process: the conversion goes through `.item()`, which accepts
exactly the one-element arrays and still refuses larger ones. Nothing changes where the
interpreter lacks the hook or numpy accepts the conversion without a warning.
"""
from __future__ import annotations

_ENABLED = False


def needed() -> bool:
    """Whether this numpy refuses int() of a one-element array of ndim 1 (2.3 and later) or
    warns that it will (1.25 to 2.2)."""
    import warnings

    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            int(np.array([1]))
        except (TypeError, DeprecationWarning):
            return True
    return False


def enable() -> bool:
    """Make the interpreter's scalar-to-int conversion numpy-version proof; True if it
    patched (idempotent)."""
    global _ENABLED
    if _ENABLED:
        return True
    if not needed():
        return False
    try:
        from triton.runtime import interpreter
    except ImportError:     # no triton: nothing interprets
        return False
    original = getattr(interpreter, "_patch_lang_tensor", None)
    if original is None:    # another interpreter layout: it handles scalars itself
        return False

    def patch_lang_tensor(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.item()))

    interpreter._patch_lang_tensor = patch_lang_tensor
    _ENABLED = True
    return True
