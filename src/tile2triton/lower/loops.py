"""`for` and `while` loops: ranges, loop-carried values and their types, loops over TMA
loads."""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..rewrite.exits import exit_constants
from ..model import DTYPES, ConstExprV, ConstV, Lowered, TileV


class Loops:
    """Mixin of `Lowerer`: loops."""

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
        self.forget_carried_signs(node.body, keep=var)
        self.env[var] = TileV(shape=(), dtype="int32", nonneg=self.range_var_nonneg(args))
        var = self.renames.get(var, var)    # an `else` branch's own loop variable (`i_2`)
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

    def forget_carried_signs(self, body, keep: str = "") -> None:
        """A value the loop body re-binds is, at the head of later iterations, what the body
        made of it (`x = x - 5`): what is known of its sign before the loop no longer holds
        there. (The loop variable is the range's again at each iteration.)"""
        for name in _bound_names(body) - {keep}:
            v = self.env.get(name)
            if isinstance(v, TileV) and (v.nonneg or v.positive):
                self.env[name] = dataclasses.replace(v, nonneg=False, positive=False)
            elif isinstance(v, ConstExprV) and v.positive:
                self.env[name] = dataclasses.replace(v, positive=False)

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

    def range_var_nonneg(self, args) -> bool:
        """Whether every value `range(*args)` yields is >= 0: range(n) counts from 0 whatever n;
        a step >= 0 never goes below the start (a step of 0 only repeats it); a negative step
        stays above the stop."""
        if len(args) == 1:
            return True
        if len(args) == 2 or self.is_nonneg(args[2]):
            return self.is_nonneg(args[0])
        step = args[2].val
        return isinstance(step, ConstV) and isinstance(step.value, int) and step.value < 0 \
            and self.is_nonneg(args[1])

    def while_stmt(self, node: cst.While) -> None:
        if node.orelse is not None:
            raise self.error(node.orelse, "T2T101", "`while ... else` is not supported",
                             help="move the `else` block after the loop, guarded by a flag set "
                                  "where the loop breaks")
        self.inner_comments(node.test)
        self.forget_carried_signs(node.body)
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


def _bound_names(node) -> set:
    """Every name a statement under `node` binds: assignment, loop and `with` targets, `:=`."""
    names: set = set()

    def bind(target):
        if isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                bind(el.value)
        elif isinstance(target, cst.StarredElement):
            bind(target.value)

    class Find(cst.CSTVisitor):
        def visit_AssignTarget(self, t):
            bind(t.target)

        def visit_AugAssign(self, a):
            bind(a.target)

        def visit_AnnAssign(self, a):
            bind(a.target)

        def visit_For(self, f):
            bind(f.target)

        def visit_NamedExpr(self, n):
            bind(n.target)

        def visit_AsName(self, n):
            bind(n.name)

    node.visit(Find())
    return names


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
