"""ct.divmod(x, y) and the builtin divmod: the floor quotient and the floor remainder, as the
pair `(x // y, x % y)` with cuTile's (Python's) floor semantics for integers.

cuTile implements divmod for integers only and rejects floats; so does the translation.
"""
from tile2triton.model import Lowered, TupleV
from tile2triton.pattern_api import Example, Pattern, bind_operands

from ._common import dtype_of, is_float
from .operators import FloorDivMod


class DivMod(Pattern):
    constructs = ("divmod",)
    summary = "integer floor quotient and remainder as a pair (also the builtin divmod)"
    triton = "`(x // y, x % y)` with the floor helpers of `//` and `%`"

    def signature(x, y, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, q, r, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    d, m = ct.divmod(a, 7)
    ct.store(q, (ct.bid(0),), d)
    ct.store(r, (ct.bid(0),), m)
""", expect=["d, m = (_floordiv(a, 7), _mod(a, 7))"]),
        Example("""
@ct.kernel
def k(x, q, TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,)).astype(ct.float32)
    d, m = divmod(a, 2.0)
    ct.store(q, (ct.bid(0),), d)
""", error="T2T102", message="integers"),
    ]

    def lower(self, call, cx):
        x, y = call.arg("x"), call.arg("y")
        for low, param in ((x, "x"), (y, "y")):
            if is_float(dtype_of(low)) or isinstance(getattr(low.val, "value", None), float):
                raise cx.error(call.node_of(param), "T2T102",
                               "divmod() is defined for integers only",
                               help="cuTile rejects floats here too; use `//` and `%`")
        quot = FloorDivMod().lower(bind_operands(FloorDivMod(), call.node, "floordiv",
                                                 [x, y], cx), cx)
        rem = FloorDivMod().lower(bind_operands(FloorDivMod(), call.node, "mod", [x, y], cx), cx)
        return Lowered(f"({quot.code}, {rem.code})", TupleV([quot.val, rem.val]),
                       items=[quot, rem])
