"""Calls: what a call's callee is (a construct, a builtin, a helper of the module, a value
called), `*args` spread, constructs bound to their patterns, and the builtins kernels may
call."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .installed import lacks
from ..model import (
    CT_TO_TL_DTYPE,
    ArrayListV,
    ChoiceV,
    ConstExprV,
    ConstV,
    CtRefV,
    DTypeV,
    EnumClassV,
    EnumV,
    FuncV,
    Lowered,
    NoneV,
    PyRefV,
    TableV,
    TileV,
    TupleV,
)
from ..diagnostics import TranslationError
from ..pattern_api import bind
from ..rewrite.host_kernels import ENUM_KEYWORDS
from .memory_order import Access, access_of, barrier
from .tables import is_rejected

# Arguments of constructs that Triton has no counterpart for, and what the translation does
# instead; each one passed leaves a `# tile2triton:` note in the kernel (Calls.note_dropped_
# arguments). Directed rounding modes are not here: they are translated or refused.
DROPPED_ARGUMENTS = {
    "latency": "Triton schedules memory itself",
    "flush_to_zero": "Triton keeps subnormals",
    "rounding_mode": "Triton's default precision",
}


def _takes_effect(param: str, val) -> bool:
    """Whether the value passed for a DROPPED_ARGUMENTS parameter asks for anything."""
    if isinstance(val, NoneV):
        return False
    if param == "flush_to_zero":
        return not (isinstance(val, ConstV) and val.value is False)
    if param == "rounding_mode":  # RN is what Triton does; FULL asks for no less than it
        return getattr(val, "member", None) == "APPROX"
    return True


class Calls:
    """Mixin of `Lowerer`: calls, up to the helper call (helper_calls.py)."""

    def x_Call(self, node: cst.Call) -> Lowered:
        if isinstance(node.func, cst.Lambda):      # `(lambda t: t * 2)(x)`: nested_defs.py
            local = self.fresh_name("_lambda")
            self.nested_lambda(local, node.func)
            return self.helper_call(self.env[local].name, node)
        q = self.resolve(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        if q and q.startswith("cuda.tile.") and CT_TO_TL_DTYPE.get(q[len("cuda.tile."):],
                                                                  "") is None:
            # a dtype Triton lacks, called on a constant (`ct.float8_e8m0fnu(0.2)`), is a
            # number rounded to it; on anything else pyvalues.py says why not
            return self.dtype_call(DTypeV(name=q[len("cuda.tile."):]), node)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
            base = self.expr(node.func.value)
            if isinstance(base.val, TableV):
                return self.table_get(node, base)        # tables.py: `kwargs.get("k")`
        start = len(self.out)
        low = self.call_value(self.expr(node.func), self.spread_starred(node))
        return self.row_load(node, low, start) if id(node) in self.row_loads else low

    def spread_starred(self, node: cst.Call) -> cst.Call:
        """`f(a, *t)` where `t`'s length is known here is `f(a, t[0], t[1])`, as Python passes
        it (`*(1, 2)` written out gives its items)."""
        if not any(a.star == "*" for a in node.args):
            return node
        args = []
        for a in node.args:
            v = a.value
            if a.star != "*":
                args.append(a)
                continue
            if isinstance(v, (cst.Tuple, cst.List)) and not any(
                    isinstance(e, cst.StarredElement) for e in v.elements):
                args += [cst.Arg(e.value) for e in v.elements]
                continue
            low = self.expr(v)
            if not isinstance(low.val, TupleV) or not low.val.known:
                raise self.error(a, "T2T103", "`*` needs a tuple whose length is known here",
                                 help="write the arguments out, or unpack a tuple of known length")
            if not isinstance(v, (cst.Name, cst.Attribute)):
                raise self.error(a, "T2T102", "`*` of this expression is not supported",
                                 help="bind the tuple to a name first")
            n = len(low.items) if low.items is not None else len(low.val.items)
            for k in range(n):
                item = cst.Subscript(v, [cst.SubscriptElement(cst.Index(cst.Integer(str(k))))])
                self.pm.origins[item] = v
                args.append(cst.Arg(item))
        new = node.with_changes(args=args)
        self.pm.origins[new] = node
        return new

    def call_value(self, func: Lowered, node: cst.Call) -> Lowered:
        """`node` (a call) with its callee already lowered to `func`."""
        v = func.val
        if isinstance(v, CtRefV):
            q = v.qualname
            if q.startswith("method."):
                receiver = v.receiver if v.receiver is not None else self.expr(node.func.value)
                return self.construct(q[len("method."):], node, receiver)
            if not q.startswith("cuda.tile."):
                raise self.error(node, "T2T100", f"`{q}` is not a cuda.tile construct",
                                 help="call a cuda.tile construct (docs/constructs.md lists them) "
                                      "or a helper function of the module")
            return self.construct(q[len("cuda.tile."):], node)
        if isinstance(v, PyRefV):
            return self.py_call(v.qualname, node)
        if isinstance(v, DTypeV) and v.name is not None:
            return self.dtype_call(v, node)  # pyvalues.py: `np.float32(1.5)`, `ct.int32()`
        if isinstance(v, FuncV):
            if v.name.startswith("builtins."):
                return self.builtin_call(v.name[len("builtins."):], node)
            return self.helper_call(v.name, node)
        if isinstance(v, ChoiceV):
            return self.choice_call(node, v)            # tables.py
        if isinstance(v, EnumClassV):
            return self.enum_call(node, v.name)
        raise self.error(node.func, "T2T101", "only cuda.tile constructs and helper functions "
                                              "can be called inside kernels",
                         help="call a cuda.tile construct or a function defined in the module (it "
                              "is translated as a helper); compute other values on the host and "
                              "pass them in")

    def tuple_call(self, node: cst.Call) -> Lowered:
        """`tuple(<generator>)` over ct.static_iter (static_iter.py), `tuple(t)` of a tuple."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            raise self.error(node, "T2T102", "tuple() in kernels takes one argument",
                             help="call tuple() with one iterable")
        arg = node.args[0].value
        if isinstance(arg, cst.GeneratorExp):
            return self.tuple_comprehension(arg)
        low = self.expr(arg)
        items = self.tuple_items(arg, low)
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        return Lowered(code, TupleV([i.val for i in items]), items=items)

    def construct(self, name: str, node: cst.Call, receiver: Optional[Lowered] = None):
        pattern = self.mc.patterns.get(name)
        if (pattern is None or name in pattern.newer) and (version := lacks(name)):
            raise self.error(node, "T2T100", f"ct.{name} is not supported: cuda-tile {version} "
                             "(installed) has no such name, so cuTile cannot compile it either",
                             help="use it only in a branch of a ct.Constant that a newer "
                                  "cuda-tile takes (the translation fails the launches taking "
                                  "that branch), or spell it with constructs this version has")
        if pattern is None:
            raise self.error(node, "T2T100", f"ct.{name} is not supported by tile2triton",
                             help="see docs/constructs.md for the constructs tile2triton "
                                  "translates; rewrite this part or open an issue")
        call = bind(pattern, name, node, self, receiver)
        access = access_of(name, call, receiver)
        if access is not None:   # memory_order.py: a barrier where another thread may race
            array, elementwise, write, scalar = access
            acc = Access(array, elementwise, write, pos=len(self.out) if self.can_insert
                         else None, depth=self.depth, scalar=scalar)
            if self.order.note(acc):
                self.before(barrier(acc.array))
        enum_choice = self.enum_choice_of(call)
        if enum_choice is not None:
            return self.construct_per_member(pattern, call, *enum_choice)
        lowered = pattern.lower(call, self)
        self.note_dropped_arguments(call)
        return lowered

    def note_dropped_arguments(self, call) -> None:
        """A `# tile2triton:` line above the statement for each argument the translation leaves
        out because Triton has no counterpart (a latency hint, flush-to-zero, an approximate
        rounding mode), once per kernel and spelling: a reviewer sees what is gone."""
        for param, why in DROPPED_ARGUMENTS.items():
            node = call.syntax(param)
            if not isinstance(node, cst.BaseExpression) \
                    or not _takes_effect(param, call.val(param)):
                continue
            text = self.source_of(node)
            key = (call.name, param, text)
            note = f"# tile2triton: {param}={text} of ct.{call.name} left out"
            # the reason on a line of its own where the note would pass 80 columns (100 at the
            # indentation of a nested loop body: ruff's E501 on the converted module)
            lines = [f"{note} ({why})"] if len(note) + len(why) <= 77 else [note, f"# ({why})"]
            if key not in self.hint_notes and self.before(*lines):
                self.hint_notes.add(key)

    def enum_choice_of(self, call):
        """(parameter, ChoiceV) where `call` passes a cuTile enum member chosen at launch (a
        host function's `rounding_mode` handed to its kernel: rewrite/host_kernels.py), else
        None."""
        for param in ENUM_KEYWORDS:
            if isinstance(call.syntax(param), cst.Name):
                v = call.val(param)
                if isinstance(v, ChoiceV) and any(isinstance(o.val, EnumV)
                                                  for _, o in v.options) and all(
                        isinstance(o.val, (EnumV, NoneV)) for _, o in v.options):
                    return param, v
        return None

    def construct_per_member(self, pattern, call, param, choice):
        """The construct lowered once per member `param` may hold, as one choice Triton
        folds per specialization; a member the construct refuses is a compile-time error of
        the launches passing it (as cuTile rejects them while compiling)."""
        results, first_error, sub = [], None, call
        for cond, option in choice.options:
            sub = sub.with_value(param, option)
            try:
                results.append((cond, pattern.lower(sub, self)))
            except TranslationError as e:
                first_error = first_error or e
                results.append((cond, self._rejected(e)))
        if all(is_rejected(r) for _, r in results):
            raise first_error
        same: dict = {}     # members the construct lowers alike: one branch
        for cond, r in results:
            same.setdefault(r.code, ([], r))[0].append(cond)
        if len(same) == 1:
            return results[0][1]        # (the construct ignores the member)
        return self.choice_value([(" or ".join(conds), r) for conds, r in same.values()])

    def builtin_call(self, name: str, node: cst.Call) -> Lowered:
        if name == "tuple":
            return self.tuple_call(node)
        if name == "sum" and len(node.args) in (1, 2) and all(
                a.keyword is None and not a.star for a in node.args):
            return self.builtin_sum(node)
        args = [self.expr(a.value) for a in node.args]
        if name in ("min", "max"):
            if len(args) < 2 or any(a.keyword is not None for a in node.args):
                raise self.error(node, "T2T102", f"{name}() in kernels takes two or more scalars",
                                 help="pass two or more scalars; for a tile use "
                                      "ct.minimum/ct.maximum or ct.min/ct.max")
            if all(isinstance(a.val, ConstV) for a in args):
                return self.fold(node, min if name == "min" else max,
                                 *(a.val.value for a in args))
            if all(isinstance(a.val, (ConstV, ConstExprV)) for a in args):
                return Lowered(f"{name}({', '.join(a.code for a in args)})", ConstExprV(name))
            # runtime scalars or tiles: cuTile's builtin max/min are ct.maximum / ct.minimum
            acc = args[0]
            for a in args[1:]:
                acc = self.apply_construct("minimum" if name == "min" else "maximum", node, acc, a)
            return acc
        if name == "len":
            if len(args) == 1 and isinstance(args[0].val, TupleV):
                return self.const(len(args[0].val.items))
            if len(args) == 1 and isinstance(args[0].val, ArrayListV):
                return Lowered(args[0].val.info.count, TileV(shape=(), dtype="int32",
                                                             nonneg=True))
            raise self.error(node, "T2T100", "len() is supported on tuples only in this version",
                             help="use len() on a tuple; for a tile or array use its .shape")
        if name in ("float", "int", "bool"):
            if len(args) == 1 and isinstance(args[0].val, ConstV):
                return self.fold(node, {"float": float, "int": int, "bool": bool}[name],
                                 args[0].val.value)
            if name == "float" and len(args) == 1:
                return Lowered(args[0].cast("tl.float32"), TileV(shape=(), dtype="float32"))
            if name == "int" and len(args) == 1:
                return Lowered(args[0].cast("tl.int32"), TileV(shape=(), dtype="int32"))
        if name == "abs" and len(args) == 1:
            return self.construct("abs", node)
        if name == "divmod":  # cuTile treats the builtin as ct.divmod
            return self.construct("divmod", node)
        if name == "print":  # cuTile treats the builtin as ct.print
            return self.construct("print", node)
        raise self.error(node, "T2T101", f"builtin `{name}()` is not supported here",
                         help="use a cuda.tile construct instead, or compute the value on the "
                              "host and pass it in")

    def builtin_sum(self, node: cst.Call) -> Lowered:
        """`sum(t)` of a tuple (or of a comprehension over a sequence known here, `sum([i * i
        for i in tup])`): the items added left to right from `start` (0), folded when they are
        constants."""
        arg = node.args[0].value
        if isinstance(arg, (cst.ListComp, cst.GeneratorExp)):
            gen = cst.GeneratorExp(elt=arg.elt, for_in=arg.for_in)
            self.pm.origins[gen] = arg
            seq = self.tuple_comprehension(gen)
        else:
            seq = self.expr(arg)
        if not isinstance(seq.val, TupleV):
            raise self.error(arg, "T2T101", "sum() in kernels adds the items of a tuple",
                             help="use ct.sum for the elements of a tile")
        items = seq.items if seq.items is not None and len(seq.items) == len(seq.val.items) \
            else [self.const(v.value) if isinstance(v, ConstV) else None for v in seq.val.items]
        if any(i is None for i in items):
            raise self.error(arg, "T2T101", "sum() of a tuple whose items are not known here "
                             "is not supported",
                             help="sum a tuple whose items are known (a literal tuple or a tuple "
                                  "parameter), or add the items in a loop")
        acc = self.expr(node.args[1].value) if len(node.args) == 2 else self.const(0)
        for item in items:
            acc = self.operator("+", node, acc, item)
        return acc
