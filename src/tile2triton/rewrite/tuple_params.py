"""Tuple kernel parameters: `k(a, pair, out)` launched with `(x, (y, 5), z)`.

cuTile passes a tuple argument as its leaves (arrays, scalars, constants, nested tuples) and the
kernel reads them as `pair[0]`, `pair[1][0]`. A Triton kernel could take a tuple too, but an array
inside it would be a bare pointer, without the shapes and strides the translation needs. So a
parameter that the kernel only reads through constant indices is split before recognition: each
index chain used (`pair[1][0]`) becomes a parameter of its own (`pair_1_0`), annotated with the
part of the tuple's annotation at that position (`tuple[ct.Constant[int], int]` gives
`ct.Constant[int]` and `int`), and the launcher takes the tuple and passes those parts. A
parameter used any other way (bare, with a computed or negative index, assigned) is left alone.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..parse.names import identifiers


def _chain(node) -> Optional[tuple]:
    """`p[1][0]` -> ("p", (1, 0)); None unless every index is a non-negative int literal."""
    path = []
    while isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        v = node.slice[0].slice.value
        if not isinstance(v, cst.Integer):
            return None
        path.append(int(v.evaluated_value))
        node = node.value
    if isinstance(node, cst.Name) and path:
        return node.value, tuple(reversed(path))
    return None


class _Uses(cst.CSTVisitor):
    def __init__(self, names: set):
        self.names = names
        self.paths: dict = {n: {} for n in names}    # name -> {path: first chain node}
        self.bare: set = set()                       # names used some other way

    def visit_Subscript(self, node: cst.Subscript):
        c = _chain(node)
        if c is not None and c[0] in self.names:
            self.paths[c[0]].setdefault(c[1], node)
            return False
        return True

    def visit_Call(self, node: cst.Call):
        # `len(p)`: the tuple's length, a part of its own (path LEN)
        if _is_len_of(node, self.names):
            self.paths[node.args[0].value.value].setdefault(LEN, node)
            return False
        return True

    def visit_Name(self, node: cst.Name):
        if node.value in self.names:
            self.bare.add(node.value)

    def visit_Attribute(self, node: cst.Attribute):
        node.value.visit(self)      # `p.attr`: p is used; `.attr` itself is no use of a name
        return False

    def visit_Arg(self, node: cst.Arg):
        node.value.visit(self)      # a keyword's name is no use of a name
        return False


LEN = ("len",)   # the path of a tuple parameter's length (`len(p)`)


def _is_len_of(node: cst.Call, names) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value == "len" and len(
        node.args) == 1 and not node.args[0].star and node.args[0].keyword is None and isinstance(
        node.args[0].value, cst.Name) and node.args[0].value.value in names


def _constant_int(pm):
    """`ct.Constant[int]` as this module spells it (None: it imports no way to say it)."""
    for local, q in pm.imports.items():
        if q == "cuda.tile":
            return cst.parse_expression(f"{local}.Constant[int]")
        if q == "cuda.tile.Constant":
            return cst.parse_expression(f"{local}[int]")
    return None


def _part_annotation(pm, ann, i: int):
    """The annotation of item `i` of a tuple annotated `ann` (None: unknown)."""
    if ann is None:
        return None
    ann = pm.unalias(ann)
    if pm.ct_name(ann) == "Constant":          # the whole tuple is constant
        return ann
    if isinstance(ann, cst.Subscript):
        base = ann.value
        if pm.ct_name(base) == "Constant":
            return base                            # ct.Constant[tuple[...]]: every part too
        if isinstance(base, cst.Name) and base.value in ("tuple", "Tuple") or \
                isinstance(base, cst.Attribute) and base.attr.value == "Tuple":
            items = [el.slice.value for el in ann.slice if isinstance(el.slice, cst.Index)]
            if len(items) == 2 and isinstance(items[1], cst.Ellipsis):
                return items[0]
            if i < len(items):
                return items[i]
    return None


class _Replace(cst.CSTTransformer):
    def __init__(self, leaves: dict, origins: dict):
        self.leaves = leaves       # (name, path) -> leaf name
        self.origins = origins

    def leave_Call(self, original, updated):
        if _is_len_of(original, {n for n, _ in self.leaves}):
            leaf = self.leaves.get((original.args[0].value.value, LEN))
            if leaf is not None:
                new = cst.Name(leaf, lpar=original.lpar, rpar=original.rpar)
                self.origins[new] = original
                return new
        return updated

    def leave_Subscript(self, original, updated):
        c = _chain(original)
        if c is not None and c in self.leaves:
            new = cst.Name(self.leaves[c], lpar=original.lpar, rpar=original.rpar)
            self.origins[new] = original
            return new
        return updated


def split_tuple_params(pm, fn) -> list:
    """Rewrite `fn.node` so that each tuple parameter read only through constant indices is
    its leaves. Returns [(parameter, [(leaf parameter, path), ...]), ...] (empty: nothing split).
    """
    node = fn.node
    params = node.params
    candidates = {p.name.value for p in params.params
                  if p.default is None and not _plain_annotation(pm, p.annotation)}
    if not candidates:
        return []
    uses = _Uses(candidates)
    node.body.visit(uses)
    taken = identifiers(node)
    leaves: dict = {}
    out = []
    new_params = []
    for p in params.params:
        name = p.name.value
        paths = uses.paths.get(name) if name in candidates else None
        if not paths or name in uses.bare or any(
                a != b and b[:len(a)] == a for a in paths for b in paths):
            new_params.append(p)
            continue
        parts = []
        for path in sorted(paths, key=lambda q: (q == LEN, q)):
            leaf = name + "_" + "_".join(map(str, path))
            while leaf in taken:
                leaf += "_"
            taken.add(leaf)
            leaves[(name, path)] = leaf
            ann = p.annotation.annotation if p.annotation is not None else None
            if path == LEN:
                ann = _constant_int(pm)      # a tuple's length is part of its type
            for i in () if path == LEN else path:
                ann = _part_annotation(pm, ann, i)
            param = cst.Param(cst.Name(leaf),
                              annotation=cst.Annotation(ann) if ann is not None else None)
            pm.origins[param] = p
            pm.origins[param.name] = p.name
            new_params.append(param)
            parts.append((leaf, path))
        out.append((name, parts))
    if not out:
        return []
    body = node.body.visit(_Replace(leaves, pm.origins))
    new = node.with_changes(params=params.with_changes(params=new_params), body=body)
    pm.origins[new] = node
    fn.node = new
    return out


def _plain_annotation(pm, ann) -> bool:
    """Annotations that say the parameter is no tuple (an array, a list, a number)."""
    if ann is None:
        return False
    a = pm.unalias(ann.annotation)
    if isinstance(a, cst.Name) and a.value in ("int", "float", "bool", "list", "List"):
        return True
    name = pm.ct_name(a.value if isinstance(a, cst.Subscript) else a)
    return name in ("Array", "IndexedWithInt64", "ScalarInt64", "Scalar") or (
        name == "Constant" and isinstance(a, cst.Subscript) and not _is_tuple_type(a))


def _is_tuple_type(a: cst.Subscript) -> bool:
    inner = a.slice[0].slice.value if a.slice and isinstance(a.slice[0].slice, cst.Index) \
        else None
    if isinstance(inner, cst.Subscript):
        inner = inner.value
    return isinstance(inner, cst.Name) and inner.value in ("tuple", "Tuple")


def rewrite_pass(unit) -> None:
    """Kernel pass (rewrite/__init__.py): `unit.fn`'s tuple parameters split into their
    leaves, recorded in `fn.tuple_params`."""
    unit.fn.tuple_params = split_tuple_params(unit.pm, unit.fn)
