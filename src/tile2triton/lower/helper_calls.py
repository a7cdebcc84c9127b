"""Calls of the module's helper functions: arguments bound as Python binds them (positional,
`*args`, keywords, `**kwargs`, defaults), the helper specialized for the kinds of its
arguments (module.py), and what the caller sees of the result."""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

import libcst as cst

from ..model import (
    USE_INT64,
    ArrayV,
    ConstExprV,
    ConstV,
    FuncV,
    Lowered,
    TableV,
    TiledViewV,
    TileV,
    TupleV,
)
from ..parse.cst_tools import single_return, walk
from ..parse.names import source_identifiers


class HelperCalls:
    """Mixin of `Lowerer`: calls of the module's helpers."""

    def bind_helper_args(self, name: str, node: cst.Call) -> list:
        """The call's arguments in the helper's parameter order, as Python binds them
        (positional, then keywords, then the defaults, lowered here)."""
        fdef = self.pm.functions.get(name)
        if fdef is not None and (fdef.params.star_kwarg is not None
                                 or any(a.star == "**" for a in node.args)):
            return self.bind_keywords(name, node, fdef)
        if any(a.star for a in node.args):
            raise self.error(node, "T2T102", "`*`/`**` arguments to helpers are not supported",
                             help="pass the arguments explicitly")
        if fdef is not None and isinstance(fdef.params.star_arg, cst.Param):
            return self.bind_varargs(name, fdef, node)
        if fdef is None or (all(a.keyword is None for a in node.args) and not any(
                p.default is not None for p in fdef.params.params)):
            return [self.expr(a.value) for a in node.args]
        params = list(fdef.params.params)
        if name in self.pm.hoisted:      # captured names are not the caller's to pass
            params = params[:len(params) - len(self.pm.hoisted[name][1])]
        pos = [a for a in node.args if a.keyword is None]
        kws = {a.keyword.value: a for a in node.args if a.keyword is not None}
        if len(pos) > len(params):
            raise _bind_error(self, node, name, f"takes {len(params)} arguments, "
                              f"{len(pos)} given")
        out = []
        for i, p in enumerate(params):
            pname = p.name.value
            if i < len(pos):
                if pname in kws:
                    raise _bind_error(self, kws[pname], name,
                                      f"got two values for `{pname}`")
                out.append(self.expr(pos[i].value))
            elif pname in kws:
                out.append(self.expr(kws.pop(pname).value))
            elif p.default is not None:
                out.append(self.expr(p.default))
            else:
                raise _bind_error(self, node, name, f"missing argument `{pname}`")
        if kws:
            k = next(iter(kws))
            raise _bind_error(self, kws[k], name, f"has no parameter `{k}`")
        return out

    def bind_varargs(self, name: str, fdef, node: cst.Call) -> list:
        """`def h(arr, *items)` called `h(x, 1, 2)`: the parameters before `*items` take the
        first arguments, `items` the tuple of the others (`(1, 2)`)."""
        params = list(fdef.params.params)
        if self.pm.hoisted.get(name, (None, []))[1]:
            raise self.error(node, "T2T102", f"`{name}` takes `*args` and reads names of the "
                             "function it is defined in: not supported",
                             help="pass those names as arguments, or define it at module level")
        if any(a.keyword is not None for a in node.args) or any(
                p.default is not None for p in params):
            star = fdef.params.star_arg.name.value
            raise self.error(node, "T2T102", f"helper `{name}` takes `*{star}`: keyword "
                             "arguments and defaults are not supported with it",
                             help="pass the arguments by position")
        if len(node.args) < len(params):
            raise _bind_error(self, node, name, f"takes at least {len(params)} arguments, "
                              f"{len(node.args)} given")
        fixed = [self.expr(a.value) for a in node.args[:len(params)]]
        rest = [self.expr(a.value) for a in node.args[len(params):]]
        code = "(" + ", ".join(r.code for r in rest) + ("," if len(rest) == 1 else "") + ")"
        return fixed + [Lowered(code, TupleV([r.val for r in rest]), items=rest)]

    def bind_keywords(self, name: str, node: cst.Call, fdef) -> list:
        """As bind_helper_args, for a call passing `**d` (a dict known here: its entries are
        keywords) or a helper taking `**kwargs` (the keywords no parameter takes, as a dict
        known at translation time, `TableV`). Arguments are lowered in the order written."""
        params = list(fdef.params.params)
        if name in self.pm.hoisted:
            params = params[:len(params) - len(self.pm.hoisted[name][1])]
        pos, kws = [], {}
        for a in node.args:
            if a.star == "**":
                low = self.expr(a.value)
                if not isinstance(low.val, TableV) or not all(
                        isinstance(k, str) for k, _ in low.val.entries):
                    raise self.error(a.value, "T2T102", "`**` takes a dict with string keys "
                                     "known at translation time here",
                                     help="pass the keywords one by one, or use a literal dict "
                                          "with string keys")
                for k, v in low.val.entries:
                    if k in kws:
                        raise _bind_error(self, a, name, f"got two values for `{k}`")
                    kws[k] = (a, v)
            elif a.star:
                raise self.error(a, "T2T102", "`*` arguments to helpers are not supported",
                                 help="pass the arguments explicitly")
            elif a.keyword is not None:
                if a.keyword.value in kws:
                    raise _bind_error(self, a, name, f"got two values for `{a.keyword.value}`")
                kws[a.keyword.value] = (a, self.expr(a.value))
            else:
                pos.append(self.expr(a.value))
        if len(pos) > len(params):
            raise _bind_error(self, node, name, f"takes {len(params)} arguments, "
                              f"{len(pos)} given")
        out = []
        for i, p in enumerate(params):
            pname = p.name.value
            if i < len(pos):
                if pname in kws:
                    raise _bind_error(self, kws[pname][0], name,
                                      f"got two values for `{pname}`")
                out.append(pos[i])
            elif pname in kws:
                out.append(kws.pop(pname)[1])
            elif p.default is not None:
                out.append(self.expr(p.default))
            else:
                raise _bind_error(self, node, name, f"missing argument `{pname}`")
        if fdef.params.star_kwarg is not None:
            out.append(Lowered("{...}", TableV([(k, v) for k, (_, v) in kws.items()])))
        elif kws:
            k = next(iter(kws))
            raise _bind_error(self, kws[k][0], name, f"has no parameter `{k}`")
        return out

    def helper_call(self, name: str, node: cst.Call) -> Lowered:
        """Call of a module-level @ct.function or plain helper: translated as @triton.jit."""
        inlined = self.inline_handle_helper(name, node)   # tables.py: `return x.method`
        if inlined is not None:
            return inlined
        args = self.bind_helper_args(name, node)
        if self.compile_time and self.plain_python(name) and all(
                _compile_time(a.val) for a in args):
            # cuTile runs Python called in ct.static_eval / static_assert while compiling;
            # so does Triton, for a @triton.constexpr_function (emit.py adds the decorator)
            self.result.constexpr_functions.add(name)
            code = f"{name}({', '.join(a.code for a in args)})"
            return Lowered(code, ConstExprV(code, kind="python"))
        args += self.capture_args(name, node)
        unit, ret = self.mc.specialize(name, node, args)
        codes = []

        def add(a):
            if isinstance(a.val, ArrayV):
                codes.extend(a.val.info.abi())
            elif isinstance(a.val, TiledViewV):       # its array, then its non-literal sizes
                codes.extend(a.val.array.abi())
                codes.extend(str(d) for d in list(a.val.tile_shape) + list(a.val.steps or [])
                             if not str(d).isdigit())
            elif isinstance(a.val, TableV):           # `**kwargs`: one argument per entry
                for _, v in a.val.entries:
                    add(v)
            elif not isinstance(a.val, FuncV):        # a helper passed on exists only here
                codes.append(a.code)
        for a in args:
            add(a)
        if unit.uses_array_params:
            codes.append(USE_INT64)
        call = f"{unit.name}({', '.join(codes)})"
        folded = self.constant_return(name, args, self.mc.helper_returns.get(unit.name), call)
        if folded is not None and single_return(self.pm.functions[name]) is not None:
            return folded           # the helper's value is all the caller needs of it
        self.result.merge(unit)
        if folded is not None:
            return folded
        return Lowered(call, self.caller_view(name, args, ret))

    def constant_return(self, name: str, args, ret: Optional[Lowered], call: str):
        """A helper returning a compile-time value gives the caller that value, as cuTile
        folds it (a Triton function always returns a tensor): a number (the call, when the
        helper does more than return, is kept as a statement of its own), or, for a helper
        that only returns an expression of its compile-time parameters, that expression of
        the caller's arguments (`forward(leaf, foo=4)` -> `3 * 100 + 4 * 10`). Else None."""
        if ret is None or not isinstance(ret.val, (ConstV, ConstExprV)):
            return None
        pure = single_return(self.pm.functions[name]) is not None
        if isinstance(ret.val, ConstV):
            if not isinstance(ret.val.value, (bool, int, float)) or not (
                    pure or self.before(call)):
                return None
            return self.const(ret.val.value)
        if not pure or ret.val.kind not in ("int", "bool"):
            return None
        mapping = {}
        star = self.pm.functions[name].params.star_kwarg
        names = [p.name.value for p in self.pm.functions[name].params.params] + (
            [star.name.value] if star is not None else [])
        for pname, a in zip(names, args):
            if isinstance(a.val, TableV):
                for k, v in a.val.entries:
                    mapping[self.pm.names[f"{pname}_{k}"]] = v
            else:
                mapping[pname] = a
        used = source_identifiers(ret.code) - {"tl", "triton"}
        if not all(u in mapping and isinstance(mapping[u].val, (ConstV, ConstExprV))
                   for u in used):
            return None
        code = re.sub(r"(?<![\w.])([A-Za-z_]\w*)\b",
                      lambda m: mapping[m.group(1)].wrap(100) if m.group(1) in used
                      else m.group(1), ret.code)
        return Lowered(f"({code})", ConstExprV(code, kind=ret.val.kind))

    def plain_python(self, name: str) -> bool:
        """Whether module function `name` is plain Python: undecorated, defined in this module
        at module level, and naming nothing of cuda.tile."""
        fdef = self.pm.functions.get(name)
        return fdef is not None and not fdef.decorators and name not in self.pm.hoisted \
            and name not in self.pm.foreign and not any(
                isinstance(n, (cst.Name, cst.Attribute)) and self.pm.ct_name(n) is not None
                for n in walk(fdef))

    def caller_view(self, name: str, args, ret):
        """The helper's return value as the caller sees it: a tile shape that names the
        helper's parameters (`view_dim0`, `TM`) is respelled with the caller's arguments;
        a shape naming other helper locals is unknown here. An array the helper returns (one
        of its array parameters, alone or in a tuple) is the caller's argument. A compile-time
        value the helper computes from its constexpr parameters (`return n + 1`) reaches the
        caller as what a Triton call returns: a runtime scalar, not a constexpr."""
        if isinstance(ret, ConstExprV):
            dtype = {"int": "int32", "float": "float32", "bool": "bool_"}.get(ret.kind)
            return TileV(shape=(), dtype=dtype, numeric=ret.kind in ("int", "float"))
        params = self.pm.functions[name].params.params
        arrays = {p.name.value: a.val for p, a in zip(params, args) if isinstance(a.val, ArrayV)}
        mapping, local = {}, set()
        for p, a in zip(params, args):
            pname = p.name.value
            local.add(pname)
            if isinstance(a.val, TiledViewV):
                dims = list(a.val.tile_shape) + list(a.val.steps or [])
                for k, d in enumerate(dims):
                    local.add(f"{pname}_dim{k}")
                    mapping[f"{pname}_dim{k}"] = str(d)
            elif isinstance(a.val, (ConstV, ConstExprV)):
                mapping[pname] = a.code
            elif isinstance(a.val, TileV) and a.val.shape:   # `x.shape[k]` of a tile argument
                for k, d in enumerate(a.val.shape):
                    mapping[f"{pname}.shape[{k}]"] = d

        def outside(v):
            if isinstance(v, TupleV):
                return TupleV([outside(i) for i in v.items], known=v.known)
            if isinstance(v, ArrayV):
                return arrays.get(v.info.name, TileV())
            if not isinstance(v, TileV) or not v.shape:
                return v
            shape = []
            for d in v.shape:
                d2 = mapping.get(d, d) if isinstance(d, str) else d
                if isinstance(d2, str) and d2 == d and any(
                        tok in local for tok in re.findall(r"[A-Za-z_]\w*", d2)):
                    return dataclasses.replace(v, shape=None)
                shape.append(d2)
            return dataclasses.replace(v, shape=tuple(shape))
        return outside(ret)


def _bind_error(self, node, name, what):
    return self.error(node, "T2T102", f"helper `{name}`: {what}",
                      help="call it as Python would accept the call")


def _compile_time(v) -> bool:
    """A value a @triton.constexpr_function can take: a number, a string, an integer, float or
    boolean ct.Constant, or a tuple of them."""
    if isinstance(v, ConstV):
        return type(v.value) in (bool, int, float, str) or isinstance(v.value, tuple)
    if isinstance(v, ConstExprV):
        return v.kind in ("int", "bool", "float")
    return isinstance(v, TupleV) and v.known and all(_compile_time(i) for i in v.items)
