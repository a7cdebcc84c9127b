"""`ct.static_iter`: loops and tuple comprehensions cuTile unrolls while compiling.

    for i, t in ct.static_iter(enumerate(tiles)):        # one copy of the body per item
        ct.store(y, (i,), t)
    rotated = tuple(tiles[(i + 1) % 3] for i in ct.static_iter(range(3)))

The sequence must be known at translation time: `range` of constants, a tuple (literal, or a
name bound to one), and `enumerate` / `zip` of those. Triton has no such loop over values of
different types (only `tl.static_range` over integers), so the translator unrolls it: each
iteration's targets are bound to that item (constants inline as literals, so `tiles[i]` keeps a
constant index; tiles get an ordinary assignment), and the body is lowered once per item.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..model import ConstV, CtRefV, FuncV, Lowered, TupleV


# unrolling copies the body once per item: beyond this, a plain loop is the right tool
MAX_ITEMS = 1024


class StaticIteration:
    """Mixin of `Lowerer`."""

    def is_static_iter(self, node) -> bool:
        if not (isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute))):
            return False
        if isinstance(node.func, cst.Name) and node.func.value in self.env:
            return False
        try:
            f = self.expr(node.func)
        except Exception:  # noqa: BLE001 - not a name we know: not static_iter
            return False
        return isinstance(f.val, CtRefV) and f.val.qualname == "cuda.tile.static_iter"

    # ------------------------------------------------------------------ the sequence's items
    def static_items(self, call: cst.Call) -> list:
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            raise self.error(call, "T2T102", "ct.static_iter takes one positional argument",
                             help="pass ct.static_iter one tuple or range: `for x in "
                                  "ct.static_iter(items)`")
        return self._items(call.args[0].value)

    def _items(self, node) -> list:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                and node.func.value in ("range", "enumerate", "zip") \
                and node.func.value not in self.env:
            fn = node.func.value
            if any(a.keyword is not None or a.star for a in node.args):
                raise self.error(node, "T2T102", f"{fn}() inside ct.static_iter takes "
                                                 "positional arguments",
                                 help="pass the arguments by position")
            if fn == "range":
                args = [self.expr(a.value) for a in node.args]
                if not all(isinstance(a.val, ConstV) and isinstance(a.val.value, int)
                           and not isinstance(a.val.value, bool) for a in args):
                    raise self.error(node, "T2T103", "ct.static_iter(range(...)) needs "
                                     "compile-time integer bounds",
                                     help="the loop is unrolled while translating")
                r = range(*(a.val.value for a in args))
                if len(r) > MAX_ITEMS:
                    raise self.error(node, "T2T103", f"ct.static_iter over {len(r)} items: the "
                                     f"translation unrolls at most {MAX_ITEMS}",
                                     help="use a plain `for` loop over range(...)")
                return [self.const(i) for i in r]
            if fn == "enumerate":
                start = 0
                if len(node.args) == 2:
                    s = self.expr(node.args[1].value)
                    if not (isinstance(s.val, ConstV) and isinstance(s.val.value, int)):
                        raise self.error(node.args[1], "T2T103", "the start of enumerate() "
                                         "must be a compile-time integer",
                                         help="use an integer literal or a ct.Constant parameter "
                                              "as the start")
                    start = s.val.value
                elif len(node.args) != 1:
                    raise self.error(node, "T2T102", "enumerate() takes a sequence and an "
                                                     "optional start",
                                     help="call enumerate(sequence) or enumerate(sequence, start)")
                seq = self._items(node.args[0].value)
                return [_pair([self.const(start + i), it]) for i, it in enumerate(seq)]
            seqs = [self._items(a.value) for a in node.args]
            return [_pair(list(group)) for group in zip(*seqs)]
        low = self.expr(node)
        return self.tuple_items(node, low)

    def tuple_items(self, node, low: Lowered) -> list:
        v = low.val
        if not isinstance(v, TupleV) or not v.known:
            raise self.error(node, "T2T103", "ct.static_iter needs a sequence known at "
                             "translation time",
                             help="iterate over range() of constants, a tuple, or enumerate/"
                                  "zip of those")
        if low.items is not None:
            return list(low.items)
        return [Lowered(f"{low.wrap(100)}[{k}]", item) for k, item in enumerate(v.items)]

    # ------------------------------------------------------------------------- binding
    def bind_static(self, target, item: Lowered, lines: Optional[list]) -> None:
        """Bind a loop target to one item. With `lines` (a statement loop), non-constant items
        get an assignment line; without (a comprehension), every item is inlined."""
        if isinstance(target, cst.Name):
            name = target.value
            if lines is None:               # a comprehension: its own scope, restored after
                self.static_names[name] = item
            elif isinstance(item.val, (ConstV, TupleV, FuncV)):
                # constants stay literals (constant indices); tuples keep their items, so a
                # nested ct.static_iter over them still knows its length
                self.static_names[name] = item
                self.env.pop(name, None)
            else:
                self.static_names.pop(name, None)
                self.env[name] = item.val
                lines.append(f"{self.renames.get(name, name)} = {item.code}")
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            parts = self.tuple_items(target, item)
            if len(parts) != len(target.elements):
                raise self.error(target, "T2T105", f"cannot unpack {len(parts)} values into "
                                 f"{len(target.elements)} names",
                                 help="give as many names as each item has parts")
            for el, part in zip(target.elements, parts):
                self.bind_static(el.value, part, lines)
            return
        raise self.error(target, "T2T101", "ct.static_iter targets must be names or tuples "
                                           "of names",
                         help="loop over a name or a tuple of names: `for i, x in "
                              "ct.static_iter(...)`")

    # ----------------------------------------------------------------------- the forms
    def static_for(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`for ... else` is not supported in kernels",
                             help="move the `else` block after the loop")
        items = self.static_items(node.iter)
        self.line(f"# ct.static_iter: {len(items)} iteration{'' if len(items) == 1 else 's'}, "
                  "unrolled", self.header_comment(node))
        body = node.body
        if not isinstance(body, cst.IndentedBlock):
            raise self.error(body, "T2T101", "one-line blocks are not supported in kernels",
                             help="put the loop body on its own indented lines")
        for item in items:
            lines: list = []
            self.bind_static(node.target, item, lines)
            for text in lines:
                self.line(text)
            for stmt in body.body:
                self.stmt(stmt)

    def tuple_comprehension(self, node: cst.GeneratorExp) -> Lowered:
        """`tuple(<elt> for <target> in ct.static_iter(...) [if <cond>] ...)`."""
        saved = dict(self.static_names)
        out: list = []
        names: set = set()
        comp = node.for_in
        while comp is not None:
            _bound_names(comp.target, names)
            comp = comp.inner_for_in
        self.comp_vars.append(names)
        try:
            self._comprehend(node.elt, node.for_in, out)
        finally:
            self.static_names = saved
            self.comp_vars.pop()
        code = "(" + ", ".join(o.code for o in out) + ("," if len(out) == 1 else "") + ")"
        return Lowered(code, TupleV([o.val for o in out]), items=out)

    def _comprehend(self, elt, comp: cst.CompFor, out: list) -> None:
        if comp.asynchronous is not None:
            raise self.error(comp, "T2T101", "`async for` is not supported in kernels",
                             help="use a plain `for`: kernels have no event loop to await in")
        if self.is_static_iter(comp.iter):
            items = self.static_items(comp.iter)
        else:
            items = self._items(comp.iter)
        for item in items:
            self.bind_static(comp.target, item, None)
            keep = True
            for cond in comp.ifs:
                c = self.expr(cond.test)
                if not isinstance(c.val, ConstV):
                    raise self.error(cond.test, "T2T103", "the condition of a tuple "
                                     "comprehension must be known at translation time",
                                     help="filter on values known at translation time (constants, "
                                          "ct.Constant parameters, loop items)")
                keep = keep and bool(c.val.value)
            if not keep:
                continue
            if comp.inner_for_in is not None:
                self._comprehend(elt, comp.inner_for_in, out)
            else:
                out.append(self.expr(elt))


def _pair(items: list) -> Lowered:
    code = "(" + ", ".join(i.code for i in items) + ("," if len(items) == 1 else "") + ")"
    return Lowered(code, TupleV([i.val for i in items]), items=items)


def _bound_names(target, out: set) -> None:
    if isinstance(target, cst.Name):
        out.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            _bound_names(el.value, out)
