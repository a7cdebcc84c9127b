"""Expressions: one method per supported expression node. Every `ct.*` call and operator goes to
the pattern that claims it (or T2T100); calls of module functions go to helper specialization."""
from __future__ import annotations

import libcst as cst

from ..diagnostics import LocatedFailure, TranslationError
from ..model import (
    ArrayListV,
    ArrayV,
    ConstExprV,
    ConstV,
    EnumClassV,
    FuncV,
    Lowered,
    NoneV,
    TableV,
    TileV,
    TupleV,
)
from . import pyconst

# Python builtins kernels may call (cuTile gives them tile meanings: max is ct.maximum, ...)
BUILTINS = ("range", "min", "max", "len", "float", "int", "bool", "abs", "print", "divmod",
            "tuple", "sum")


class Expressions:
    """Mixin of `Lowerer`: the expression dispatch (`expr`), names, literals, tuples, lists and
    subscripts (tuple items and slices, tile indexing). Operators are in operators.py, calls
    in calls.py and helper_calls.py."""

    # --------------------------------------------------------------------------- expressions
    def expr(self, node) -> Lowered:
        method = getattr(self, "x_" + type(node).__name__, None)
        if method is None:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` expressions are not supported in kernels",
                             help="rewrite the expression with supported forms (a helper "
                                  "function, a conditional expression, or tile operations)")
        try:
            return method(node)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this expression
            raise LocatedFailure(node, e) from e

    def x_Integer(self, node):
        return Lowered(node.value, self.fold(node, lambda: node.evaluated_value).val)

    def x_Float(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_SimpleString(self, node):
        return Lowered(node.value, ConstV(node.evaluated_value))

    def x_Name(self, node: cst.Name) -> Lowered:
        name = node.value
        if name in self.static_names:        # a ct.static_iter item, inlined
            return self.static_names[name]
        if name in self.env:
            val = self.env[name]
            return Lowered(self.renames.get(name, name), val)
        if name in ("True", "False"):
            return Lowered(name, ConstV(name == "True"))
        if name == "None":
            return Lowered("None", NoneV())
        q = self.pm.imports.get(name)
        if q is not None:
            if q == "cuda.tile" or q.startswith("cuda.tile."):
                return self.ct_ref(q, node)
            if q.split(".")[0] in pyconst.PY_MODULES:
                return self.py_ref(q, node)
            if name in self.pm.enums:       # an enum of the user's other module (packages.py)
                return Lowered(name, EnumClassV(name))
            raise self.error(node, "T2T107",
                             f"`{name}` (imported from `{q}`) cannot be used inside a kernel",
                             help="kernels may only use cuda.tile constructs and Python operators")
        if name in self.pm.globals:
            return self.module_global(name, node)
        if name in self.pm.enums:
            return Lowered(name, EnumClassV(name))
        if name in self.pm.functions:
            return Lowered(name, FuncV(name))
        if name in BUILTINS:
            return Lowered(name, FuncV("builtins." + name))
        raise self.error(node, "T2T107", f"unknown name `{name}` inside kernel `{self.fn.name}`",
                         help="define it before use, pass it as a parameter, or make it a "
                              "module-level constant")


    def x_Tuple(self, node: cst.Tuple) -> Lowered:
        items = []
        for el in node.elements:
            low = self.expr(el.value)
            if isinstance(el, cst.StarredElement):   # `(7, *a, 8)`: a's items spliced in
                if isinstance(low.val, ConstV) and isinstance(low.val.value, tuple):
                    items.extend(self.const(v) for v in low.val.value)
                elif isinstance(low.val, TupleV) and low.val.known:
                    items.extend(self.const(i.val.value) if isinstance(i.val, ConstV) else i
                                 for i in self.tuple_items(el.value, low))
                elif isinstance(low.val, TupleV):
                    raise self.error(el, "T2T103", "`*` needs a tuple whose length is known "
                                     "here", help="write the tuple's items, or `*()` for none")
                else:
                    raise self.error(el, "T2T101", "`*` in a tuple takes a tuple here",
                                     help="unpack a tuple whose length is known here")
            else:
                items.append(low)
        code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
        return Lowered(code, TupleV([i.val for i in items]), items=items)

    def x_List(self, node: cst.List) -> Lowered:
        return self.x_Tuple(node)  # shapes written as lists behave as tuples

    def x_Subscript(self, node: cst.Subscript) -> Lowered:
        base = self.expr(node.value)
        v = base.val
        if isinstance(v, TupleV):
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return self.tuple_slice(node, base)
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "tuples can only be indexed with one integer "
                                 "or sliced with constant bounds",
                                 help="index a tuple with one integer known at translation time, "
                                      "or slice it with constant bounds")
            idx = self.expr(node.slice[0].slice.value)
            if isinstance(idx.val, ConstExprV) and (base.items is not None or v.items):
                return self.tuple_choice(node, base, idx)   # tables.py
            if not isinstance(idx.val, ConstV) or not isinstance(idx.val.value, int):
                raise self.error(node.slice[0], "T2T103",
                                 "a tuple index must be a compile-time integer",
                                 help="use an integer literal, a ct.Constant parameter or a loop "
                                      "variable of ct.static_iter")
            i = idx.val.value
            n = len(base.items if base.items is not None else v.items)
            if (n or base.items is not None or v.known) and not -n <= i < n:
                raise self.error(node.slice[0], "T2T105",
                                 f"index {i} is out of range for a tuple of {n} item"
                                 f"{'' if n == 1 else 's'}",
                                 help=f"use an index from {-n} to {n - 1}" if n else None)
            if base.items is not None:
                return base.items[i]
            if v.items:
                item = v.items[i]
                if isinstance(item, ConstV) and type(item.value) in (int, bool, float):
                    return self.const(item.value)      # `(4, 8)[0]`, `extra[1]`: the number
                return Lowered(f"{base.wrap(100)}[{i}]", item)
            return Lowered(f"{base.wrap(100)}[{i}]", TileV(shape=()))
        if isinstance(v, TileV):
            return self.tile_index(node, base)
        if isinstance(v, TableV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "a dict takes one key",
                                 help="look up one key at a time: `table[key]`")
            return self.table_index(node, base, self.expr(node.slice[0].slice.value))
        if isinstance(v, ArrayListV):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                raise self.error(node, "T2T101", "a list of arrays takes one index",
                                 help="index the list of arrays with one integer: `arrays[i]`")
            idx = self.expr(node.slice[0].slice.value)
            return Lowered(f"{v.info.name}[{idx.code}]", ArrayV(v.info.element(idx.wrap(100))))
        raise self.error(node, "T2T101", "this subscript is not supported in kernels",
                         help="subscript tiles with indices and `None`, tuples with integers and "
                              "dicts with constant keys; use ct.extract or ct.gather for the rest")

    def tuple_slice(self, node: cst.Subscript, base: Lowered) -> Lowered:
        """`t[a:b:c]` with compile-time bounds: the tuple of the chosen items (Triton slices its
        tuples the same way when the items are only known there)."""
        sl = node.slice[0].slice
        bounds = []
        for part in (sl.lower, sl.upper, sl.step):
            if part is None:
                bounds.append(None)
                continue
            b = self.expr(part)
            if not isinstance(b.val, ConstV) or not isinstance(b.val.value, int) \
                    or isinstance(b.val.value, bool):
                raise self.error(part, "T2T103", "a tuple slice's bounds must be compile-time "
                                 "integers",
                                 help="use integer literals or ct.Constant parameters as the "
                                      "slice bounds")
            bounds.append(b.val.value)
        if bounds[2] == 0:
            raise self.error(sl.step, "T2T102", "a slice step cannot be zero",
                             help="use a step other than 0 (or leave it out)")
        v = base.val
        chosen = slice(*bounds)
        if base.items is not None:
            items = base.items[chosen]
            code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
            return Lowered(code, TupleV([i.val for i in items]), items=items)
        if not v.items:
            raise self.error(node, "T2T103", "slicing a tuple needs its length known here",
                             help="slice a tuple whose length is fixed (a literal tuple, a shape, "
                                  "a tuple parameter)")
        text = ":".join("" if b is None else str(b) for b in bounds).rstrip(":") or ":"
        indices = list(range(len(v.items)))[chosen]
        return Lowered(f"{base.wrap(100)}[{text}]", TupleV([v.items[i] for i in indices]))

    def tile_index(self, node: cst.Subscript, base: Lowered) -> Lowered:
        """`x[:, None]`, `x[None, :]`: new axes. Other tile indexing is not cuTile syntax."""
        parts = []
        shape = list(base.val.shape) if base.val.shape is not None else None
        new_shape = [] if shape is not None else None
        kinds = [self.new_axis_kind(el) for el in node.slice]
        if kinds.count("...") > 1:
            raise self.error(node, "T2T101", "a tile index may hold one `...`",
                             help="keep at most one `...` in the index")
        if "..." in kinds:
            # `...` stands for as many `:` as the tile has axes not named by the others
            if shape is None:
                raise self.error(node, "T2T105", "`...` in a tile index needs the tile's rank, "
                                 "which is not known here", help="write the `:` out")
            fill = len(shape) - kinds.count(":")
            if fill < 0:
                raise self.error(node, "T2T105", f"too many `:` for a tile of rank {len(shape)}",
                                 help="use at most one `:` or `...` per axis of the tile")
            at = kinds.index("...")
            kinds[at:at + 1] = [":"] * fill
        src = 0
        for kind in kinds:
            if kind == ":":
                parts.append(":")
                if new_shape is not None:
                    new_shape.append(shape[src] if src < len(shape) else None)
                src += 1
            else:
                parts.append("None")
                if new_shape is not None:
                    new_shape.append(1)
        if new_shape is not None and shape is not None:
            new_shape.extend(shape[src:])
        v = base.val
        return Lowered(f"{base.wrap(100)}[{', '.join(parts)}]",
                       TileV(shape=tuple(new_shape) if new_shape is not None else None,
                             dtype=v.dtype, tf32=v.tf32, nonneg=v.nonneg, positive=v.positive,
                             numeric=v.numeric))

    def new_axis_kind(self, el: cst.SubscriptElement) -> str:
        """One entry of a tile index: ":" (a whole axis), "None" (a new axis: `None`,
        `np.newaxis`) or "..." (the axes not named)."""
        s = el.slice
        if isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None:
            return ":"
        if isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis):
            return "..."
        if isinstance(s, cst.Index) and (
                (isinstance(s.value, cst.Name) and s.value.value == "None")
                or self.resolve(s.value) in ("numpy.newaxis", "torch.newaxis")):
            return "None"
        raise self.error(el, "T2T101", "tiles can only be indexed with `:`, `None` and `...`",
                         help="use ct.extract or ct.item to take parts of a tile")
