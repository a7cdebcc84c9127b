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


def device_calls_restore_the_language():
    """A @triton.jit function called outside any grid (host code calling a device helper, as
    a converted module may) patches triton.language with the interpreter's builtins and, in
    Triton 3.6, never restores them: every later compile in that process (`inspect`, a GPU
    launch) then fails inside Triton with "'ir.value' object has no attribute 'dtype'". Here
    such a call restores what it patched. Inside a grid the restore puts back the grid's own
    patches, so nothing changes there. True if it patched (idempotent)."""
    try:
        from triton.runtime import interpreter
    except ImportError:
        return False
    cls = getattr(interpreter, "InterpretedFunction", None)
    patch = getattr(interpreter, "_patch_lang", None)
    if cls is None or patch is None:
        return False
    call = cls.__call__
    if getattr(call, "_t2t_restores", False):
        return True

    def restoring_call(self, *args, **kwargs):
        scope = patch(self.fn)
        try:
            return call(self, *args, **kwargs)
        finally:
            scope.restore()

    restoring_call._t2t_restores = True
    cls.__call__ = restoring_call
    return True


class LanguageSnapshot:
    """triton.language as it is now (the namespaces Triton's interpreter patches), to put back
    later: a test process that interprets and compiles in turn restores it between tests, so
    that a patch some path leaves behind (as device_calls_restore_the_language corrects for
    one path) cannot fail an unrelated compile later with "'ir.value' object has no attribute
    'dtype'"."""

    def __init__(self):
        import triton.language as tl
        self.spaces = [tl, tl.core, tl.math, tl.core.tensor, tl.core.tensor_descriptor_base]
        self.saved = [dict(vars(space)) for space in self.spaces]
        # what each class name resolved to (inherited included): a restore that writes an
        # inherited value back into the class itself changed nothing
        self.resolved = [{n: getattr(space, n, _MISSING) for n in dir(space)}
                         if isinstance(space, type) else {} for space in self.spaces]

    def restore(self) -> list:
        """Put back every changed attribute, and remove those added to the tensor classes
        (modules may grow attributes of their own); the names that were changed."""
        changed = []
        for space, saved, resolved in zip(self.spaces, self.saved, self.resolved):
            now = vars(space)
            added = [n for n in now if n not in saved and n != "__annotations__"
                     and now[n] is not resolved.get(n)] if isinstance(space, type) else []
            for name in added:
                delattr(space, name)
                changed.append(name)
            for name, value in saved.items():
                if name == "__annotations__" or (not isinstance(space, type)
                                                 and name.startswith("__")):
                    continue    # a module's own (__annotations__ appears when first read)
                if now.get(name, _MISSING) is not value:
                    setattr(space, name, value)
                    changed.append(name)
        return changed


_MISSING = object()


def fp8_conversions_as_on_the_gpu():
    """Triton's interpreter converts floats to fp8 bit by bit, and gets two things wrong: a
    rounding that carries out of the mantissa does not reach the exponent (e4m3: 124.0 gives
    64.0 where the GPU gives 128.0), and values beyond the format's largest are not saturated
    (the GPU's conversion is `satfinite`: 1000.0 gives 448.0). Such elements were reported as
    drift of the translation on the CPU. Here the conversions to e4m3 and e5m2 are torch's,
    after the saturation the GPU applies; every other conversion is Triton's."""
    try:
        import numpy as np
        import torch
        import triton.language as tl
        from triton.runtime import interpreter as I
    except Exception:  # noqa: BLE001
        return
    if getattr(I._convert_float, "_t2t_fp8", False):
        return
    original = I._convert_float
    targets = {tl.float8e4nv: (torch.float8_e4m3fn, 448.0), tl.float8e5: (torch.float8_e5m2, 57344.0)}
    sources = {tl.float16: np.float16, tl.float32: np.float32, tl.float64: np.float64}

    def convert(input, input_dtype, output_dtype, rounding_mode):
        target = targets.get(output_dtype)
        if target is None or (input_dtype not in sources and input_dtype != tl.bfloat16):
            return original(input, input_dtype, output_dtype, rounding_mode)
        if input_dtype == tl.bfloat16:
            bits = np.ascontiguousarray(input).view(np.uint16).astype(np.uint32) << 16
            values = torch.from_numpy(bits.view(np.float32).copy()).double()
        else:
            values = torch.from_numpy(np.ascontiguousarray(input).view(sources[input_dtype])
                                      .astype(np.float64))
        dtype, big = target
        out = values.clamp(-big, big).to(dtype)      # (NaN stays NaN)
        return out.view(torch.uint8).numpy().reshape(np.shape(input))

    convert._t2t_fp8 = True
    I._convert_float = convert


def enable_all():
    """Everything this module corrects in the interpreter of this process, as the checker
    runs translations on the CPU."""
    enable()
    device_calls_restore_the_language()
    fp8_conversions_as_on_the_gpu()
