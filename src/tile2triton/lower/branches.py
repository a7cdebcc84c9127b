"""`if` statements: branches on compile-time values folded, runtime branches lowered with the
names they bind renamed, joined or merged so that both paths leave what cuTile leaves."""
from __future__ import annotations

import libcst as cst

from .installed import lacks
from ..diagnostics import TranslationError
from ..model import PREC, ConstExprV, ConstV, EnumV, Lowered, TileV, TupleV
from .values import reassigned_names


class Branches:
    """Mixin of `Lowerer`: `if` / `elif` / `else`."""

    def if_stmt(self, node: cst.If, keyword: str) -> None:
        self.inner_comments(node.test)
        test = self.no_statements_before(node.test) if keyword == "elif" else self.expr(node.test)
        if isinstance(test.val, ConstV) and isinstance(test.val.value, (bool, int, float, str)):
            return self.constant_if(node, keyword, bool(test.val.value))
        self.line(f"{keyword} {test.code}:", self.header_comment(node))
        before = dict(self.env)
        shadow_before = dict(self.shadow)
        accesses = self.order.branch_start()    # memory accesses: one branch runs
        self.branch_block(node.body, node.test, test)
        after_body = dict(self.env)
        shadow_body, self.shadow = self.shadow, dict(shadow_before)
        taken = self.order.branch_other(accesses)
        orelse = node.orelse
        renamed = self.rename_branch_locals(node) if isinstance(orelse, cst.Else) else {}
        saved_renames = dict(self.renames)
        self.renames.update(renamed)
        try:
            if isinstance(orelse, cst.If):
                self.leading(orelse)
                self.if_stmt(orelse, "elif")
            elif isinstance(orelse, cst.Else):
                self.leading(orelse)
                self.line("else:", self.header_comment(orelse))
                self.branch_block(orelse.body, node.test, test)
        finally:
            self.renames = saved_renames
        for name in renamed:            # read nowhere after the `if`: as the `then` path left it
            self.env[name] = after_body.get(name, self.env.get(name))
        self.refuse_path_dependent_enums(node, after_body,
                                         self.env if orelse is not None else before)
        self.order.branch_end(taken)
        if isinstance(test.val, ConstExprV):
            self.merge_branch_tiles(test, after_body, self.env if orelse is not None else before)
        self.join_constants(shadow_body, self.shadow)

    def refuse_path_dependent_enums(self, node: cst.If, taken: dict, other: dict) -> None:
        """An enum constant has no run-time value: a name the two paths of a run-time `if`
        leave as different members (`val = MemoryOrder.RELAXED` / `MemoryOrder.WEAK`) has no
        value after it. cuTile rejects reading it there (its type depends on the path)."""
        later = None
        for name in sorted(set(taken) | set(other)):
            a, b = taken.get(name), other.get(name)
            if a == b or not (isinstance(a, EnumV) or isinstance(b, EnumV)):
                continue
            later = _names_outside(self.body, node) if later is None else later
            if name in later:
                raise self.error(node, "T2T101", f"`{name}` is a different enum constant on "
                                 "each path of this `if`, so its value after it depends on the "
                                 "path taken, which cuTile rejects",
                                 help="choose the enum constant with a compile-time condition "
                                      "(a ct.Constant parameter), or use it inside each branch")

    def branch_block(self, body, test_node, test: Lowered) -> None:
        """A branch of an `if`. Under a ct.Constant (Triton compiles the branch a launch takes,
        as cuTile does), a branch naming a construct the installed cuda-tile lacks
        (`ct.sigmoid` in cuda-tile 1.7.0) cannot compile in cuTile either: it becomes a
        compile-time error of the launches that take it, naming the construct."""
        missing = self.lacking_construct(body) if isinstance(test.val, ConstExprV) else None
        if missing is None and isinstance(test.val, ConstExprV) and self.fn.rank_variant:
            return self.rank_variant_branch(body, test_node)
        if missing is None:
            return self.block(body)
        name, version = missing
        cond = self.pm.module.code_for_node(test_node)
        # (two literals, so that the line stays within 100 columns)
        first = f"ct.{name} is not in cuda-tile {version}; "
        second = f"this launch takes the branch of `if {cond}` that uses it"
        self.depth += 1
        self.line(f"tl.static_assert(False, {_string_literal(first)} {_string_literal(second)})")
        self.depth -= 1

    def rank_variant_branch(self, body, test_node) -> None:
        """A branch on constants in one rank variant of a kernel (translate._rank_variants):
        where its uses of an array cannot take the variant's rank (T2T105: the branch is
        for launches of other ranks), it is a compile-time error of the launches that take
        it, as cuTile rejects such a launch when compiling it."""
        mark, env, shadow, depth = len(self.out), dict(self.env), dict(self.shadow), self.depth
        try:
            return self.block(body)
        except TranslationError as e:
            if e.diagnostic.code != "T2T105":
                raise
            del self.out[mark:]
            self.env, self.shadow, self.depth = env, shadow, depth
            cond = self.pm.module.code_for_node(test_node)
            first = f"this launch takes the branch of `if {cond}`, which "
            second = f"does not fit the ranks of its arrays: {e.diagnostic.message}"
            self.depth += 1
            self.line(f"tl.static_assert(False, {_string_literal(first)} "
                      f"{_string_literal(second)})")
            self.depth -= 1

    def lacking_construct(self, body):
        """(name, installed version) of the first `ct.<name>` the branch uses that the
        installed cuda-tile does not define, outside nested `if` statements (their own
        branches are decided there); None if there is none."""
        found = []

        class Find(cst.CSTVisitor):
            def visit_If(self, node):
                return False

            def visit_Attribute(self, node):
                return self._check(node)

            def visit_Name(self, node):
                return self._check(node)

            def _check(self, node):
                if found:
                    return False
                name = pm.ct_name(node)
                if name:
                    version = lacks(name)
                    if version:
                        found.append((name, version))
                    return False
                return True
        pm = self.pm
        for stmt in body.body:
            if not isinstance(stmt, cst.If):
                stmt.visit(Find())
            if found:
                return found[0]
        return None

    def rename_branch_locals(self, node: cst.If) -> dict:
        """Names both branches of an `if` bind and the function uses nowhere else (scratch
        values of each branch: an int32 `t` in one, a float32 `t` in the other): cuTile lets
        them differ in type, Triton merges a name both branches define and rejects differing
        types. The `else` branch's binding gets a name of its own (`t_2`)."""
        both = _bound(node.body) & _bound(node.orelse.body)
        if not both:
            return {}
        used_elsewhere = _names_outside(self.body, node)
        params = {p.name for p in self.params}
        return {n: self.fresh_name(n) for n in sorted(both - used_elsewhere - params)
                if n not in self.renames}

    def join_constants(self, a: dict, b: dict) -> None:
        """After an `if` on a runtime or constexpr condition, a name re-bound outside loops
        (`a`, `b`: its value at the end of either path) is, as in cuTile, a compile-time
        constant when both paths leave it the same one (`if c: a = 1 else: a = 1`; per item
        for tuples: `tup = (ct.bid(1), 4)` / `tup = (ct.bid(0), 4)` makes `tup[1]` 4). It is
        read as that constant from then on; the Triton variable stays, unread."""
        joined = {}
        for name in set(a) | set(b):
            va, vb = a.get(name), b.get(name)
            if va is None or vb is None:
                continue
            if _same_constant(va, vb):
                joined[name] = va
                self.env[name] = va
                self.static_names[name] = self.const(va.value)
            elif isinstance(va, TupleV) and isinstance(vb, TupleV) \
                    and len(va.items) == len(vb.items):
                items = [x if _same_constant(x, y) else TileV(shape=()) if isinstance(
                    x, (ConstV, ConstExprV, TileV)) and isinstance(y, (ConstV, ConstExprV, TileV))
                    and getattr(x, "shape", ()) == () and getattr(y, "shape", ()) == () else y
                    for x, y in zip(va.items, vb.items)]
                joined[name] = TupleV(items)
                self.env[name] = TupleV(items)
                if any(isinstance(i, ConstV) for i in items):
                    self.static_names[name] = Lowered(name, TupleV(items), items=[
                        self.const(i.value) if isinstance(i, ConstV)
                        else Lowered(f"{name}[{k}]", i) for k, i in enumerate(items)])
                else:
                    self.static_names.pop(name, None)
        self.shadow = {n: v for n, v in b.items() if n in a and a[n] is v}
        self.shadow.update(joined)

    def merge_branch_tiles(self, test: Lowered, taken: dict, other: dict) -> None:
        """After an `if` on a constexpr (Triton compiles one branch per specialization), a tile
        bound to other shapes or dtypes in the two paths is known as either: a size that
        differs is `(a if test else b)`, a rank or dtype that differs is unknown."""
        cond = test.wrap(PREC["ifexp"] + 1)
        for name, a in taken.items():
            b = other.get(name)
            if not isinstance(a, TileV) or not isinstance(b, TileV) or a == b:
                continue
            shape = None
            if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
                shape = tuple(x if str(x) == str(y) else f"({x} if {cond} else {y})"
                              for x, y in zip(a.shape, b.shape))
            self.env[name] = TileV(shape=shape, dtype=a.dtype if a.dtype == b.dtype else None,
                                   tf32=a.tf32 and b.tf32, nonneg=a.nonneg and b.nonneg,
                                   positive=a.positive and b.positive,
                                   numeric=a.numeric and b.numeric,
                                   loaded_from=a.loaded_from if a.loaded_from == b.loaded_from
                                   else None)

    def constant_if(self, node: cst.If, keyword: str, taken: bool) -> None:
        """An `if` on a compile-time constant: only the branch taken is translated, as cuTile
        compiles only that one (the other may index an array with another rank, or reduce
        with other keepdims). After `if` it is inlined; after `elif` it is the `else:`."""
        orelse = node.orelse
        if taken:
            suite = node.body
        elif isinstance(orelse, cst.If):
            self.leading(orelse)
            return self.if_stmt(orelse, keyword)
        elif isinstance(orelse, cst.Else):
            self.leading(orelse)
            suite = orelse.body
        else:
            return None
        if keyword == "elif":
            self.line("else:", self.header_comment(node))
            return self.block(suite)
        self.depth -= 1                 # the branch's statements, at the `if`'s own depth
        try:
            self.block(suite)
        finally:
            self.depth += 1
        return None


def _string_literal(text: str) -> str:
    """`text` as a double-quoted Python string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _same_constant(a, b) -> bool:
    """Two compile-time numbers cuTile would merge into one constant (same type and value)."""
    return isinstance(a, ConstV) and isinstance(b, ConstV) and type(a.value) is type(
        b.value) and isinstance(a.value, (bool, int, float)) and a.value == b.value


def _bound(suite) -> set:
    """Names bound by the statements of a suite (assignments, loop targets), at any depth."""
    return reassigned_names(suite, times=1)


def _names_outside(body, node) -> set:
    """Every name read or bound in `body` outside the statement `node`."""
    out: set = set()

    class Scan(cst.CSTVisitor):
        def visit_If(self, n):
            return n is not node

        def visit_Name(self, n):
            out.add(n.value)

    body.visit(Scan())
    return out
