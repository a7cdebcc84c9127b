"""Order of memory accesses to one array inside a block (a Triton program).

cuTile orders the loads and stores of a block that touch the same array (its memory tokens): a
load after a store sees the stored values, a store after a load does not change what the load
read. In Triton each element of a tile belongs to one thread, and threads run apart, so the
order holds only when the same thread owns an element in both accesses. It does for tile
accesses of an array (`ct.load` / `ct.store`, a tiled view's `load` / `store`): two tiles of
the same shape are the same elements owned by the same threads, or disjoint. It does not when
one of the accesses addresses elements one by one (`ct.gather`, `ct.scatter`, raw memory,
advanced indexing, an `order=` load or store): then another thread may own the element. Between
such a pair, one of them a write, the translation puts `tl.debug_barrier()` (a `bar.sync`,
which also makes the block's global writes visible to the block); kernels without such a pair
get none.

Accesses are noted while the function is lowered, in program order. A loop is followed a
second time from the state at the end of its body, which finds the pairs carried from one
iteration to the next; their barriers go in where the later access was lowered.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..model import ArrayV, ConstV, RawMemoryV, TiledViewV, TileV, TupleV


def barrier(array: str) -> str:
    return f"tl.debug_barrier()  # other threads touch `{array}` too: keep cuTile's order"


# construct -> (element-wise addressing, writes)
ACCESSES = {
    "load": (False, False),
    "store": (False, True),
    "TiledView.load": (False, False),
    "TiledView.store": (False, True),
    "gather": (True, False),
    "scatter": (True, True),
    "load_advanced_indexing": (True, False),
    "store_advanced_indexing": (True, True),
    "RawArrayMemory.load_offset": (True, False),
    "RawArrayMemory.store_offset": (True, True),
}


@dataclass(eq=False)
class Access:
    array: str
    elementwise: bool
    write: bool
    pos: Optional[int]   # where in the function's lines a barrier before it goes (None: nowhere)
    depth: int
    scalar: bool = False     # one element, every index a scalar
    barrier: bool = False


def conflict(a: Access, b: Access) -> bool:
    if a.array != b.array or not (a.write or b.write) or not (a.elementwise or b.elementwise):
        return False
    # Triton makes a scalar store from one thread, so two of them keep their order
    return not (a.write and b.write and a.scalar and b.scalar)


@dataclass
class AccessOrder:
    accesses: list = field(default_factory=list)
    pending: list = field(default_factory=list)     # accesses since the last barrier
    late: list = field(default_factory=list)        # (pos, depth, array): found by loops

    def note(self, acc: Access) -> bool:
        """Record an access; True when a barrier goes just before it."""
        self.accesses.append(acc)
        if acc.pos is not None and any(conflict(a, acc) for a in self.pending):
            acc.barrier = True
            self.pending = [acc]
            return True
        self.pending.append(acc)
        return False

    def branch_start(self) -> list:
        return list(self.pending)

    def branch_other(self, before: list) -> list:
        """After the `if` branch: the other branch starts from what preceded the `if`."""
        taken, self.pending = self.pending, list(before)
        return taken

    def branch_end(self, taken: list) -> None:
        """After both branches: either may have run."""
        self.pending = taken + [a for a in self.pending if a not in taken]

    def loop_start(self):
        return len(self.accesses), list(self.pending)

    def loop_end(self, mark) -> None:
        """After a loop body: the accesses of its next iteration follow those of this one."""
        start, before = mark
        pending = list(self.pending)
        for acc in self.accesses[start:]:
            if acc.barrier:
                pending = [acc]
            elif acc.pos is not None and any(conflict(a, acc) for a in pending):
                acc.barrier = True
                self.late.append((acc.pos, acc.depth, acc.array))
                pending = [acc]
            else:
                pending.append(acc)
        # the loop may run zero times: what came before it stays pending
        self.pending = before + [a for a in self.pending if a not in before]

    def insert_late(self, lines: list, indent: str) -> list:
        for pos, depth, array in sorted(self.late, key=lambda p: -p[0]):
            lines.insert(pos, indent * depth + barrier(array))
        return lines


def _is_scalar(v) -> bool:
    if isinstance(v, TupleV):
        return all(_is_scalar(i) for i in v.items)
    return isinstance(v, ConstV) and not isinstance(v.value, tuple) or (
        isinstance(v, TileV) and v.shape == ())


def _scalar_write(name: str, call) -> bool:
    """A scatter or raw store of one element (scalar indices and value)."""
    where = {"scatter": "indices", "RawArrayMemory.store_offset": "offset"}.get(name)
    return where is not None and _is_scalar(call.val(where)) and _is_scalar(call.val("value"))


def access_of(name: str, call, receiver) -> Optional[tuple]:
    """(array name, element-wise, writes, one element written) of a construct call that reads
    or writes memory."""
    kind = ACCESSES.get(name)
    if kind is None:
        return None
    elementwise, write = kind
    if receiver is not None:
        v = receiver.val
        if not isinstance(v, (TiledViewV, RawMemoryV)):
            return None
        if isinstance(v, TiledViewV) and v.steps is not None:
            elementwise = True      # overlapping windows: not the same tiles
        return v.array.name, elementwise, write, _scalar_write(name, call)
    if not call.has("array"):
        return None
    v = call.val("array")
    if not isinstance(v, ArrayV):
        return None
    if name in ("load", "store") and call.has("order"):
        elementwise = True          # a permuted tile: other threads own its elements
    return v.info.name, elementwise, write, _scalar_write(name, call)
