"""Compile-time Python inside kernels (mixin of `Lowerer`): `math`, numpy and torch names,
conditional expressions on constants and dtypes, dtype comparisons.

cuTile evaluates these while compiling; the translator evaluates what is known at translation
time and leaves to Triton what is known only per specialization (a dtype comparison or a
constexpr condition), which Triton folds when it compiles each specialization.
"""
from __future__ import annotations

import libcst as cst

from ..model import (PREC, ArrayInfo, ArrayV, ConstExprV, ConstV, DTypeV, Lowered, NoneV, PyRefV,
                     TiledViewV, TileV)
from . import pyconst


class CompileTimePython:
    """Mixin of `Lowerer`."""

    def py_ref(self, qualname: str, node) -> Lowered:
        """`math.pi`, `np.float32`, `torch.int32`: compile-time values, as cuTile reads them."""
        dtype = pyconst.dtype_name(qualname)
        if dtype is not None:
            return self.ct_ref("cuda.tile." + dtype, node)
        value = pyconst.math_constant(qualname)
        if value is not None:
            return self.const(value)
        return Lowered(qualname, PyRefV(qualname))

    def py_call(self, qualname: str, node: cst.Call) -> Lowered:
        module, _, attr = qualname.partition(".")
        if module == "operator" and attr in pyconst.OPERATOR_FUNCTIONS:
            if any(a.keyword is not None or a.star for a in node.args):
                raise self.error(node, "T2T102", f"{qualname}() takes positional arguments",
                                 help="pass the arguments by position")
            construct = pyconst.OPERATOR_FUNCTIONS[attr]
            return self.apply_construct(construct, node, *(self.expr(a.value)
                                                           for a in node.args))
        fn = pyconst.math_function(qualname)
        if fn is None:
            raise self.error(node, "T2T107", f"`{qualname}` cannot be called inside a kernel",
                             help="kernels may call math functions, cuda.tile constructs and "
                                  "helpers; compute anything else on the host")
        if any(a.keyword is not None or a.star for a in node.args):
            raise self.error(node, "T2T102", f"{qualname}() takes positional arguments here",
                             help="pass the arguments by position")
        args = [self.expr(a.value) for a in node.args]
        if all(isinstance(a.val, ConstV) for a in args):
            try:
                return self.const(pyconst.fold_math(fn, [a.val.value for a in args]))
            except (ValueError, TypeError, OverflowError) as e:
                raise self.error(node, "T2T103", f"{qualname}(): {e}",
                                 help="give arguments this function accepts at "
                                      "translation time") from None
        tl_fn = pyconst.MATH_FUNCTIONS[fn]
        if tl_fn is None or len(args) != 1:
            raise self.error(node, "T2T103", f"`{qualname}` needs compile-time constant "
                             "arguments inside a kernel",
                             help="fold it on the host, or use the cuda.tile function")
        # a value known only at launch (a ct.Constant parameter, a scalar): Triton math in fp32
        a = args[0]
        operand = f"{a.wrap(PREC['*'])} * 1.0" if isinstance(a.val, ConstExprV) else a.code
        return Lowered(f"{tl_fn}({operand})", TileV(shape=(), dtype="float32"))

    def dtype_call(self, dtype, node: cst.Call) -> Lowered:
        """A dtype called on a value (`np.float32(1.5)`, `ct.int16()`): on a constant cuTile
        folds it into a constant of that dtype; on a runtime scalar or tile it is a conversion."""
        from ..model import DTYPES
        d = DTYPES[dtype.name]
        if any(a.keyword is not None or a.star for a in node.args) or len(node.args) > 1:
            raise self.error(node, "T2T102", f"ct.{d.name}() takes at most one positional "
                                             "argument", help="pass at most one value by position")
        if not node.args:
            return self.const(pyconst.dtype_cast(d.kind, None, d.bits))
        arg = self.expr(node.args[0].value)
        if isinstance(arg.val, ConstV):
            value = arg.val.value
            if isinstance(value, str):
                # cuTile converts the constant with the kind's Python type first:
                # `ct.float32("-inf")`, `ct.int32("7")`
                try:
                    value = {"bool": bool, "int": int, "uint": int}.get(d.kind, float)(value)
                except ValueError:
                    pass
            if not isinstance(value, (bool, int, float)):
                raise self.error(node.args[0].value, "T2T102",
                                 f"ct.{d.name}() of {value!r}: not a number",
                                 help="cuTile rejects it too; pass a number")
            try:
                return self.const(pyconst.dtype_cast(d.kind, value, d.bits, d.name))
            except (ValueError, OverflowError) as e:   # int(inf), int(nan)
                raise self.error(node, "T2T103", f"ct.{d.name}({value!r}): {e}",
                                 help="give a value of the dtype's range") from None
        if d.triton is None:
            raise self.error(node, "T2T106", f"ct.{d.name} has no Triton equivalent",
                             help="only a constant can be converted to it (a number rounded "
                                  "to the dtype)")
        if isinstance(arg.val, (TileV, ConstExprV)):
            shape = arg.val.shape if isinstance(arg.val, TileV) else ()
            return Lowered(arg.cast(dtype.triton) if isinstance(arg.val, TileV)
                           else f"tl.full((), {arg.code}, {dtype.triton})",
                           TileV(shape=shape, dtype=d.name))
        raise self.error(node, "T2T102", f"ct.{d.name}() needs a number or a scalar",
                         help="pass a number, or a scalar computed in the kernel")

    def if_exp(self, node: cst.IfExp) -> Lowered:
        test = self.expr(node.test)
        if isinstance(test.val, (ConstV, NoneV)):
            # cuTile evaluates a conditional on constants at compile time: one branch exists
            taken = test.val.value if isinstance(test.val, ConstV) else False
            return self.expr(node.body if taken else node.orelse)
        body = self.expr(node.body)
        orelse = self.expr(node.orelse)
        p = PREC["ifexp"]
        code = f"{body.wrap(p + 1)} if {test.wrap(p + 1)} else {orelse.wrap(p)}"
        if isinstance(test.val, ConstExprV):
            # a condition Triton folds per specialization (dtypes, constexpr parameters)
            if isinstance(body.val, DTypeV) and isinstance(orelse.val, DTypeV):
                return Lowered(code, DTypeV(code=f"({code})", tf32_when=tf32_choice(
                    test.code, body.val, orelse.val)), p)
            if isinstance(body.val, (ConstV, ConstExprV)) and isinstance(
                    orelse.val, (ConstV, ConstExprV)):
                return Lowered(code, ConstExprV(f"({code})"), p)
        if isinstance(body.val, (ArrayV, TiledViewV)) or isinstance(orelse.val, (ArrayV,
                                                                                   TiledViewV)):
            return self.if_exp_view(node, test, body, orelse)
        return Lowered(code, body.val, p)

    def if_exp_view(self, node, test: Lowered, body: Lowered, orelse: Lowered) -> Lowered:
        """`x.tiled_view(T) if USE_X else y.tiled_view(T)` (or of two arrays): one view whose
        pointer, shapes and strides are conditional expressions (Triton folds them when the
        condition is a constexpr). Both sides must be views of one rank and tile shape."""
        a, b = body.val, orelse.val
        kind = "tiled views" if isinstance(a, TiledViewV) else "arrays"
        if type(a) is not type(b):
            raise self.error(node, "T2T105", "a conditional expression choosing between a "
                             f"{_what(a)} and a {_what(b)} is not supported",
                             help="give both branches the same kind of value")
        ia, ib = (a.array, b.array) if kind == "tiled views" else (a.info, b.info)
        same = ia.rank is not None and ia.rank == ib.rank and ia.flat == ib.flat
        if kind == "tiled views":
            pa, pb = (getattr(v.padding, "val", None) for v in (a, b))
            same = same and [str(d) for d in a.tile_shape] == [str(d) for d in b.tile_shape] \
                and a.steps == b.steps and (
                    (pa is None and pb is None) or (pa is not None and pb is not None and getattr(
                        pa, "member", None) == getattr(pb, "member", None) and getattr(
                        pa, "member", None) is not None))
        if not same:
            raise self.error(node, "T2T105", f"a conditional expression choosing between {kind} "
                             "of different ranks, tile shapes, traversal steps or padding modes "
                             "is not supported",
                             help="bind each branch to its own name and branch with `if`")
        t = test.wrap(PREC["ifexp"] + 1)

        def pick(x: str, y: str) -> str:
            return x if x == y else f"({x} if {t} else {y})"

        info = ArrayInfo(self.fresh_name(f"{ia.name}_or_{ib.name}"), rank=ia.rank,
                         pointer=pick(ia.pointer, ib.pointer), flat=ia.flat,
                         shape_codes=[pick(ia.shape(d), ib.shape(d)) for d in range(ia.rank)],
                         stride_codes=[pick(ia.stride(d), ib.stride(d))
                                       for d in range(ia.rank)])
        if kind == "arrays":
            return Lowered(info.name, ArrayV(info))
        return Lowered(info.name, TiledViewV(info, list(a.tile_shape), a.padding, a.steps))


def _what(v) -> str:
    return {ArrayV: "array", TiledViewV: "tiled view"}.get(type(v), "value")


def tf32_choice(test: str, body: DTypeV, orelse: DTypeV):
    """When `body if test else orelse` is tfloat32: None (never) or a Triton condition."""
    def is_tf32(d: DTypeV):
        return True if d.name == "tfloat32" else (d.tf32_when or False)
    a, b = is_tf32(body), is_tf32(orelse)
    if a is False and b is False:
        return None
    if a is True and b is True:
        return "True"
    if b is False:
        return test if a is True else f"({test}) and ({a})"
    if a is False:
        return f"not ({test})" if b is True else f"not ({test}) and ({b})"
    return f"(({test}) and ({a})) or (not ({test}) and ({b}))"


def dtype_compare(left: Lowered, right: Lowered, equal: bool) -> Lowered:
    """`A.dtype == ct.float32`: folded when both dtypes are known, else a comparison Triton
    folds per specialization (dtypes are compile-time in Triton too)."""
    lv, rv = left.val, right.val
    if lv.name is not None and rv.name is not None:
        same = (lv.name == rv.name) == equal
        return Lowered(repr(same), ConstV(same))
    for known, other in ((lv, rv), (rv, lv)):
        if known.name == "tfloat32" and other.array is not None:
            return Lowered(repr(not equal), ConstV(not equal))  # arrays are never tfloat32
    op = "==" if equal else "!="
    code = f"{left.wrap(PREC['cmp'] + 1)} {op} {right.wrap(PREC['cmp'] + 1)}"
    return Lowered(code, ConstExprV(code, kind="bool"), PREC["cmp"])
