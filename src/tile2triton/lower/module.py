"""State shared by the functions of one module, and helper specialization: a module function
called from kernels is lowered once, for the kinds of arguments it receives."""
from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Optional, Sequence

import libcst as cst

from ..diagnostics import TranslationError
from ..model import (ArrayInfo, ArrayV, ConstExprV, ConstV, DTypeV, FuncV, FunctionInfo,
                     Lowered, ParamInfo, TableV, TiledViewV, TileV, TupleV, Val)
from ..parse.source import ParsedModule
from ..registry import Registry
from .lowerer import Lowerer
from .unit import UnitResult
from .values import POSITIVE, UNKNOWN, sign_fact


# Helpers calling helpers: each level costs a few dozen Python frames of lowering, and the whole
# chain must stay well inside Python's recursion limit together with the deepest expression the
# nesting prescan lets through (tests/test_robustness.py checks the combination).
MAX_HELPER_DEPTH = 24
# A helper calling itself with compile-time arguments (translated once per value, one Triton
# function per level): Triton's compiler nests its own Python frames per call and stops between
# 45 and 64 levels (sm_90 front end, default recursion limit); the translator's own frames per
# level leave room for 32 under a test runner's
MAX_RECURSION = 32


def _helper_param_names(pm, name: str, fdef, call_node, n_args: int) -> list:
    """The helper's parameter names, `*args` and `**kwargs` included, which its call binds one
    argument each (HelperCalls.bind_helper_args); T2T102 where they do not match."""
    fn_params = list(fdef.params.params)
    if isinstance(fdef.params.star_arg, cst.Param):   # `*items`: one tuple (bound by
        fn_params.append(fdef.params.star_arg)        # HelperCalls.bind_helper_args)
    star = fdef.params.star_kwarg
    names = [p.name.value for p in fn_params] + ([star.name.value] if star is not None else [])
    if len(names) != n_args or fdef.params.posonly_params \
            or fdef.params.kwonly_params:
        raise pm.error(call_node, "T2T102", f"helper `{name}` must be called with one "
                       "positional argument per parameter",
                       help="call the helper with one argument per parameter (defaults are "
                            "filled in)")
    return names


class _HelperParams:
    """A helper specialization's parameters for the kinds of its arguments: `params` (the
    Triton function's), `key` (what tells specializations apart), and what the body sees of
    each parameter (`views`: a tiled view, a dtype, a tuple of constants, a tile of known rank;
    `tuple_items`; `tables`: `**kwargs` entries, each a parameter of its own)."""

    def __init__(self, pm, by_value: bool):
        self.pm, self.by_value = pm, by_value
        self.params, self.key = [], []
        # what the translation takes as known of each argument's sign (values.sign_fact): the
        # body is lowered with it, so that translation is only for calls that prove as much
        self.signs = []
        self.views = {}      # helper parameter -> the value it stands for (built after params)
        self.tuple_items = {}
        self.tables = {}     # `**kwargs` -> (key, parameter) per entry

    def argument(self, pname: str, a: Lowered, name: str, call_node) -> None:
        pm = self.pm
        if isinstance(a.val, TableV):
            # `**kwargs`: a dict known here; each entry is a parameter of its own
            subs = []
            self.key.append(("dict", tuple(k for k, _ in a.val.entries)))
            for k, v in a.val.entries:
                if not (isinstance(k, str) and k.isidentifier()):
                    raise pm.error(call_node, "T2T102", f"helper `{name}`: keyword "
                                   f"{k!r} is not a name",
                                   help="pass keyword arguments to helpers as `name=value`")
                subs.append((k, pm.names[f"{pname}_{k}"]))
                self.classify(subs[-1][1], v)
            self.tables[pname] = subs
        elif isinstance(a.val, FuncV):
            # a helper passed as an argument exists only at translation time
            self.key.append(("func", a.val.name))
            self.views[pname] = a.val
        else:
            self.classify(pname, a)

    def classify(self, pname: str, a: Lowered) -> None:
        n = len(self.params)
        self.signs += [UNKNOWN] * (len(self.key) - len(self.signs))
        self._classify(pname, a)
        self.signs += [UNKNOWN] * (len(self.key) - len(self.signs))
        sign = sign_fact(a.val)
        if len(self.params) != n + 1 or self.params[-1].name != pname or sign == UNKNOWN:
            return
        view = self.views.get(pname)
        if self.params[-1].kind == "constexpr" and view is None and sign == POSITIVE:
            self.views[pname] = ConstExprV(pname, positive=True)
        elif self.params[-1].kind == "tile" and (view is None or isinstance(view, TileV)):
            self.views[pname] = dataclasses.replace(view or TileV(), nonneg=True,
                                                    positive=sign == POSITIVE)
        else:
            return
        self.signs[-1] = sign

    def _classify(self, pname: str, a: Lowered) -> None:
        pm, params, key, views = self.pm, self.params, self.key, self.views
        if self.by_value and isinstance(a.val, ConstV) and isinstance(a.val.value,
                                                                      (bool, int, float)):
            params.append(ParamInfo(pname, "constexpr"))
            key.append(("value", type(a.val.value).__name__, a.val.value))
            views[pname] = a.val
            return
        if isinstance(a.val, TiledViewV):
            self.tiled_view(pname, a.val)
            return
        if isinstance(a.val, DTypeV) and a.val.tf32_when is None:
            params.append(ParamInfo(pname, "constexpr"))
            key.append(("dtype",))
            views[pname] = DTypeV(code=pname)
            return
        if isinstance(a.val, ArrayV):
            info = ArrayInfo(pname, rank=a.val.info.rank,
                             abi_prefix=pm.names.array_prefix(pname))
            params.append(ParamInfo(pname, "array", info))
            key.append(("array", info.rank))
        elif isinstance(a.val, (ConstV, ConstExprV)) or (
                isinstance(a.val, TupleV) and all(isinstance(i, (ConstV, ConstExprV))
                                                  for i in a.val.items)):
            params.append(ParamInfo(pname, "constexpr"))
            key.append(("constexpr",))
            if isinstance(a.val, TupleV):    # its length is known: items are `t[k]`
                key[-1] = ("constexpr", len(a.val.items))
                items = [Lowered(f"{pname}[{k}]", ConstExprV(f"{pname}[{k}]"))
                         for k in range(len(a.val.items))]
                views[pname] = TupleV([i.val for i in items])
                self.tuple_items[pname] = items
        else:
            params.append(ParamInfo(pname, "tile"))
            rank = a.val.rank if isinstance(a.val, TileV) else None
            key.append(("tile", rank))
            if rank is not None:
                # one translation per rank of the tiles it gets, so that the helper knows
                # its tiles' ranks (negative axes, broadcasts) as cuTile does; the extents
                # are the tile's own, constexprs in Triton (caller_view respells them)
                views[pname] = TileV(shape=tuple(f"{pname}.shape[{k}]"
                                                 for k in range(rank)))

    def tiled_view(self, pname: str, v: TiledViewV) -> None:
        """A tiled view exists only at translation time: the helper gets its array, plus one
        constexpr per tile-shape / step entry that is not a literal."""
        pm, params = self.pm, self.params
        info = ArrayInfo(pname, rank=v.array.rank, abi_prefix=pm.names.array_prefix(pname))
        params.append(ParamInfo(pname, "array", info))
        shape, steps = [], None
        for k, d in enumerate(view_dims(v)):
            if str(d).isdigit():
                shape.append(str(d))
            else:
                shape.append(f"{pname}_dim{k}")
                params.append(ParamInfo(shape[-1], "constexpr"))
        if v.steps is not None:
            steps, shape = shape[len(v.tile_shape):], shape[:len(v.tile_shape)]
        self.views[pname] = TiledViewV(info, shape, v.padding, steps)
        self.key.append(("view", info.rank, tuple(d if d.isdigit() else "?" for d in shape),
                         None if steps is None else tuple(
                             d if d.isdigit() else "?" for d in steps),
                         getattr(getattr(v.padding, "val", None), "member", None)))


class ModuleContext:
    """The patterns (registry), and the helpers specialized so far (in the order emit renders them)."""

    def __init__(self, pm: ParsedModule, registry: Registry):
        self.pm = pm
        self.registry = registry
        self.patterns = registry.constructs
        self.helper_specs: dict = {}  # helper name -> (argument kinds, UnitResult, return Val)
        self.helper_order: list = []
        self.in_progress: set = set()  # helpers being lowered now (recursion check)
        self.spec_in_progress: set = set()  # their translation names
        self.spec_base: dict = {}      # helper translation name -> the helper's own name
        self.nested_names: dict = {}   # id(nested def node) -> its hoisted name (nested_defs.py)
        self.helper_returns: dict = {}  # helper translation name -> its return value, lowered
        self._rebound: Optional[dict] = None

    @property
    def rebound_globals(self) -> dict:
        """Module globals some function rebinds (`global SCALE; SCALE = 5.0`): name -> the
        `global` statement's name node. Their value when a kernel is compiled is not known
        here (computed once, on first use)."""
        if self._rebound is None:
            self._rebound = rebound_globals(self.pm.module) \
                if "global" in self.pm.source.text else {}
        return self._rebound

    def specialize(self, name: str, call_node, args: Sequence[Lowered]):
        """(UnitResult, return Val) of helper `name` for the kinds of `args`."""
        pm = self.pm
        fdef = pm.functions[name]
        names = _helper_param_names(pm, name, fdef, call_node, len(args))
        # a helper calling itself is translated once per value of its constant arguments, so
        # that its compile-time branches end the recursion here, as in cuTile
        by_value = _calls_itself(fdef, name)
        hp = _HelperParams(pm, by_value)
        for pname, a in zip(names, args):
            hp.argument(pname, a, name, call_node)
        key = (tuple(hp.key), tuple(hp.signs + [UNKNOWN] * (len(hp.key) - len(hp.signs))))
        # one translation per kinds of arguments: `h`, then `h_2`, `h_3`, ... (emit puts them
        # all where `h` is defined). A translation that assumes no more of its arguments' signs
        # than this call's arguments give serves this call too
        spec, k = name, 1
        while spec in self.helper_specs or spec in self.spec_in_progress:
            if spec in self.helper_specs:
                old_key, unit, ret = self.helper_specs[spec]
                if old_key[0] == key[0] and all(a <= b for a, b in zip(old_key[1], key[1])):
                    return unit, ret
            k += 1
            spec = pm.names[f"{name}_{k}"]
        token = (name, key) if by_value else name
        self._check_depth(name, token, by_value, call_node)
        unit, ret = self._lower_specialization(spec, name, fdef, hp, token)
        self.helper_specs[spec] = (key, unit, ret)
        self.helper_order.append(spec)
        return unit, ret

    def _check_depth(self, name: str, token, by_value: bool, call_node) -> None:
        """Refuse a recursion that does not end at translation time, and chains of helpers
        deeper than Python's (or Triton's) recursion allows."""
        pm = self.pm
        if token in self.in_progress:
            raise pm.error(call_node, "T2T101", f"recursive helper `{name}` cannot be translated",
                           help="a recursion ends at translation time only when a compile-time "
                                "argument decides it (a ct.Constant parameter known at launch)"
                           if by_value else None)
        if by_value and sum(isinstance(t, tuple) for t in self.in_progress) >= MAX_RECURSION:
            raise pm.error(call_node, "T2T002", f"helper `{name}` calls itself more than "
                           f"{MAX_RECURSION} deep here; tile2triton translates up to that",
                           help="each level is a Triton function calling the next, and "
                                "Triton's compiler stops at about 50; write the repetition as "
                                "a loop")
        if len(self.in_progress) - sum(isinstance(t, tuple) for t in self.in_progress) \
                >= MAX_HELPER_DEPTH:
            raise pm.error(call_node, "T2T002", f"helpers call each other more than "
                           f"{MAX_HELPER_DEPTH} deep here; tile2triton translates up to that",
                           help="merge some of the helpers")

    def _lower_specialization(self, spec: str, name: str, fdef, hp: "_HelperParams", token):
        """Lower the helper's body as `spec`, its parameters those of `hp`: (UnitResult,
        return Val)."""
        pm, params, views = self.pm, hp.params, hp.views
        role = "helper"
        for dec in fdef.decorators:
            r, _ = pm.decorator_role(dec)
            if r:
                role = r
        fn = FunctionInfo(spec, fdef, role, params)
        self.spec_base[spec] = name
        self.in_progress.add(token)
        self.spec_in_progress.add(spec)
        try:  # a helper that fails must not look recursive to the next kernel calling it
            lw = Lowerer(self, fn, params)
            lw.env.update(views)
            for pname, items in hp.tuple_items.items():   # `shape[k]` reads the k-th item
                lw.static_names[pname] = Lowered(pname, views[pname], items=items)
            for pname, subs in hp.tables.items():
                lw.env[pname] = TableV([(k, lw.static_names.get(sub) or Lowered(sub, lw.env[sub]))
                                        for k, sub in subs])
            unit = lw.result
            unit.finish("\n".join(lw.lower_body()))
            unit.uses_array_params = any(p.kind == "array" for p in params)
            ret_low = _helper_return_val(fdef, lw, unit.text)
            ret = ret_low.val
            self.helper_returns[spec] = ret_low
        finally:
            self.in_progress.discard(token)
            self.spec_in_progress.discard(spec)
        return unit, ret

    def lower_lambda(self, lam: cst.Lambda, args: Sequence[Val], caller: Lowerer) -> UnitResult:
        """`lambda a, b: ...` passed as a value: a @triton.jit helper with the lambda's body,
        named after its text and the compile-time values it reads from the enclosing function."""
        ps = lam.params
        names = [p.name.value for p in list(ps.posonly_params) + list(ps.params)]
        body_code = self.pm.module.code_for_node(lam.body)
        captured = {}
        for ref in _read_names(lam.body):
            # a name of the enclosing function: its compile-time value is copied in; a runtime
            # value cannot be, since Triton calls a combiner with the combined values only
            outer = caller.env.get(ref.value)
            if ref.value in names or outer is None:
                continue
            if isinstance(outer, ConstV):
                captured[ref.value] = caller.const(outer.value)
            elif isinstance(outer, DTypeV) and outer.array is None and outer.code is None:
                captured[ref.value] = Lowered(outer.triton, outer)
            else:
                raise caller.error(ref, "T2T101", f"this lambda reads `{ref.value}`, a runtime "
                                   f"value of `{caller.fn.name}`; Triton calls a combiner with "
                                   "the values it combines and nothing else",
                                   help="make the value a compile-time constant, or carry it "
                                        "through the reduction as one more tile of the tuple")
        # identical lambdas share one helper, unless they read different compile-time values
        key = f"{names}:{body_code}" + "".join(f":{k}={v.code}" for k, v in captured.items())
        digest = hashlib.sha1(key.encode()).hexdigest()[:8]
        fname = f"_lambda_{digest}"
        fdef = cst.FunctionDef(
            name=cst.Name(fname), params=cst.Parameters(params=[cst.Param(cst.Name(n))
                                                               for n in names]),
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(lam.body)])]))
        params = [ParamInfo(n, "tile") for n in names]
        lw = Lowerer(self, FunctionInfo(fname, fdef, "helper", params), params)
        for n, v in zip(names, args):
            lw.env[n] = v
        lw.static_names.update(captured)
        lines = lw.lower_body()
        unit = lw.result
        unit.finish("\n".join(lines))
        caller.need_source(fname, f"@triton.jit\ndef {fname}({', '.join(names)}):\n" + unit.text)
        return unit


def _read_names(node):
    """The names an expression reads (not attribute names or keyword names)."""
    if isinstance(node, cst.Name):
        yield node
        return
    for child in node.children:
        if isinstance(node, cst.Attribute) and child is node.attr:
            continue
        if isinstance(node, cst.Arg) and child is node.keyword:
            continue
        yield from _read_names(child)


def view_dims(v: TiledViewV) -> list:
    """A tiled view's tile shape, then its traversal steps (when it has its own)."""
    return list(v.tile_shape) + list(v.steps or [])


def lower_function(mc: ModuleContext, fn: FunctionInfo, params: list[ParamInfo]) -> UnitResult:
    lw = Lowerer(mc, fn, params)
    lines = lw.lower_body()
    lw.result.finish("\n".join(lines))
    return lw.result


def _calls_itself(fdef: cst.FunctionDef, name: str) -> bool:
    """Whether the body of helper `name` calls `name`."""
    class Find(cst.CSTVisitor):
        found = False

        def visit_Call(self, node):
            if isinstance(node.func, cst.Name) and node.func.value == name:
                Find.found = True

    fdef.body.visit(Find())
    return Find.found


def _helper_return_val(fdef, lw: Lowerer, text: str) -> Lowered:
    """The helper's return value kind: re-lower the last `return` expression in its env. Where
    the translation (`text`) returns from more than one place, only what all of them share is
    known: not a constant, nor a sign."""
    last = None
    stmts = fdef.body.body
    if isinstance(fdef.body, cst.SimpleStatementSuite):      # `def f(x): return x`
        stmts = [cst.SimpleStatementLine(body=fdef.body.body)]
    for stmt in reversed(stmts):
        if isinstance(stmt, cst.SimpleStatementLine):
            for s in stmt.body:
                if isinstance(s, cst.Return) and s.value is not None:
                    last = s.value
            if last is not None:
                break
    if last is None:
        return Lowered("", TileV())
    try:
        ret = lw.expr(last)
    except TranslationError:
        return Lowered("", TileV())
    if sum(1 for line in text.splitlines() if re.match(r"\s*return\b", line)) > 1:
        return _path_dependent(ret)
    return ret


def _path_dependent(low: Lowered) -> Lowered:
    """What one of several `return`s gives, as the caller may see it from any of them."""
    return dataclasses.replace(low, val=_runtime(low.val), items=None if low.items is None
                               else [_path_dependent(i) for i in low.items])


def _runtime(v: Val) -> Val:
    """`v` with nothing known of its sign, a number as a runtime value (a tuple's items too)."""
    if isinstance(v, TileV) and (v.nonneg or v.positive):
        return dataclasses.replace(v, nonneg=False, positive=False)
    if isinstance(v, ConstV) and type(v.value) in (bool, int, float):
        return TileV(shape=())   # (another `return` may give another type)
    if isinstance(v, TupleV):
        return dataclasses.replace(v, items=[_runtime(i) for i in v.items])
    return v


def rebound_globals(module: cst.Module) -> dict:
    """name -> node of each `global NAME` in a function that assigns NAME (or deletes it)."""
    out: dict = {}

    class Scan(cst.CSTVisitor):
        def __init__(self):
            self.declared: list = [{}]

        def visit_FunctionDef(self, node):
            self.declared.append({})

        def leave_FunctionDef(self, node):
            self.declared.pop()

        def visit_Global(self, node):
            for item in node.names:
                self.declared[-1][item.name.value] = item.name

        def _bind(self, target):
            if isinstance(target, cst.Name) and target.value in self.declared[-1]:
                out.setdefault(target.value, self.declared[-1][target.value])
            elif isinstance(target, (cst.Tuple, cst.List)):
                for el in target.elements:
                    self._bind(el.value)
            elif isinstance(target, cst.StarredElement):
                self._bind(target.value)

        def visit_AssignTarget(self, node):
            self._bind(node.target)

        def visit_AugAssign(self, node):
            self._bind(node.target)

        def visit_AnnAssign(self, node):
            self._bind(node.target)

        def visit_For(self, node):
            self._bind(node.target)

        def visit_Del(self, node):
            self._bind(node.target)

        def visit_NamedExpr(self, node):
            self._bind(node.target)

    module.visit(Scan())
    return out

