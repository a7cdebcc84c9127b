"""Assignments: what a name bound to a value becomes (a line, a constexpr, an alias of
something that exists only at translation time, names for an array's or a view's parts),
unpacking, and augmented assignment."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..model import (
    PREC,
    ArrayV,
    ChoiceV,
    ConstExprEnumV,
    ConstExprV,
    ConstV,
    CtRefV,
    DTypeV,
    EnumClassV,
    EnumV,
    FuncV,
    Lowered,
    PyRefV,
    RawMemoryV,
    TableV,
    TiledViewV,
    TileV,
    TupleV,
)
from ..parse.cst_tools import walk
from ..parse.names import source_identifiers
from .operators import AUGOP_SYMBOL

# bind_single: the assignment is a plain one (None means "no line")
_NOT_BOUND = object()


class Assignments:
    """Mixin of `Lowerer`: assignments."""

    def assign(self, node: cst.Assign):
        """An assignment: a line (or lines), or None when the names only alias values of
        translation time."""
        if isinstance(node.value, cst.Lambda) and len(node.targets) == 1 and isinstance(
                node.targets[0].target, cst.Name):
            self.nested_lambda(node.targets[0].target.value, node.value)  # nested_defs.py
            return None
        low = self.expr(node.value)
        if len(node.targets) == 1 and _nested_target(node.targets[0].target):
            return self.unpack_nested(node.targets[0].target, low, node.value)
        split = self.split_unpacking(node, low)
        if split is not None:
            return split
        single = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
        if single:
            out = self.bind_single(node.targets[0].target, low)
            if out is not _NOT_BOUND:
                return out
        return self.assignment_line(node, low, single)

    def bind_single(self, target: cst.Name, low: Lowered):
        """`name = value` where the value needs more (or less) than one line: arrays, tuples of
        arrays, views, values of translation time, dtypes, straight re-bindings. _NOT_BOUND
        when it is a plain assignment."""
        name = target.value
        if isinstance(low.val, ArrayV):
            if name in self.mutable:
                return self.bind_mutable_array(target, low.val.info)
            if low.val.info.shape_codes is None:
                # `alias = x` bound once: the name reads as the array itself, no line
                self.static_names.pop(name, None)
                self.env[name] = low.val
                return None
        if name in self.mutable and isinstance(low.val, TupleV) and low.items and all(
                isinstance(i.val, ArrayV) for i in low.items):
            return self.bind_mutable_tuple(target, low)
        if isinstance(low.val, ArrayV) and low.val.info.shape_codes is not None:
            return self.bind_array_view(name, low.val.info)
        if isinstance(low.val, TiledViewV) and name in self.mutable:
            return self.bind_mutable_view(target, low.val)
        if isinstance(low.val, (TiledViewV, RawMemoryV, EnumV, CtRefV, PyRefV, ChoiceV,
                                TableV, EnumClassV, ConstExprEnumV, FuncV)):
            # tiled views, enum members (`zero_pad = ct.PaddingMode.ZERO`) and references
            # to modules exist only at translation time: the name is an alias, no line
            self.env[name] = low.val
            return None
        if isinstance(low.val, TupleV) and low.items is not None and (
                low.items == [] or _holds_arrays(low)) and name not in self.mutable:
            # `b = ()`, `args = (x, (i,), 7)`: an alias of the tuple (Triton has no tuple
            # of an array; an empty one is read as itself); runtime items get names
            lines = []
            low = self.name_items(name, low, lines)
            self.static_names[name] = low
            self.env[name] = low.val
            return lines or None
        if isinstance(low.val, DTypeV) and low.val.code is not None:
            # a dtype chosen per specialization: later uses read the local name
            self.env[name] = DTypeV(code=name, tf32_when=low.val.tf32_when)
            return f"{name} = {low.code}"
        if name in self.straight:
            line = self.straight_binding(name, low)
            if line is not None:
                return line
        return _NOT_BOUND

    def assignment_line(self, node: cst.Assign, low: Lowered, single: bool) -> str:
        """`a = b = value`, annotated `tl.constexpr` where the value is one in cuTile."""
        targets = [self.target(t.target, low) for t in node.targets]
        if single and isinstance(low.val, TupleV) and low.items is not None \
                and targets[0] not in self.mutable:
            view = self.tuple_view(targets[0], low)
            if view is not None:
                self.static_names[targets[0]] = view
        if single and isinstance(self.env.get(targets[0]), ConstV) and isinstance(
                low.val.value, (bool, int, float)) and targets[0] not in {
                p.name for p in self.params}:       # (a parameter cannot become one)
            # a name bound once to a constant (`n = 16`, `n = sub.shape[0]` of a constant
            # slice) is a compile-time value in cuTile: Triton needs the annotation to use
            # it as a shape (a plain assignment makes it a tensor)
            return f"{targets[0]}: tl.constexpr = {low.code}"
        if single and isinstance(low.val, TupleV) and low.val.items \
                and _compile_time_tuple(low.val) and targets[0] not in self.mutable \
                and targets[0] not in {p.name for p in self.params}:
            # `tail = (T, 4)`: a Triton tuple bound by plain assignment holds tensors, so
            # `tail[0]` could no longer be a tile size; the annotation keeps it constexpr
            return f"{targets[0]}: tl.constexpr = {low.code}"
        if single and isinstance(low.val, ConstExprV) and low.val.kind == "python" \
                and targets[0] not in self.mutable \
                and targets[0] not in {p.name for p in self.params}:
            # `w = ct.static_eval(next_pow2(T))`: Python run while compiling, a constexpr
            return f"{targets[0]}: tl.constexpr = {low.code}"
        if single and isinstance(low.val, ConstExprV) and low.val.kind in ("int", "bool") \
                and targets[0] not in self.mutable \
                and targets[0] not in {p.name for p in self.params} \
                and self.integer_constexpr_code(low.code):
            # `n = F0 * F1` of integer ct.Constant parameters is a compile-time value too,
            # usable as a tile shape (`ct.arange(n)`): keep it a constexpr in Triton. (Not a
            # float one: Triton's tl.full cannot convert a float constexpr to an int tile)
            return f"{targets[0]}: tl.constexpr = {low.code}"
        return " = ".join(targets) + " = " + low.code
    def tuple_view(self, code: str, low: Lowered) -> Optional[Lowered]:
        """`tup = (ct.bid(0), n // 2)` bound once: Triton makes every item of a tuple variable a
        tensor, but cuTile keeps `tup[1]` a compile-time value. Reads of `tup[k]` then give
        the item itself where it is compile-time (reading names never re-bound), `tup[k]`
        otherwise. None when no item is compile-time."""
        items, inlined = [], False
        for k, item in enumerate(low.items):
            v = item.val
            if isinstance(v, ConstV) and isinstance(v.value, (bool, int, float)):
                items.append(self.const(v.value))
                inlined = True
            elif isinstance(v, ConstExprV) and not (source_identifiers(item.code)
                                                    & self.mutable):
                items.append(item)
                inlined = True
            elif isinstance(v, TupleV) and item.items is not None \
                    and (sub := self.tuple_view(f"{code}[{k}]", item)) is not None:
                items.append(sub)
                inlined = True
            else:
                items.append(Lowered(f"{code}[{k}]", v))
        return Lowered(code, low.val, items=items) if inlined else None

    def straight_binding(self, name: str, low: Lowered) -> Optional[str]:
        """`name = <compile-time number>` where `name` is bound again, but only by top-level
        statements (`t = (n + 2) * 3`, then `t = -t`): each binding is what cuTile makes of it,
        here a compile-time value (so a tile it meets keeps its dtype). Triton cannot bind a
        constexpr twice, so a binding after the first gets a name of its own (`t_2`), which
        later reads of `name` use. None for a runtime value (an ordinary assignment)."""
        if name in {p.name for p in self.params}:
            return None
        v = low.val
        if not (isinstance(v, ConstV) and isinstance(v.value, (bool, int, float))
                or isinstance(v, ConstExprV) and v.kind in ("int", "bool")
                and self.integer_constexpr_code(low.code)):
            return None
        code = self.fresh_name(name) if name in self.bound else name
        self.bound.add(name)
        self.shadow.pop(name, None)
        self.env[name] = v
        if code == name:
            self.static_names.pop(name, None)
        else:
            self.static_names[name] = Lowered(code, v)
        return f"{code}: tl.constexpr = {low.code}"

    def integer_constexpr_code(self, code: str) -> bool:
        """Whether `code` reads only ct.Constant parameters not annotated as floats, and has no
        true division."""
        floats = {p.name.value for p in self.fn.node.params.params if p.annotation is not None
                  and "float" in self.pm.module.code_for_node(p.annotation.annotation).lower()}
        return not (source_identifiers(code) & floats) and "/" not in code.replace("//", "")

    def split_unpacking(self, node: cst.Assign, low: Lowered) -> Optional[list]:
        """`dt, shape = view.dtype, view.tile_shape`: values that exist only at translation
        time (dtypes, tuples, views, enum members) cannot travel through a Triton tuple; each
        name is bound as its own assignment (when no target is read on the right)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, (cst.Tuple, cst.List)):
            return None
        els = node.targets[0].target.elements
        if low.items is None or len(low.items) != len(els) \
                or not all(isinstance(e.value, cst.Name) for e in els):
            return None
        # (a compile-time number, `TM, TN = N // 2, 64`, is split too: Triton binds the names
        # of a tuple assignment to tensors, and a tile size must stay a constexpr)
        if not any(isinstance(i.val, (DTypeV, TupleV, TiledViewV, EnumV, CtRefV, PyRefV,
                                      RawMemoryV, ArrayV)) for i in low.items) \
                and not any(self.constexpr_binding(e.value.value, i)
                            for e, i in zip(els, low.items)):
            return None
        names = {e.value.value for e in els}
        if names & {n.value for n in walk(node.value) if isinstance(n, cst.Name)}:
            return None
        lines = []
        for e, item in zip(els, low.items):
            line = self.assign_lowered(e.value, item)
            if line is not None:
                lines.extend(line if isinstance(line, list) else [line])
        return lines

    def name_items(self, name: str, low: Lowered, lines: list) -> Lowered:
        """`low` (a tuple written out) with each item that is not an array, a constant or a
        name bound to a variable of its own (`args_1 = tl.program_id(0)`), added to `lines`."""
        items = []
        for k, item in enumerate(low.items):
            if isinstance(item.val, TupleV) and item.items is not None:
                item = self.name_items(f"{name}_{k}", item, lines)
            elif not isinstance(item.val, (ArrayV, ConstV, ConstExprV, DTypeV)) \
                    and not item.code.isidentifier():
                var = self.fresh_name(f"{name}_{k}")
                lines.append(f"{var} = {item.code}")
                self.env[var] = item.val
                item = Lowered(var, item.val)
            items.append(item)
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        return Lowered(code, TupleV([i.val for i in items]), items=items)

    def unpack_nested(self, target, low: Lowered, value) -> list:
        """`(a, (b, c)), d = t`: nested targets take a tuple whose items are known here, one
        binding per name (a number is bound as itself, other items as `t[0][1]`)."""
        if not isinstance(low.val, TupleV) or not low.val.known:
            raise self.error(value, "T2T103", "a nested unpacking needs a tuple whose items "
                             "are known here", help="unpack one level at a time")
        items = self.tuple_items(value, low)
        els = target.elements
        if len(items) != len(els):
            raise self.error(target, "T2T105",
                             f"cannot unpack {len(items)} values into {len(els)} targets",
                             help="give as many targets as the value has items")
        reads = {n.value for n in walk(value) if isinstance(n, cst.Name)}
        lines = []
        for el, item in zip(els, items):
            if isinstance(item.val, ConstV) and type(item.val.value) in (bool, int, float):
                item = self.const(item.val.value)
            if isinstance(el.value, (cst.Tuple, cst.List)):
                lines += self.unpack_nested(el.value, item, value)
                continue
            if not isinstance(el.value, cst.Name):
                raise self.error(el.value, "T2T101", "only names can be unpacked into",
                                 help="unpack into plain names, then assign from those")
            if el.value.value in reads:
                raise self.error(el.value, "T2T101", f"`{el.value.value}` is read on the right "
                                 "of a nested unpacking that binds it",
                                 help="unpack into other names")
            line = self.assign_lowered(el.value, item)
            if line is not None:
                lines.extend(line if isinstance(line, list) else [line])
        return lines

    def assign_lowered(self, name: cst.Name, low: Lowered):
        """`name = <low>` for an already lowered value (see split_unpacking)."""
        if isinstance(low.val, ArrayV):
            if name.value in self.mutable:
                return self.bind_mutable_array(name, low.val.info)
            if low.val.info.shape_codes is None:
                self.static_names.pop(name.value, None)
                self.env[name.value] = low.val
                return None
            return self.bind_array_view(name.value, low.val.info)
        if isinstance(low.val, (TiledViewV, RawMemoryV, EnumV, CtRefV, PyRefV)):
            self.env[name.value] = low.val
            return None
        if isinstance(low.val, DTypeV) and low.val.tf32_when is None or isinstance(
                low.val, TupleV) and low.items is not None:
            # an alias, read as what it names (a tuple's items stay readable: `shape[0]`)
            self.static_names[name.value] = low
            self.env[name.value] = low.val
            return None
        if isinstance(low.val, DTypeV):
            self.env[name.value] = DTypeV(code=name.value, tf32_when=low.val.tf32_when)
            return f"{name.value} = {low.code}"
        if self.constexpr_binding(name.value, low):
            return f"{self.target(name, low)}: tl.constexpr = {low.code}"
        return f"{self.target(name, low)} = {low.code}"

    def constexpr_binding(self, name: str, low: Lowered) -> bool:
        """Whether `name = <low>` binds a compile-time number cuTile can use as a tile size,
        bound once (Triton binds a constexpr once) and not a parameter."""
        if name in self.mutable or name in {p.name for p in self.params}:
            return False
        v = low.val
        return isinstance(v, ConstV) and isinstance(v.value, (bool, int, float)) \
            or isinstance(v, ConstExprV) and v.kind in ("int", "bool") \
            and self.integer_constexpr_code(low.code)

    def target(self, t, low: Lowered) -> str:
        if isinstance(t, cst.Name):
            self.static_names.pop(t.value, None)
            self.bound.add(t.value)
            self.env[t.value] = self.runtime_if_mutable(t.value, low.val)
            if isinstance(low.val, ArrayV):
                raise self.error(t, "T2T101", "arrays cannot be re-bound to new names in kernels",
                                 help="use the array parameter directly")
            return self.renames.get(t.value, t.value)
        if isinstance(t, (cst.Tuple, cst.List)):
            names = []
            items = low.val.items if isinstance(low.val, TupleV) else None
            if items is not None and len(items) != len(t.elements):
                raise self.error(t, "T2T105",
                                 f"cannot unpack {len(items)} values into {len(t.elements)} names",
                                 help="give as many names as the value has items")
            for i, el in enumerate(t.elements):
                if not isinstance(el.value, cst.Name):
                    raise self.error(el.value, "T2T101", "only names can be unpacked into",
                                     help="unpack into plain names, then assign from those")
                self.env[el.value.value] = items[i] if items is not None else TileV()
                names.append(self.renames.get(el.value.value, el.value.value))
            return ", ".join(names)
        raise self.error(t, "T2T101", "only assignments to names are supported in kernels",
                         help="tiles are immutable values; assign a new tile to a name")

    def aug_assign(self, node: cst.AugAssign) -> str:
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "T2T101", "only names can be augmented-assigned",
                             help="assign to a name: `t = t + x` with `t` a local, then store it")
        name = node.target.value
        symbol = AUGOP_SYMBOL[type(node.operator)]
        left = self.expr(node.target)
        right = self.expr(node.value)
        low = self.operator(symbol, node, left, right)
        if name in self.straight:
            line = self.straight_binding(name, low)
            if line is not None:
                return line
        self.static_names.pop(name, None)
        self.bound.add(name)
        self.env[name] = self.runtime_if_mutable(name, low.val)
        name = self.renames.get(name, name)
        # keep `x += y` when the operator lowers to itself
        if symbol in ("+", "-", "*", "&", "|", "^", "/") \
                and low.code == f"{left.wrap(12)} {symbol} {right.wrap(PREC[symbol] + 1)}":
            return f"{name} {symbol}= {right.code}"
        return f"{name} = {low.code}"


def _nested_target(target) -> bool:
    """Whether an assignment target unpacks into a tuple inside a tuple: `(a, (b, c)) = t`."""
    return isinstance(target, (cst.Tuple, cst.List)) and any(
        isinstance(el.value, (cst.Tuple, cst.List)) for el in target.elements)


def _compile_time_tuple(v: TupleV) -> bool:
    """A tuple of numbers, integer/boolean/float ct.Constant values and such tuples."""
    return all(isinstance(i, ConstV) and type(i.value) in (bool, int, float)
               or isinstance(i, ConstExprV) and i.kind in ("int", "bool", "float")
               or isinstance(i, TupleV) and _compile_time_tuple(i) for i in v.items)


def _holds_arrays(low: Lowered) -> bool:
    """Whether a tuple written out holds an array or a function (maybe in a tuple inside it),
    which exist only at translation time."""
    return any(isinstance(i.val, (ArrayV, FuncV)) or isinstance(i.val, TupleV)
               and i.items is not None and _holds_arrays(i) for i in low.items)
