"""Names bound to arrays, tiled views and tuples of arrays that cuTile lets change (bound again
in a loop or in both branches of an `if`), and names for an element of a list of arrays: the
pointer, shapes and strides live in variables of their own, assigned at each binding."""
from __future__ import annotations

import libcst as cst

from ..model import ArrayInfo, ArrayV, Lowered, TiledViewV, TupleV


class ArrayBindings:
    """Mixin of `Lowerer`: array, view and tuple-of-array bindings (assignments.py calls them)."""

    def bind_mutable_view(self, target: cst.Name, view: TiledViewV) -> list:
        """`tv = y.tiled_view(T)` where `tv` is bound again (in a loop, or in both branches
        of an `if`): which array the view reads is then a runtime value, so its pointer, shapes
        and strides live in the view's own variables, assigned at each binding."""
        name = target.value
        old = self.env.get(name)
        if isinstance(old, TiledViewV) and old.array.name == name and (
                old.array.rank != view.array.rank or list(old.tile_shape) != list(
                view.tile_shape) or old.steps != view.steps):
            raise self.error(target, "T2T105", f"tiled view `{name}` is bound to views of "
                             "other ranks or tile shapes", help="use one name per kind of view")
        info = ArrayInfo(name, rank=view.array.rank, abi_prefix=self.pm.names.array_prefix(name))
        lines = [f"{info.pointer} = {view.array.pointer}"]
        lines += [f"{info.shape(d)} = {view.array.shape(d)}" for d in range(info.rank)]
        lines += [f"{info.stride(d)} = {view.array.stride(d)}" for d in range(info.rank)]
        self.env[name] = TiledViewV(info, list(view.tile_shape), view.padding, view.steps)
        return lines

    def bind_mutable_array(self, target: cst.Name, array: ArrayInfo) -> list:
        """`alias = x` where `alias` is bound again (in a loop, or in both branches of an
        `if`): which array it names is a runtime value, so its pointer, shapes and strides live
        in its own variables, assigned at each binding (the arrays must share a dtype and a
        rank, as Triton's merged pointer type requires)."""
        name = target.value
        if array.rank is None:
            raise self.error(target, "T2T101", "an array name bound to several arrays needs "
                             "arrays of a known rank", help="index the arrays with tuples of "
                             "their rank, or use one name per array")
        old = self.env.get(name)
        if isinstance(old, ArrayV) and old.info.name == name and old.info.rank != array.rank:
            raise self.error(target, "T2T105", f"`{name}` is bound to arrays of ranks "
                             f"{old.info.rank} and {array.rank}",
                             help="use one name per rank of array")
        if isinstance(old, ArrayV) and old.info.name == name:
            info = old.info
        else:
            info = ArrayInfo(name, rank=array.rank, abi_prefix=self.pm.names.array_prefix(name))
        self.static_names.pop(name, None)
        lines = [f"{info.pointer} = {array.pointer}"]
        lines += [f"{info.shape(d)} = {array.shape(d)}" for d in range(info.rank)]
        lines += [f"{info.stride(d)} = {array.stride(d)}" for d in range(info.rank)]
        self.env[name] = ArrayV(info)
        return lines

    def bind_mutable_tuple(self, target: cst.Name, low: Lowered) -> list:
        """`t = (x, y)` where `t` is bound again to tuples of arrays (`t = (y, x)` in a loop):
        each item is an array name of its own (`t_0`, `t_1`) bound as above, and `t` reads as
        the tuple of them."""
        name = target.value
        old = self.static_names.get(name)
        if old is not None and isinstance(old.val, TupleV) and old.items is not None \
                and len(old.items) != len(low.items):
            raise self.error(target, "T2T105", f"`{name}` is bound to tuples of lengths "
                             f"{len(old.items)} and {len(low.items)}",
                             help="use one name per length of tuple")
        lines, items = [], []
        for i, item in enumerate(low.items):
            part = self.pm.names[f"{name}_{i}"]
            lines += self.bind_mutable_array(cst.Name(part), item.val.info)
            items.append(Lowered(part, self.env[part]))
        # one parallel assignment: `t = (t[1], t[0])` swaps
        pairs = [line.split(" = ", 1) for line in lines]
        lines = [", ".join(p[0] for p in pairs) + " = " + ", ".join(p[1] for p in pairs)]
        vals = [it.val for it in items]
        self.env[name] = TupleV(vals)
        self.static_names[name] = Lowered("(" + ", ".join(it.code for it in items) + ",)",
                                          TupleV(vals), items=items)
        return lines

    def bind_array_view(self, name: str, element: ArrayInfo) -> list:
        """`A = As[g]` or `sub = x.slice(...)`: compute the new array's pointer, shapes and
        strides once, into ordinary names."""
        info = ArrayInfo(name, rank=element.rank, abi_prefix=self.pm.names.array_prefix(name))
        # an extent known at translation time stays a literal (a tile shape may use it)
        static = {d: element.shape(d) for d in range(info.rank) if element.shape(d).isdigit()}
        if static:
            info.shape_codes = [static.get(d, f"{info.abi_prefix}_shape{d}")
                                for d in range(info.rank)]
        self.env[name] = ArrayV(info)
        lines = [f"{info.pointer} = {element.pointer}"]
        lines += [f"{info.shape(d)} = {element.shape(d)}" for d in range(info.rank)
                  if d not in static]
        lines += [f"{info.stride(d)} = {element.stride(d)}" for d in range(info.rank)]
        return lines
