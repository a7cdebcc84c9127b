"""Row-resident loops: tiles that several loops over the same row load stay in registers.

    for j in range(n_tiles):                    # mean
        total += ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO)
    for j in range(n_tiles):                    # variance: the same tiles again
        x = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO)
    ...

Why: upstream's LayerNorm walks each row three times like this. Translated loop for loop, the
second and third walks read from L2, and no warp count or loop form brings the kernel past 48-84 %
of copy bandwidth on the H200 (GPU runs 24, 28). Keeping the row's tiles in registers between
the walks measured 92-97 % (run 31, benchmarks/row_resident.py).

How: when the launcher can compute the loops' trip count from the launch's arguments (an array's
extent, constexpr tile sizes), it passes it as a constexpr (`ROW_TILES`) where the cached tiles
fit in registers, else 0. Each loop is emitted twice under `if ROW_TILES:`: unrolled with
`tl.static_range(ROW_TILES)`, the first walk appending each tile it loads to a tuple that later
walks index instead of loading again; and as written, for long rows. The same operations run in
the same order either way.

When it is safe, checked here: the loops stand in the kernel's own body (not in a branch or
another loop), iterate `range(E)` over one and the same E without break, continue or return;
a cached load is the same call in each walk, reads an array the kernel only reads, and depends
on the loop variable and on names bound once before the loops. The launcher checks at each
launch that the cached array shares no memory with another array argument (a store through an
alias could change what a later walk reads).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

# The launcher keeps the row resident up to this many tiles and this many bytes of cached tiles
# per block (docs/performance.md); more goes through the loops as written.
MAX_TILES, MAX_BYTES = 16, 64 * 1024


@dataclass(slots=True)
class RowGroup:
    """Loops over the same trip count, and what they cache."""
    count: str                  # the trip count, as host code over the launcher's parameters
    loops: list                 # the For nodes, in order
    var: str                    # their loop variable
    constexpr: str = ""         # the kernel's constexpr, named when lowering starts
    loads: dict = field(default_factory=dict)   # call code -> RowLoad
    cached: list = field(default_factory=list)  # (array, tile elements) filled so far
    registered: bool = False    # the kernel takes the constexpr (a loop was rewritten)


@dataclass(slots=True)
class RowLoad:
    array: str                  # the array parameter read
    tile_elems: str             # elements of one tile, as host code
    filler: int                 # id of the loop that loads it (the first walk)
    cache: str = ""             # the tuple's name in the kernel
    filled: bool = False        # the first walk has appended to the tuple


class ResidentRows:
    """Mixin of `Lowerer`: finds row-resident loops and emits their two forms."""

    def find_row_groups(self, body) -> None:
        """Fills `self.row_groups` (id of a loop -> its RowGroup) and `self.row_loads` (id of
        a cached ct.load call -> (RowGroup, RowLoad))."""
        self.row_groups, self.row_loads = {}, {}
        if self.fn.role != "kernel" or any(p.kind == "array_list" for p in self.params):
            return
        leaves = {leaf for _, parts in self.fn.tuple_params for leaf, _ in parts}
        self._row_params = {p.name: p for p in self.params if p.name not in leaves}
        top = [s for s in body.body if isinstance(s, cst.For)]
        by_bound: dict = {}
        for loop in top:
            bound = _range_bound(loop)
            if bound is not None and isinstance(loop.target, cst.Name) and _straight(loop):
                by_bound.setdefault(_code(bound), []).append(loop)
        for loops in by_bound.values():
            if len(loops) < 2 or len({lp.target.value for lp in loops}) != 1:
                continue
            count = self._host_int(_range_bound(loops[0]), body)
            if count is None:
                continue
            group = RowGroup(count=count, loops=loops, var=loops[0].target.value)
            self._cached_loads(group, body)
            if group.loads:
                group.constexpr = self.fresh_name("ROW_TILES")
                for load in group.loads.values():
                    load.cache = self.fresh_name(f"{load.array}_row")
                for loop in loops:
                    self.row_groups[id(loop)] = group

    def _cached_loads(self, group: RowGroup, body) -> None:
        """The ct.load calls of `group` worth caching: one at the top of some walk's body,
        the same call again in a later walk."""
        arrays = {n for n, p in self._row_params.items() if p.kind == "array"}
        read_only = self.read_only_arrays() & arrays
        seen: dict = {}     # call code -> [(loop index, call node, at the body's top level)]
        for i, loop in enumerate(group.loops):
            for call, top in _calls(loop.body):
                if self.resolve(call.func) == "cuda.tile.load":
                    seen.setdefault(_code(call), []).append((i, call, top))
        for code, uses in seen.items():
            call = uses[0][1]
            array = call.args[0].value if call.args and call.args[0].keyword is None else None
            if not (isinstance(array, cst.Name) and array.value in read_only):
                continue
            info = self._row_params[array.value].array
            if info is None or info.flat or info.shape_codes is not None:
                continue
            if _keyword(call, "check_bounds", -1) is not None:
                continue    # unchecked loads stay where the kernel's own guards put them
            first = next((u for u in uses if u[2]), None)
            if first is None or not any(u[0] > first[0] for u in uses):
                continue
            if not self._loop_invariant(call, group, body):
                continue
            shape = _keyword(call, "shape", 2)
            elems = self._host_tile_elems(shape)
            if elems is None:
                continue
            load = RowLoad(array=array.value, tile_elems=elems, filler=id(group.loops[first[0]]))
            group.loads[code] = load
            for i, node, _ in uses:
                if i >= first[0]:
                    self.row_loads[id(node)] = (group, load)

    def _loop_invariant(self, call, group: RowGroup, body) -> bool:
        """Every name `call` reads, other than the loop variable, is bound once (or not in
        this kernel), and not inside the walks."""
        inside = set()
        for loop in group.loops:
            inside |= _bound_names(loop.body)
        for name in _read_names(call):
            if name == group.var:
                continue
            if name in self.mutable or name in inside:
                return False
        return True

    # ----------------------------------------------------------------- host code for the launcher
    def _host_int(self, node, body, depth: int = 0) -> Optional[str]:
        """`node` as an integer the launcher computes from its own parameters, or None."""
        if depth > 8:
            return None
        if isinstance(node, cst.Integer):
            return str(int(node.value, 0))
        if isinstance(node, cst.Name):
            p = self._row_params.get(node.value)
            if p is not None:
                return node.value if p.kind == "constexpr" and node.value not in self.mutable \
                    else None
            value = _single_binding(body, node.value)
            if value is None or node.value in self.mutable:
                return None
            return self._host_int(value, body, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            op = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*",
                  cst.FloorDivide: "//"}.get(type(node.operator))
            left = self._host_int(node.left, body, depth + 1)
            right = self._host_int(node.right, body, depth + 1)
            return None if None in (op, left, right) else f"({left} {op} {right})"
        if isinstance(node, cst.Subscript):       # A.shape[k]
            return self._host_extent(node)
        if isinstance(node, cst.Call):
            q = self.resolve(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) \
                else None
            if q == "cuda.tile.cdiv" and len(node.args) == 2 \
                    and all(a.keyword is None for a in node.args):
                a = self._host_int(node.args[0].value, body, depth + 1)
                b = self._host_int(node.args[1].value, body, depth + 1)
                return None if a is None or b is None else f"triton.cdiv({a}, {b})"
            if q == "cuda.tile.num_tiles":
                return self._host_num_tiles(node, body, depth)
        return None

    def _host_num_tiles(self, node: cst.Call, body, depth: int) -> Optional[str]:
        array, axis, shape = node.args[0].value if node.args else None, None, None
        if _keyword(node, "order", 3) is not None or not isinstance(array, cst.Name):
            return None
        axis = _keyword(node, "axis", 1)
        shape = _keyword(node, "shape", 2)
        p = self._row_params.get(array.value)
        if p is None or p.kind != "array" or p.array is None or p.array.flat \
                or not isinstance(axis, cst.Integer) or not isinstance(shape, cst.Tuple):
            return None
        k = int(axis.value, 0)
        rank = p.array.rank
        if not rank or not -rank <= k < rank or len(shape.elements) != rank:
            return None
        k %= rank
        tile = self._host_int(shape.elements[k].value, body, depth + 1)
        return None if tile is None else f"triton.cdiv({array.value}.shape[{k}], {tile})"

    def _host_extent(self, node: cst.Subscript) -> Optional[str]:
        base = node.value
        if not (isinstance(base, cst.Attribute) and base.attr.value == "shape"
                and isinstance(base.value, cst.Name) and len(node.slice) == 1):
            return None
        p = self._row_params.get(base.value.value)
        index = node.slice[0].slice
        if p is None or p.kind != "array" or p.array is None or p.array.flat \
                or not isinstance(index, cst.Index) or not isinstance(index.value, cst.Integer):
            return None
        k = int(index.value.value, 0)
        return f"{base.value.value}.shape[{k}]" if 0 <= k < (p.array.rank or 0) else None

    def _host_tile_elems(self, shape) -> Optional[str]:
        if isinstance(shape, cst.Tuple):
            dims = [self._host_int(e.value, self.body) for e in shape.elements]
            if dims and None not in dims:
                return " * ".join(d for d in dims if d != "1") or "1"
        return None

    # ------------------------------------------------------------------------------- lowering
    def row_load(self, node: cst.Call, low, start: int):
        """A cached load, lowered (its index computations from `self.out[start]` on): bound to
        a name of its own, a line the unrolled walks follow or replace."""
        entry = self.row_loads.get(id(node))
        if entry is None or not self.can_insert:
            return low
        _, load = entry
        name = self.fresh_name(f"{load.array}_tile")
        self.line(f"{name} = {low.code}")
        self._row_lines.append((start, len(self.out) - 1, load, name))
        return type(low)(name, low.val)

    def start_row_loop(self, node) -> Optional[RowGroup]:
        group = self.row_groups.get(id(node))
        if group is not None:
            self._row_lines = []
        return group

    def finish_row_loop(self, node, group: RowGroup, head: int, late: int) -> None:
        """Rewrites the loop lowered at `self.out[head:]` into its two forms (module docstring).
        Left as lowered when a barrier was placed in it after the fact (`late`: the number of
        such barriers before it), since those are placed by line position."""
        if len(self.order.late) != late:
            return
        lines = self.out[head:]
        pad = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
        resident, fills = [], []
        marks = {i - head: (load, name) for _, i, load, name in self._row_lines}
        # a load read from the tuple needs none of its index computations
        unused = {k - head for start, at, load, _ in self._row_lines
                  if load.filled for k in range(start, at)}
        for k, line in enumerate(lines[1:], start=1):
            mark = marks.get(k)
            if mark is None:
                if k not in unused:
                    resident.append(line)
                continue
            load, name = mark
            ind = line[:len(line) - len(line.lstrip())]
            if load.filler == id(node):
                resident += [line, f"{ind}{load.cache} = {load.cache} + ({name},)"]
                fills.append(load)
            elif load.filled:
                resident.append(f"{ind}{name} = {load.cache}[{group.var}]")
            else:
                resident.append(line)
        if not group.registered:
            self.result.row_tiles.append((group.constexpr, group.count, group.cached))
            group.registered = True
        for load in fills:
            load.filled = True
            group.cached.append((load.array, load.tile_elems))
        out = [f"{pad}if {group.constexpr}:  # the row's tiles stay in registers (launcher)"]
        out += [f"{pad}    {load.cache} = ()" for load in fills]
        out.append(f"{pad}    for {group.var} in tl.static_range({group.constexpr}):")
        out += ["    " + line for line in resident]
        out += [f"{pad}else:", "    " + lines[0]] + ["    " + line for line in lines[1:]]
        self.out[head:] = out


# ------------------------------------------------------------------------------ CST helpers
def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _range_bound(loop: cst.For):
    it = loop.iter
    if loop.orelse is None and isinstance(it, cst.Call) and isinstance(it.func, cst.Name) \
            and it.func.value == "range" and len(it.args) == 1 and it.args[0].keyword is None \
            and it.args[0].star == "":
        return it.args[0].value
    return None


def _straight(loop: cst.For) -> bool:
    """No break, continue or return in the body (an unrolled loop has nowhere to jump), no
    nested function."""
    class Scan(cst.CSTVisitor):
        found = False

        def visit_Break(self, n):
            self.found = True

        def visit_Continue(self, n):
            self.found = True

        def visit_Return(self, n):
            self.found = True

        def visit_FunctionDef(self, n):
            self.found = True
            return False

        def visit_Lambda(self, n):
            return False

    scan = Scan()
    loop.body.visit(scan)
    return not scan.found


def _calls(body):
    """(call, whether its statement stands at the top of `body`) for every call in `body`,
    lambdas and nested functions left out."""
    out = []

    class Scan(cst.CSTVisitor):
        top = False

        def visit_Call(self, n):
            out.append((n, self.top))

        def visit_Lambda(self, n):
            return False

        def visit_FunctionDef(self, n):
            return False

    scan = Scan()
    for stmt in body.body:
        scan.top = isinstance(stmt, cst.SimpleStatementLine)
        stmt.visit(scan)
    return out


def _keyword(call: cst.Call, name: str, position: int):
    for i, a in enumerate(call.args):
        if (a.keyword is not None and a.keyword.value == name) or (a.keyword is None
                                                                   and i == position):
            return a.value
    return None


def _read_names(node) -> set:
    names = set()

    class Scan(cst.CSTVisitor):
        def visit_Name(self, n):
            names.add(n.value)

        def visit_Attribute(self, n):
            n.value.visit(self)     # `X.shape`: X, not `shape`
            return False

        def visit_Arg(self, n):
            n.value.visit(self)     # `shape=(...)`: not the keyword
            return False

    node.visit(Scan())
    return names


def _bound_names(body) -> set:
    names = set()

    class Scan(cst.CSTVisitor):
        def visit_AssignTarget(self, n):
            names.update(_read_names(n.target))

        def visit_AugAssign(self, n):
            names.update(_read_names(n.target))

        def visit_AnnAssign(self, n):
            names.update(_read_names(n.target))

        def visit_For(self, n):
            names.update(_read_names(n.target))

    body.visit(Scan())
    return names


def _single_binding(body, name: str):
    """The value of `name = value` at the top of `body`, the name's one binding there."""
    found = None
    for stmt in body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) \
                    and small.targets[0].target.value == name:
                if found is not None:
                    return None
                found = small.value
    return found
