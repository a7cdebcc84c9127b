"""Compile-time tables and user enums inside kernels (mixin of `Lowerer`).

cuTile runs the Python of a kernel while compiling it, so kernels may pick a construct out of a
module-level table (`{Op.ADD: ct.atomic_add, Op.MAX: ct.atomic_max}[Op(k)]`), compare members
of the user's enum classes, or call a small helper that returns a handle (`x.get_raw_memory()
.atomic_add_offset`). The translator evaluates what is known at translation time. A table
indexed by a ct.Constant parameter becomes a `ChoiceV`: each entry with the constexpr condition
that selects it; calling it lowers the call once per entry into a conditional expression on
those conditions, which Triton folds per specialization (only the taken entry is compiled).
"""
from __future__ import annotations

import hashlib
import operator
from typing import Optional

import libcst as cst

from ..diagnostics import TranslationError
from ..model import (PREC, ArrayV, ChoiceV, ConstExprEnumV, ConstExprV, ConstV, CtRefV,
                     EnumClassV, EnumV, FuncV, Lowered, NoneV, PyRefV, RawMemoryV, TableV,
                     TiledViewV, TileV)
from ..parse.cst_tools import single_return

# values that exist only at translation time (a helper returning one is inlined; calling a
# choice of them gives a choice of the results)
HANDLES = (CtRefV, FuncV, ChoiceV, TableV, EnumClassV, RawMemoryV, TiledViewV, PyRefV, EnumV,
           ConstExprEnumV)

_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

NO_ENTRY = '''@triton.jit
def {name}():
    tl.static_assert(False, "the compile-time table has no entry for this key")
'''

REJECTED = '''@triton.jit
def {name}():
    tl.static_assert(False, {message})
'''


class CompileTimeTables:
    """Mixin of `Lowerer`."""

    # ------------------------------------------------------------------------------ enums
    def enum_members(self, cls: str) -> dict:
        """member -> value of the user's enum class `cls` (values are compile-time constants)."""
        out = {}
        for member, node in self.pm.enums[cls].items():
            low = self.expr(node)
            if isinstance(low.val, ConstV):
                out[member] = low.val.value
            elif isinstance(low.val, EnumV) and low.val.user:   # an alias: `B = A`
                out[member] = low.val.value
            else:
                raise self.error(node, "T2T103", f"`{cls}.{member}` is not a compile-time "
                                 "constant", help="give enum members numbers or strings")
        return out

    def enum_member(self, cls: str, member: str, node) -> Lowered:
        members = self.enum_members(cls)
        if member not in members:
            raise self.error(node, "T2T105", f"`{cls}` has no member `{member}`",
                             help=f"its members are {', '.join(members) or 'none'}")
        return Lowered(f"{cls}.{member}", EnumV(cls, member, members[member], user=True))

    def enum_attribute(self, node: cst.Attribute, base: Lowered) -> Optional[Lowered]:
        """`Op.ADD`, `member.value`, `member.name`; None when `base` is not a user enum."""
        attr, v = node.attr.value, base.val
        if isinstance(v, EnumClassV):
            return self.enum_member(v.name, attr, node)
        if isinstance(v, EnumV) and v.user:
            if attr == "value":     # (a member a launch chooses has its value read here)
                return self.const(v.value if v.value is not None
                                  else self.enum_members(v.enum)[v.member])
            if attr == "name":
                return self.const(v.member)
            raise self.error(node, "T2T100", f"`.{attr}` of an enum member is not supported",
                             help="kernels may read `.value` and `.name`")
        if isinstance(v, ConstExprEnumV):
            if attr == "value":
                return Lowered(v.code, ConstExprV(v.code), PREC["atom"])
            if attr == "name":
                members = self.enum_members(v.enum)
                code = "None"
                for m, value in reversed(list(members.items())):
                    code = f"{m!r} if {v.code} == {value!r} else {code}"
                return Lowered(f"({code})", ConstExprV(f"({code})", kind="other"))
            raise self.error(node, "T2T100", f"`.{attr}` of an enum member is not supported",
                             help="kernels may read `.value` and `.name`")
        return None

    def enum_call(self, node: cst.Call, cls: str) -> Lowered:
        """`Op(value)`: the member with that value (a ct.Constant value: chosen at launch)."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            raise self.error(node, "T2T102", f"`{cls}(...)` takes one value inside kernels",
                             help="pass one value")
        arg = self.expr(node.args[0].value)
        v = arg.val
        if isinstance(v, EnumV) and v.user and v.enum == cls:
            return arg
        if isinstance(v, ConstV):
            for member, value in self.enum_members(cls).items():
                if value == v.value and type(value) is not bool or value is v.value:
                    return self.enum_member(cls, member, node)
            raise self.error(node, "T2T105", f"{v.value!r} is not a value of `{cls}`",
                             help="cuTile raises ValueError here too")
        if isinstance(v, ConstExprV):
            return Lowered(arg.wrap(PREC["cmp"] + 1), ConstExprEnumV(cls, arg.wrap(PREC["cmp"] + 1)),
                           PREC["cmp"] + 1)
        raise self.error(node, "T2T103", f"`{cls}(...)` needs a compile-time value",
                         help="pass the value as a ct.Constant parameter")

    def enum_compare(self, node, left: Lowered, right: Lowered, symbol: str
                     ) -> Optional[Lowered]:
        """A comparison of user enum members (`==`, `!=`, `is`, `is not`; `<` ... of IntEnum
        members, which are ints): folded, or a constexpr condition when a side is chosen at
        launch. None when neither side is a user enum member."""
        def user(v):
            return isinstance(v, EnumV) and v.user or isinstance(v, ConstExprEnumV)

        def as_int(v):    # an IntEnum/IntFlag member compares as its value
            return isinstance(v, EnumV) and v.user and self.pm.enum_bases.get(
                v.enum) in ("IntEnum", "IntFlag")
        lv, rv = left.val, right.val
        if not (user(lv) or user(rv)):
            return None
        equal = symbol in ("==", "is")
        if symbol in ("<", "<=", ">", ">="):
            if all(as_int(v) or isinstance(v, ConstV) for v in (lv, rv)):
                return self.fold(node, _ORDER[symbol], lv.value, rv.value)
            raise self.error(node, "T2T105", f"`{symbol}` does not order members of this enum",
                             help="cuTile rejects it too; only IntEnum members are ordered")
        if isinstance(lv, EnumV) and isinstance(rv, EnumV):
            same = lv.enum == rv.enum and lv.member == rv.member or (
                lv.user and rv.user and lv.enum == rv.enum and lv.value == rv.value) or (
                symbol in ("==", "!=") and as_int(lv) and as_int(rv) and lv.value == rv.value)
            return self.const(same == equal)
        for a, b in ((lv, rv), (rv, lv)):
            if as_int(a) and isinstance(b, ConstV) and symbol in ("==", "!="):
                return self.const((a.value == b.value) == equal)
        if isinstance(rv, ConstExprEnumV) and not isinstance(lv, ConstExprEnumV):
            lv, rv = rv, lv
        op = "==" if equal else "!="
        if isinstance(lv, ConstExprEnumV) and isinstance(rv, EnumV):
            if not rv.user or rv.enum != lv.enum:
                return self.const(not equal)
            code = f"{lv.code} {op} {rv.value!r}"
        elif isinstance(lv, ConstExprEnumV) and isinstance(rv, ConstExprEnumV):
            if lv.enum != rv.enum:
                return self.const(not equal)
            code = f"{lv.code} {op} {rv.code}"
        else:
            return self.const(not equal)   # an enum member never equals a non-member
        return Lowered(code, ConstExprV(code, kind="bool"), PREC["cmp"])

    # ----------------------------------------------------------------------------- tables
    def x_Dict(self, node: cst.Dict) -> Lowered:
        entries = []
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                raise self.error(el, "T2T101", "`**` in a dict is not supported in kernels",
                                 help="write the dict's entries out literally")
            key = self.expr(el.key)
            if not (isinstance(key.val, (ConstV, EnumV))):
                raise self.error(el.key, "T2T103", "dict keys in kernels must be compile-time "
                                 "constants (numbers, strings, enum members)",
                                 help="use numbers, strings or enum members as keys")
            entries.append((_key(key.val), self.expr(el.value)))
        return Lowered("{...}", TableV(entries))

    def table_index(self, node, base: Lowered, key: Lowered) -> Lowered:
        """`table[key]`: the entry, or a choice among entries for a key chosen at launch."""
        entries = base.val.entries
        kv = key.val
        if isinstance(kv, (ConstV, EnumV)):
            k = _key(kv)
            for ek, value in entries:
                if ek == k:
                    return value
            raise self.error(node, "T2T105", f"the table has no entry for {key.code}",
                             help="cuTile raises KeyError here too")
        if isinstance(kv, ConstExprEnumV):
            options = [(f"{kv.code} == {ek[3]!r}", value) for ek, value in entries
                       if isinstance(ek, tuple) and ek[:2] == ("enum", kv.enum)]
        elif isinstance(kv, ConstExprV):
            k = key.wrap(PREC["cmp"] + 1)
            options = [(f"{k} == {ek!r}", value) for ek, value in entries
                       if not isinstance(ek, tuple)]
        else:
            raise self.error(node, "T2T103", "a table can only be indexed by a compile-time "
                             "key inside kernels",
                             help="index it with a constant, an enum member or a ct.Constant "
                                  "parameter")
        return Lowered(base.code, ChoiceV(options))

    def table_get(self, node: cst.Call, base: Lowered) -> Lowered:
        """`d.get(key[, default])` of a dict known here (`**kwargs`): the entry, else the
        default (None)."""
        args = node.args
        if not 1 <= len(args) <= 2 or any(a.keyword is not None or a.star for a in args):
            raise self.error(node, "T2T102", "dict.get() takes a key and an optional default",
                             help="call .get(key) or .get(key, default)")
        key = self.expr(args[0].value)
        if not isinstance(key.val, (ConstV, EnumV)):
            raise self.error(args[0].value, "T2T103", "dict.get() takes a key known at "
                             "translation time inside kernels",
                             help="look the key up with a literal or a ct.Constant parameter")
        k = _key(key.val)
        for ek, value in base.val.entries:
            if ek == k:
                return value
        return self.expr(args[1].value) if len(args) == 2 else Lowered("None", NoneV())

    def table_equal(self, node, left: Lowered, right: Lowered, equal: bool) -> Lowered:
        """`kwargs == {"a": 1}`: the same keys, and each entry equal (compared here where
        both are known, else by Triton: constexprs fold, runtime values give a bool)."""
        a, b = dict(left.val.entries), dict(right.val.entries)
        tests = []
        if set(a) == set(b):
            for k in a:
                eq = self.equality(node, a[k], b[k])
                if isinstance(eq.val, ConstV):
                    if not eq.val.value:
                        break
                    continue
                tests.append(eq)
            else:
                if not tests:
                    return self.const(equal)
                if all(isinstance(t.val, ConstExprV) for t in tests):
                    code = " and ".join(t.wrap(PREC["and"] + 1) for t in tests)
                    low = Lowered(code, ConstExprV("cmp", kind="bool"),
                                  PREC["and"] if len(tests) > 1 else tests[0].prec)
                    return low if equal else Lowered(f"not ({code})", ConstExprV(
                        "cmp", kind="bool"), PREC["not"])
                code = " & ".join(t.wrap(PREC["&"] + 1) for t in tests)
                val = TileV(shape=(), dtype="bool_")
                return Lowered(code, val, PREC["&"]) if equal else Lowered(
                    f"({code}) == 0", val, PREC["cmp"])
        return self.const(not equal)

    def tuple_choice(self, node, base: Lowered, idx: Lowered) -> Lowered:
        """`t[k]` of a tuple by a ct.Constant parameter: a choice among the items."""
        items = base.items if base.items is not None else [
            Lowered(f"{base.wrap(100)}[{i}]", v) for i, v in enumerate(base.val.items)]
        n = len(items)
        k = idx.wrap(PREC["cmp"] + 1)
        options = [(f"{k} == {i} or {k} == {i - n}", it) for i, it in enumerate(items)]
        return self.choice_value(options)

    def choice_value(self, options: list) -> Lowered:
        """A choice whose options are runtime values or constants: one conditional expression
        (Triton folds it); a choice of handles stays a choice."""
        if all(isinstance(o.val, HANDLES) for _, o in options):
            return Lowered("<choice>", ChoiceV(options))
        code = f"{self.need_source('_no_entry', NO_ENTRY.format(name='_no_entry'))}()"
        p = PREC["ifexp"]
        for cond, o in reversed(options):
            code = f"{o.wrap(p + 1)} if {cond} else {code}"
        vals = [o.val for _, o in options if not is_rejected(o)]
        return Lowered(code, _merge(vals), p)

    def choice_call(self, node: cst.Call, choice: ChoiceV) -> Lowered:
        """Call each option of a choice; Triton compiles only the one its condition selects."""
        results, first_error = [], None
        for cond, option in choice.options:
            try:
                results.append((cond, self.call_value(option, node)))
            except TranslationError as e:
                # cuTile would reject this entry, at compile time, if it were selected
                first_error = first_error or e
                results.append((cond, self._rejected(e)))
        if first_error is not None and all(is_rejected(r) for _, r in results):
            raise first_error
        if not results:
            raise self.error(node, "T2T105", "no entry of the table can be selected here",
                             help="make the key select an entry: a constant, or a ct.Constant "
                                  "parameter whose value the table holds")
        return self.choice_value(results)

    def _rejected(self, e: TranslationError) -> Lowered:
        d = e.diagnostic
        text = "".join(ch for ch in f"{d.code}: {d.message}" if 32 <= ord(ch) < 127)
        digest = hashlib.sha1(text.encode()).hexdigest()[:8]
        name = f"_rejected_{digest}"
        name = self.need_source(name, REJECTED.format(name=name, message=repr(text)))
        return Lowered(f"{name}()", NoneV())

    # ---------------------------------------------------------------------------- helpers
    def inline_handle_helper(self, name: str, node: cst.Call) -> Optional[Lowered]:
        """A helper whose body is `return <expr>` giving a translation-time handle (a bound
        method, a raw-memory view, a construct): evaluated in place, as cuTile does. None when
        it gives a runtime value (then it is translated as a Triton function)."""
        fdef = self.pm.functions[name]
        expr = single_return(fdef)
        ps = fdef.params
        # only expressions that can name a handle (`a.get_raw_memory().atomic_add_offset`,
        # `TABLE[k]`, a name): arithmetic and calls are runtime values, translated as functions
        names = [p.name.value for p in ps.params]
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(
                expr.func.value, cst.Name) and expr.func.value.value in names:
            # `arr.tiled_view(T)`: a method of an array parameter may make a view
            expr_ok, receiver = True, names.index(expr.func.value.value)
        else:
            expr_ok, receiver = isinstance(expr, (cst.Attribute, cst.Name, cst.Subscript)), None
        if not expr_ok or ps.posonly_params or ps.kwonly_params or any(
                p.default is not None for p in ps.params) or ps.star_arg not in (
                None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg is not None:
            return None
        if len(node.args) != len(names) or any(a.keyword is not None or a.star
                                                for a in node.args):
            return None
        out_len = len(self.out)
        helpers = dict(self.result.helper_sources)
        env, static = self.env, self.static_names
        try:
            args = [self.expr(a.value) for a in node.args]
            self.env, self.static_names = {}, dict(zip(names, args))
            low = self.expr(expr) if receiver is None or isinstance(
                args[receiver].val, ArrayV) else None
        except TranslationError:
            low = None
        finally:
            self.env, self.static_names = env, static
        if low is not None and isinstance(low.val, HANDLES):
            return low
        del self.out[out_len:]            # not a handle: translated as a function instead
        self.result.helper_sources = helpers
        return None


def _key(v):
    if isinstance(v, EnumV):
        return ("enum", v.enum, v.member, v.value)
    return v.value


def is_rejected(low: Lowered) -> bool:
    return isinstance(low.val, NoneV) and low.code.endswith("()")


def _merge(vals: list):
    """What is known of a value that is one of `vals`."""
    if not vals:
        return NoneV()
    first = vals[0]
    if all(isinstance(v, (ConstV, ConstExprV)) for v in vals):
        return ConstExprV("choice")
    if isinstance(first, TileV) and all(isinstance(v, TileV) for v in vals):
        same = lambda f: all(getattr(v, f) == getattr(first, f) for v in vals)  # noqa: E731
        return TileV(shape=first.shape if same("shape") else None,
                     dtype=first.dtype if same("dtype") else None,
                     nonneg=all(v.nonneg for v in vals),
                     # (an astype to tfloat32 per rounding mode: still tf32, rounded on leaving)
                     tf32=first.tf32 if same("tf32") else False,
                     numeric=all(v.numeric for v in vals))
    return first
