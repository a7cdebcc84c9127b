"""Triton's interpreter computing bfloat16 arithmetic and products as a GPU computes them.

The interpreter keeps bfloat16 values as their bits in numpy uint16 arrays (numpy has no
bfloat16) and converts them correctly to and from float32, but its arithmetic runs numpy on
those arrays as they are: `a * b` of two bfloat16 tiles multiplies the bit patterns as
integers, a comparison orders negative values backwards, `tl.sum` adds bit patterns, a
bfloat16 `tl.dot` multiplies integers, and a bfloat16 constant (`tl.where(m, x, 0.0)`) is
missing from its builder; its conversion of float32 to bfloat16 truncates (the GPU
rounds to nearest even), and float16 and integers convert to bfloat16 as if it were uint16. A kernel that computes in bfloat16 then gives garbage or
NaN on the CPU (cuTile's samples/LayerNorm.py: every element of dX NaN; samples/MoE.py).

`enable()` makes every floating-point operation of the interpreter whose operand is bfloat16
compute on the exact float32 values and round the result to bfloat16 once, to nearest even, as
the GPU's bfloat16 instructions (or Triton's fp32 lowering of them) do: the binary and
comparison operators, min/max, fma, clamp, the unary math functions, dot (its operands; the
accumulator keeps its type), and the sum, min, max, cumsum and cumprod reductions. Conversions to
bfloat16 round to nearest even. Everything else (loads, stores, where, bitcasts, abs) already
handles the bits correctly and is left alone.

It also makes a floating-point `tl.dot(a, b, acc)` round once: the interpreter computes
`np.matmul` in the accumulator's type and adds the accumulator, two roundings per call and
the matmul's own float32 summation inside; here the product and the sum with the accumulator
are computed in float64 and rounded to the accumulator's type once, as an MMA instruction's
exact products and wide internal sum do. A K loop of fp16 tiles accumulated in fp32 then stays
within the tolerance its program sets for the GPU: samples/BatchMatMul.py at 1e-5 absolute
over 2,097,152 elements missed on 2 elements with the interpreter's own dot.

Idempotent; operations on integers and on other float types are unchanged.
"""
from __future__ import annotations

_BINARY = ("create_fadd", "create_fmul", "create_fdiv", "create_frem", "create_fsub",
           "create_precise_divf", "create_minimumf", "create_minnumf", "create_maximumf",
           "create_maxnumf")
_COMPARE = tuple(f"create_fcmp{p}{c}" for p in "OU" for c in ("LT", "GT", "LE", "GE", "EQ", "NE"))
_UNARY = ("create_cos", "create_exp", "create_exp2", "create_floor", "create_ceil", "create_log",
          "create_log2", "create_precise_sqrt", "create_sqrt", "create_sin", "create_erf",
          "create_rsqrt")
_TERNARY = ("create_fma", "create_clampf")


def enable() -> bool:
    """Patch Triton's interpreter (for the rest of the process). False when it cannot be
    imported or is not laid out as Triton 3.6's (nothing is patched then)."""
    try:
        import numpy as np
        import torch
        import triton.language as tl
        from triton.runtime import interpreter as I
    except Exception:  # noqa: BLE001 - no interpreter: nothing to fix
        return False
    B = getattr(I, "InterpreterBuilder", None)
    if B is None or not _layout_known(I, B):
        return False     # another interpreter layout (a later Triton): left as it is
    if getattr(B, "_t2t_bf16", False):
        return True
    global _SAVED
    _SAVED = {cls: dict(vars(cls)) for cls in _patched_classes(I, B)}
    bf = _Bfloat16(np, torch, tl, I)
    _patch_casts(bf)
    _patch_arithmetic(bf)
    _patch_dot(bf)
    _patch_reductions(bf)
    B._t2t_bf16 = True
    return True


_SAVED: dict = {}


def _patched_classes(I, B):
    return [c for c in (B, getattr(I, "ReduceOps", None), getattr(I, "ScanOps", None)) if c]


def disable() -> None:
    """Undo enable(): the interpreter computes as Triton ships it again (tests that enable
    these numerics for themselves leave the rest of the process as they found it)."""
    for cls, saved in _SAVED.items():
        for name in [n for n in vars(cls) if n not in saved]:
            delattr(cls, name)
        for name, value in saved.items():
            if vars(cls).get(name) is not value:
                setattr(cls, name, value)
    _SAVED.clear()


def _layout_known(I, B) -> bool:
    """Whether the interpreter has every part the patches replace or call (Triton 3.6's)."""
    return (all(hasattr(I, n) for n in ("TensorHandle", "ReduceOps", "ScanOps", "_convert_float"))
            and all(hasattr(B, n) for n in ("cast_impl", "create_dot", "create_fadd"))
            and all(hasattr(I.ReduceOps, n) for n in ("sum", "min_max"))
            and all(hasattr(I.ScanOps, n) for n in ("cumsum", "cumprod")))


class _Bfloat16:
    """The interpreter's bfloat16 handles and their exact float32 values, both ways."""

    def __init__(self, np, torch, tl, I):
        self.np, self.torch, self.tl, self.I = np, torch, tl, I
        self.B = I.InterpreterBuilder
        self.Handle = I.TensorHandle
        self.bf16, self.f32 = tl.bfloat16, tl.float32

    def is_bf16(self, h):
        return isinstance(h, self.Handle) and h.dtype.scalar == self.bf16

    def widen_data(self, data):
        np = self.np
        bits = np.ascontiguousarray(data).view(np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32)

    def narrow_data(self, data):
        np, torch = self.np, self.torch
        t = torch.from_numpy(np.ascontiguousarray(data, dtype=np.float32)).to(torch.bfloat16)
        return t.view(torch.int16).numpy().view(np.uint16).reshape(np.shape(data))

    def widen(self, h):
        return self.Handle(self.widen_data(h.data), self.f32) if self.is_bf16(h) else h

    def narrow(self, h):
        return self.Handle(self.narrow_data(h.data), self.bf16) if h.dtype.scalar == self.f32 \
            else h


def _patch_casts(bf: _Bfloat16) -> None:
    B, bf16, f32, Handle = bf.B, bf.bf16, bf.f32, bf.Handle
    original_cast = B.cast_impl

    def cast_impl(self, src, dst_type):
        """Conversions to and from bfloat16 through float32 (exact one way); to bfloat16
        rounded to nearest even, as `.to(tl.bfloat16)` rounds on the GPU (the interpreter
        truncates float32, and converts float16 and integers as if bfloat16 were uint16)."""
        dst = dst_type.scalar
        if bf.is_bf16(src):
            if dst == bf16:
                return src
            return original_cast(self, bf.widen(src), dst_type)
        if dst == bf16 and (src.dtype.scalar.is_floating() or src.dtype.scalar.is_int()):
            wide = original_cast(self, src, f32) if src.dtype.scalar != f32 else src
            return Handle(bf.narrow_data(wide.data), bf16)
        return original_cast(self, src, dst_type)
    B.cast_impl = cast_impl
    for name in ("create_si_to_fp", "create_ui_to_fp", "create_fp_to_si", "create_fp_to_ui",
                 "create_fp_ext", "create_fp_trunc"):
        setattr(B, name, lambda self, src, dst_type: self.cast_impl(src, dst_type))
    if not hasattr(B, "get_bf16"):      # a bfloat16 constant (tl.where(m, x, 0.0) of a bf16 x)
        B.get_bf16 = lambda self, value: Handle(
            bf.narrow_data(bf.np.array([value], dtype=bf.np.float32)), bf16)


def _patch_arithmetic(bf: _Bfloat16) -> None:
    """The binary, comparison, unary and ternary operations on bfloat16 computed on float32
    values, the result rounded once."""
    B, tl = bf.B, bf.tl

    def computing_wide(name, compare=False):
        original = getattr(B, name)

        def op(self, *args):
            if not any(bf.is_bf16(a) for a in args):
                return original(self, *args)
            out = original(self, *(bf.widen(a) for a in args))
            if compare:     # the truth values
                return bf.Handle(out.data.astype(bool), tl.int1)
            return bf.narrow(out)
        op.__name__ = name
        return op

    for name in _BINARY + _UNARY + _TERNARY:
        if hasattr(B, name):
            setattr(B, name, computing_wide(name))
    for name in _COMPARE:
        if hasattr(B, name):
            setattr(B, name, computing_wide(name, compare=True))


def _patch_dot(bf: _Bfloat16) -> None:
    """A floating-point dot: the product and the sum with the accumulator in float64,
    rounded to the accumulator's type once."""
    np, tl, I, B = bf.np, bf.tl, bf.I, bf.B
    bf16, f32, Handle = bf.bf16, bf.f32, bf.Handle
    original_dot = B.create_dot
    fp8 = {t for t in (getattr(tl, n, None) for n in ("float8e5", "float8e5b16", "float8e4nv",
                                                      "float8e4b8", "float8e4b15")) if t}
    exact = {tl.float16: np.float16, tl.float32: np.float32, tl.float64: np.float64}

    def wide_values(h):
        """A dot operand's values in float64 (fp8 through float16, exactly, as Triton's
        interpreter converts them); None for a type this does not know."""
        t = h.dtype.scalar
        if t == bf16:
            return bf.widen_data(h.data).astype(np.float64)
        if t in fp8:
            return I._convert_float(h.data, t, tl.float16, None).view(np.float16).astype(
                np.float64)
        if t in exact:
            return np.asarray(h.data).view(exact[t]).astype(np.float64)
        return None

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        wa, wb = wide_values(a), wide_values(b)
        acc = d.dtype.scalar
        wd = wide_values(d) if acc in (f32, tl.float64, tl.float16, bf16) else None
        if wa is None or wb is None or wd is None:
            return original_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        out = np.matmul(wa, wb) + wd
        if acc == bf16:
            return Handle(bf.narrow_data(out.astype(np.float32)), bf16)
        return Handle(out.astype(exact[acc]), acc)
    B.create_dot = create_dot


def _patch_reductions(bf: _Bfloat16) -> None:
    """sum, min/max, cumsum and cumprod of bfloat16 computed on float32 values."""
    tl, I, bf16, f32 = bf.tl, bf.I, bf.bf16, bf.f32

    def wide_tensor(t):
        return tl.core.tensor(bf.widen(t.handle), t.type.with_element_ty(f32)
                              if hasattr(t.type, "with_element_ty") else f32)

    def reduction(cls, name):
        original = getattr(cls, name)

        def op(self, input, *args, **kwargs):
            x = input[0] if isinstance(input, tuple) else input
            if not (isinstance(x, tl.core.tensor) and bf.is_bf16(x.handle)):
                return original(self, input, *args, **kwargs)
            out = original(self, wide_tensor(x), *args, **kwargs)
            return _narrowed(out)
        op.__name__ = name
        return op

    def _narrowed(out):
        if isinstance(out, (list, tuple)):
            return type(out)(_narrowed(o) for o in out)
        if isinstance(out, tl.core.tensor) and out.handle.dtype.scalar == f32:
            ty = out.type.with_element_ty(bf16) if hasattr(out.type, "with_element_ty") else bf16
            return tl.core.tensor(bf.narrow(out.handle), ty)
        return out

    for name in ("sum", "min_max"):
        setattr(I.ReduceOps, name, reduction(I.ReduceOps, name))
    for name in ("cumsum", "cumprod"):
        setattr(I.ScanOps, name, reduction(I.ScanOps, name))
