"""Statements: one method per supported statement node, emitting Triton lines.

Comments and docstrings of the user's code are carried over statement by statement. Statement
forms no method handles raise a located T2T101.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..rewrite.closure_factories import ClosureInliner
from ..rewrite.context_managers import ContextInliner
from ..rewrite.exits import ExitRewriter, exit_constants, indent_suites
from ..diagnostics import LocatedFailure, TranslationError
from .installed import lacks
from ..model import (DTYPES, ArrayInfo, ArrayV, ChoiceV, ConstExprEnumV, ConstExprV, ConstV, CtRefV,
                     DTypeV, EnumClassV, EnumV, FuncV, Lowered, PREC, PyRefV, RawMemoryV, TableV, TiledViewV,
                     TileV, TupleV)
from ..parse.names import source_identifiers
from .expressions import AUGOP_SYMBOL
from .values import nested_bound_names, reassigned_names

INDENT = "    "


class Statements:
    """Mixin of `Lowerer`: statements and the lines they emit."""

    # ----------------------------------------------------------------------------- emission
    def line(self, text: str, comment: Optional[str] = None) -> None:
        pad = INDENT * self.depth
        self.out.append(pad + text + (f"  {comment}" if comment else ""))

    def leading(self, node) -> None:
        for el in getattr(node, "leading_lines", ()):
            if el.comment is not None:
                self.out.append(INDENT * self.depth + el.comment.value)
            else:
                self.out.append("")

    @staticmethod
    def trailing_comment(tw) -> Optional[str]:
        c = getattr(tw, "comment", None)
        return c.value if c is not None else None

    # ---------------------------------------------------------------------------- function
    def lower_body(self) -> list[str]:
        # one-line suites (`def f(x): return x`, `if c: a = 1`) are the blocks they stand for
        body = indent_suites(self.fn.node.body, self.pm.origins)
        body = ClosureInliner(self.pm, self.pm.names).function_body(body)
        body = ContextInliner(self.pm, self.error, self.pm.names).function_body(body)
        body = ExitRewriter(self.error, self.pm.origins, self.pm.names).function_body(body)
        self.mutable = reassigned_names(body)
        self.loop_bound = reassigned_names(body, times=1 << 30)     # only those bound in loops
        self.straight = self.mutable - self.loop_bound - nested_bound_names(body)
        self.body = body  # what is lowered (lower/tma.py scans it for the operands of dots)
        self.find_row_groups(body)      # resident_rows.py
        self.block(body)
        return self.order.insert_late(self.out, INDENT)   # barriers found by loops

    def block(self, block: cst.BaseSuite) -> None:
        if not isinstance(block, cst.IndentedBlock):
            raise self.error(block, "T2T101", "one-line blocks are not supported in kernels",
                             help="put the block body on its own indented line")
        self.depth += 1
        start = len(self.out)
        for stmt in block.body:
            self.stmt(stmt)
        for el in block.footer:
            if el.comment is not None:
                self.out.append(INDENT * self.depth + el.comment.value)
        if len(self.out) == start:
            self.line("pass")
        self.depth -= 1

    def inner_comments(self, *nodes) -> None:
        """Comments written inside a multi-line expression: the expression becomes one line,
        so they go on their own lines just before it."""
        for node in nodes:
            if node is None:
                continue
            for sub in _walk(node):
                if isinstance(sub, cst.Comment):
                    self.line(sub.value)

    def stmt(self, node) -> None:
        try:
            self._stmt(node)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this statement
            raise LocatedFailure(node, e) from e

    def _stmt(self, node) -> None:
        self.leading(node)
        if isinstance(node, cst.SimpleStatementLine):
            comment = self.trailing_comment(node.trailing_whitespace)
            self.inner_comments(*node.body)
            texts = []
            for s in node.body:
                t = self.small(s)
                texts.extend(t if isinstance(t, list) else [t] if t is not None else [])
            if not texts:
                if comment:
                    self.line(comment.lstrip())
                return
            for t in texts[:-1]:
                self.line(t)
            self.line(texts[-1], comment)
        elif isinstance(node, cst.If):
            self.if_stmt(node, "if")
        elif isinstance(node, cst.For):
            self.for_stmt(node)
        elif isinstance(node, cst.While):
            self.while_stmt(node)
        elif isinstance(node, cst.FunctionDef):
            self.nested_def(node)          # nested_defs.py: hoisted to a module-level helper
        else:
            kind = type(node).__name__
            raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels",
                             help="kernels may use assignments, if/for/while, return and calls")

    def no_statements_before(self, node) -> Lowered:
        """Lower an expression that no statement can precede (a `while` or `elif` test)."""
        saved, self.can_insert = self.can_insert, False
        try:
            return self.expr(node)
        finally:
            self.can_insert = saved

    def header_comment(self, node) -> Optional[str]:
        body = node.body
        tw = getattr(body, "header", None)
        return self.trailing_comment(tw)

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

    def for_stmt(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`for ... else` is not supported in kernels",
                             help="move the `else` block after the loop, guarded by a flag set "
                                  "where the loop breaks")
        if node.asynchronous is not None:
            raise self.error(node, "T2T101", "`async for` is not supported in kernels",
                             help="use a plain `for`: kernels have no event loop to await in")
        it = node.iter
        self.inner_comments(it)
        if self.is_static_iter(it):
            return self.static_for(node)
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value in ("range",) and "range" not in self.env):
            raise self.error(it, "T2T101", "kernel loops must iterate over `range(...)`",
                             help="write `for i in range(start, stop, step):`")
        args = [self.expr(a.value) for a in it.args]
        if any(a.keyword is not None for a in it.args):
            raise self.error(it, "T2T102", "range() takes positional arguments only",
                             help="write range(start, stop, step) with positional arguments")
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "T2T101", "the loop variable must be a single name",
                             help="loop over one name and unpack inside the body, or use "
                                  "ct.static_iter to loop over a tuple")
        var = node.target.value
        nonneg = all(self.is_nonneg(a) for a in args[:2]) and (
            len(args) < 3 or (isinstance(args[2].val, ConstV) and args[2].val.value > 0))
        self.env[var] = TileV(shape=(), dtype="int32", nonneg=nonneg)
        head, late = len(self.out), len(self.order.late)
        group = self.start_row_loop(node)
        self.line(f"for {var} in range({', '.join(a.code for a in args)}):",
                  self.header_comment(node))
        mark = self.order.loop_start()
        entry = dict(self.env)
        self.block(node.body)
        self.order.loop_end(mark)
        self.check_carried_types(node, entry)
        if self.persistent_dot_loop(args, self.out[head + 1:]):
            self.result.persistent_dots = True
            self.flatten_over_tma(head, var, args)
        if group is not None:   # one walk of a row several loops walk (resident_rows.py)
            self.finish_row_loop(node, group, head, late)

    def check_carried_types(self, loop, entry: dict) -> None:
        """A tile the loop reads and re-binds with another dtype (a bf16 accumulator widened
        to fp32 in the body): its type at the loop's head depends on the path taken, which
        cuTile rejects ("Type of `acc` depends on path taken") and Triton too (a loop-carried
        value keeps its type). Only tiles of known dtypes are compared: a Python number's
        type is weak in cuTile and takes the tile's."""
        for name, was in entry.items():
            now = self.env.get(name)
            if not (isinstance(was, TileV) and isinstance(now, TileV) and was.shape
                    and was.dtype in DTYPES and now.dtype in DTYPES and was.dtype != now.dtype):
                continue
            if not _reads(loop.body, name):
                continue
            binding = _last_binding(loop.body, name) or loop
            raise self.error(binding, "T2T113", f"Type of `{name}` depends on path taken: "
                             f"{now.dtype} here vs. {was.dtype} when the loop starts; cuTile "
                             "rejects this too",
                             help=f"give `{name}` its final dtype before the loop, or convert "
                                  "it back where the loop re-binds it")

    def flatten_over_tma(self, head: int, var: str, args: list) -> None:
        """A persistent loop whose products read operands through TMA descriptors (the loop at
        `head`) becomes `tl.range(..., flatten=FLATTEN)`, FLATTEN set by the launcher when it
        built a descriptor: Triton then pipelines across output tiles instead of draining its
        pipeline at each one (the fastest hand-written persistent form on the H200, run 20).
        The pointer form keeps its nested loops (flattened, it measured slower: run 17)."""
        body = self.out[head + 1:]
        if not any(f"{desc}.load(" in line for _, _, desc in self.result.tma for line in body):
            return
        if self.result.flatten is None:
            self.result.flatten = self.fresh_name("FLATTEN")
        bounds = ", ".join(a.code for a in args)
        self.out[head] = self.out[head].replace(
            f"for {var} in range({bounds}):",
            f"for {var} in tl.range({bounds}, flatten={self.result.flatten}):", 1)

    @staticmethod
    def persistent_dot_loop(args, body: list) -> bool:
        """A grid-stride loop (start from the block id, step by the grid size) whose body
        holds a loop of dots: the launcher gives such kernels a deeper pipeline."""
        if len(args) != 3 or "tl.program_id(" not in args[0].code \
                or "tl.num_programs(" not in args[2].code:
            return False
        text = "\n".join(body)
        return any(line.lstrip().startswith(("for ", "while ")) for line in body) and (
            "tl.dot(" in text or "_dot_any_size(" in text)

    def while_stmt(self, node: cst.While) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`while ... else` is not supported",
                             help="move the `else` block after the loop, guarded by a flag set "
                                  "where the loop breaks")
        self.inner_comments(node.test)
        mark = self.order.loop_start()
        test = self.no_statements_before(node.test)  # it is evaluated every iteration
        self.line(f"while {test.code}:", self.header_comment(node))
        entry = dict(self.env)
        self.block(node.body)
        self.order.loop_end(mark)
        self.check_carried_types(node, entry)
        original = self.pm.origins.get(node, node)
        if isinstance(original, cst.While):
            for name, value in exit_constants(original).items():
                # every `break` leaves `name` bound to this literal: a constant after the loop
                self.env[name] = ConstV(value)
                self.static_names[name] = Lowered(repr(value), ConstV(value))

    # --------------------------------------------------------------------- small statements
    def small(self, node) -> Optional[str]:
        if isinstance(node, cst.Expr):
            v = node.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
                return self.pm.module.code_for_node(v)  # docstring / string statement
            low = self.expr(v)
            if isinstance(low.val, (TiledViewV, RawMemoryV, ArrayV, EnumV, CtRefV, PyRefV,
                                    ChoiceV, TableV, EnumClassV, ConstExprEnumV, FuncV)):
                return None  # `lambda: 0`, `ct.bid`, a view: a value of translation time
            return low.code
        if isinstance(node, cst.Assign):
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
            if isinstance(low.val, ArrayV) and single:
                if node.targets[0].target.value in self.mutable:
                    return self.bind_mutable_array(node.targets[0].target, low.val.info)
                if low.val.info.shape_codes is None:
                    # `alias = x` bound once: the name reads as the array itself, no line
                    self.static_names.pop(node.targets[0].target.value, None)
                    self.env[node.targets[0].target.value] = low.val
                    return None
            if single and node.targets[0].target.value in self.mutable and isinstance(
                    low.val, TupleV) and low.items and all(
                    isinstance(i.val, ArrayV) for i in low.items):
                return self.bind_mutable_tuple(node.targets[0].target, low)
            if isinstance(low.val, ArrayV) and low.val.info.shape_codes is not None and single:
                return self.bind_array_view(node.targets[0].target.value, low.val.info)
            if isinstance(low.val, TiledViewV) and single \
                    and node.targets[0].target.value in self.mutable:
                return self.bind_mutable_view(node.targets[0].target, low.val)
            if isinstance(low.val, (TiledViewV, RawMemoryV, EnumV, CtRefV, PyRefV, ChoiceV,
                                    TableV, EnumClassV, ConstExprEnumV, FuncV)) and single:
                # tiled views, enum members (`zero_pad = ct.PaddingMode.ZERO`) and references
                # to modules exist only at translation time: the name is an alias, no line
                self.env[node.targets[0].target.value] = low.val
                return None
            if single and isinstance(low.val, TupleV) and low.items is not None and (
                    low.items == [] or _holds_arrays(low)) \
                    and node.targets[0].target.value not in self.mutable:
                # `b = ()`, `args = (x, (i,), 7)`: an alias of the tuple (Triton has no tuple
                # of an array; an empty one is read as itself); runtime items get names
                name = node.targets[0].target.value
                lines = []
                low = self.name_items(name, low, lines)
                self.static_names[name] = low
                self.env[name] = low.val
                return lines or None
            if isinstance(low.val, DTypeV) and low.val.code is not None and single:
                # a dtype chosen per specialization: later uses read the local name
                name = node.targets[0].target.value
                self.env[name] = DTypeV(code=name, tf32_when=low.val.tf32_when)
                return f"{name} = {low.code}"
            if single and node.targets[0].target.value in self.straight:
                line = self.straight_binding(node.targets[0].target.value, low)
                if line is not None:
                    return line
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
        if isinstance(node, cst.AnnAssign):
            if node.value is None:
                return None
            low = self.expr(node.value)
            return self.target(node.target, low) + " = " + low.code
        if isinstance(node, cst.AugAssign):
            return self.aug_assign(node)
        if isinstance(node, cst.Return):
            if node.value is None:
                return "return"
            low = self.expr(node.value)
            return "return " + returned_code(low)
        if isinstance(node, cst.Pass):
            return "pass"
        if isinstance(node, cst.Assert):  # cuTile treats `assert` as ct.assert_
            args = [cst.Arg(node.test)] + ([cst.Arg(node.msg)] if node.msg is not None else [])
            return self.construct("assert_", cst.Call(func=cst.Name("assert_"), args=args)).code
        kind = type(node).__name__
        raise self.error(node, "T2T101", f"`{kind}` statements are not supported in kernels",
                         help="rewrite it with supported statements: assignments, if, for over "
                              "range, while, with, helpers")

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
        if names & {n.value for n in _walk(node.value) if isinstance(n, cst.Name)}:
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
        reads = {n.value for n in _walk(value) if isinstance(n, cst.Name)}
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


def _reads(node, name: str) -> bool:
    """Whether the statements under `node` read `name` (not only assign it)."""
    reads = [0]

    class Find(cst.CSTVisitor):
        def visit_AssignTarget(self, t):
            if not isinstance(t.target, cst.Name):
                t.target.visit(self)    # `a[i] = ...` reads `a`
            return False

        def visit_Name(self, n):
            if n.value == name:
                reads[0] += 1

    node.visit(Find())
    return reads[0] > 0


def _last_binding(node, name: str):
    """The last assignment to `name` under `node`, in source order."""
    found = []

    class Find(cst.CSTVisitor):
        def visit_Assign(self, a):
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets):
                found.append(a)

        def visit_AugAssign(self, a):
            if isinstance(a.target, cst.Name) and a.target.value == name:
                found.append(a)

    node.visit(Find())
    return found[-1] if found else None


def _string_literal(text: str) -> str:
    """`text` as a double-quoted Python string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def returned_code(low: Lowered) -> str:
    """A return value as Triton code: an array returned (alone or in a tuple) is its pointer.
    Its caller reads the array it stands for from the call's value (`caller_view`), so the
    pointer only keeps the returned tuple's shape."""
    if isinstance(low.val, ArrayV):
        return low.val.info.pointer
    if isinstance(low.val, TupleV) and low.items is not None \
            and any(isinstance(i.val, (ArrayV, TupleV)) for i in low.items):
        codes = [returned_code(i) for i in low.items]
        return "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")"
    return low.code


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
