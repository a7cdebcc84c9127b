"""Atomics: ct.atomic_add / max / min / and / or / xor / xchg and ct.atomic_cas.

They address elements like ct.gather (one index tile or scalar per dimension, broadcast
together) and return the old values. Out-of-bounds elements are not touched (the Triton atomic
is masked). cuTile's default ordering is MemoryOrder.ACQ_REL at MemoryScope.DEVICE, which is
Triton's sem="acq_rel", scope="gpu" (Triton's own defaults: the helpers leave SEM/SCOPE None for
them), so only other orders and scopes are spelled out. The update is broadcast to the indices'
shape by the Triton atomic (tl.atomic_cas does not broadcast, so its helper does it with
tl.broadcast), and cast to the array's dtype. On a 0-d array (indices `()`) the one element is
always in bounds: the Triton atomic is called on the pointer itself, without a helper.
"""
from tile2triton.model import USE_INT64, ArrayV, EnumV, Lowered, NoneV, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._args import array_arg, check_bounds_kw, element_indices
from ._indexing import ELEM_INDEX, abi, in_bounds_expr, offsets_lines

SEM = {"RELAXED": "relaxed", "ACQUIRE": "acquire", "RELEASE": "release", "ACQ_REL": "acq_rel"}
SCOPE = {"BLOCK": "cta", "DEVICE": "gpu", "SYS": "sys"}
DEFAULT_SEM, DEFAULT_SCOPE = "acq_rel", "gpu"
RMW_OPS = ("add", "max", "min", "and", "or", "xor", "xchg")


def rmw_source(op: str, rank: int) -> str:
    name = f"_atomic_{op}_{rank}d"
    return f'''
@triton.jit
def {name}(ptr, shape, stride, index, update, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None):
    """ct.atomic_{op}: combine `update` into ptr[index] atomically, returning the old values;
    out-of-bounds elements (negative indices included) are untouched."""
{offsets_lines(rank)}
    ok = {in_bounds_expr(rank)} if CHECK_BOUNDS else True  # (True: Triton's mask when none)
    return tl.atomic_{op}(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)
'''


def cas_source(rank: int) -> str:
    # tl.atomic_cas takes no mask. Out-of-bounds lanes are sent to element 0 (always a valid
    # address of a non-empty array) with desired == expected: such a swap either writes back the
    # very bits it compared equal or writes nothing, so memory never changes, and concurrent
    # atomics on element 0 lose nothing. (No "impossible value" to compare against exists: every
    # bit pattern can be in memory.) An empty array has no element 0, so the CAS is skipped and
    # every lane returns `expected`.
    name = f"_atomic_cas_{rank}d"
    nonempty = " & ".join(f"(shape[{d}] > 0)" for d in range(rank))
    return f'''
@triton.jit
def {name}(ptr, shape, stride, index, expected, desired, USE_INT64, CHECK_BOUNDS=True, SEM=None,
{" " * len(f"def {name}(")}SCOPE=None):
    """ct.atomic_cas: where ptr[index] == expected, store desired; return the old values.
    Out-of-bounds elements (negative indices included) are untouched and return `expected`."""
{offsets_lines(rank)}
    # tl.atomic_cas neither broadcasts nor casts: the operands take offs's shape, ptr's dtype
    offs, cmp = tl.broadcast(offs, tl.cast(expected, ptr.dtype.element_ty))
    offs, val = tl.broadcast(offs, tl.cast(desired, ptr.dtype.element_ty))
    if CHECK_BOUNDS:
        # (no mask) out-of-bounds lanes swap element 0 for itself, which never changes memory;
        # an empty array has no element 0: no swap, every lane returns `expected`
        ok = {in_bounds_expr(rank)}
        if {nonempty}:
            old = tl.atomic_cas(ptr + tl.where(ok, offs, 0), cmp, tl.where(ok, val, cmp),
                                sem=SEM, scope=SCOPE)
        else:
            old = cmp
        return tl.where(ok, old, cmp)
    else:
        return tl.atomic_cas(ptr + offs, cmp, val, sem=SEM, scope=SCOPE)
'''


def order_kw(call, cx) -> list:
    kw = []
    for param, table, default, enum in (("memory_order", SEM, DEFAULT_SEM, "MemoryOrder"),
                                        ("memory_scope", SCOPE, DEFAULT_SCOPE, "MemoryScope")):
        v = call.val(param)
        if not isinstance(v, EnumV) or v.enum != enum:
            raise cx.error(call.node_of(param), "T2T103",
                           f"ct.{call.name}: `{param}` must be a ct.{enum} member known at "
                           "translation time",
                           help="pass a member of the enum itself (e.g. ct.MemoryOrder.RELAXED), "
                                "not a computed value")
        if v.member not in table:
            allowed = ", ".join(f"ct.{enum}.{m}" for m in table)
            raise cx.error(call.node_of(param), "T2T102",
                           f"ct.{call.name}: {param}=ct.{enum}.{v.member} is not valid for an "
                           f"atomic (cuTile rejects it too)", help=f"use one of {allowed}")
        if table[v.member] != default:
            kw.append(f'{param == "memory_order" and "SEM" or "SCOPE"}="{table[v.member]}"')
    return kw


def zero_d_kw(kw: list) -> str:
    """order_kw's helper arguments (SEM="acquire") as the Triton atomic's own keywords; a 0-d
    array has no bounds to check, so CHECK_BOUNDS is dropped."""
    out = [k.replace("SEM=", "sem=").replace("SCOPE=", "scope=") for k in kw
           if not k.startswith("CHECK_BOUNDS=")]
    return "".join(f", {k}" for k in out)


def operand(call, cx, param):
    low = call.arg(param)
    if isinstance(low.val, (ArrayV, NoneV)):
        raise cx.error(call.node_of(param), "T2T102",
                       f"ct.{call.name}: `{param}` must be a tile or a scalar",
                       help="load a tile from an array first")
    return low.code


# read-modify-write helpers, one per operation and rank; compare-and-swap, one per rank
ATOMIC_RMW = DeviceHelper("_atomic_{op}_{rank}d", rmw_source, requires=(ELEM_INDEX,))
ATOMIC_CAS = DeviceHelper("_atomic_cas_{rank}d", cas_source, requires=(ELEM_INDEX,))


class AtomicRMW(Pattern):
    constructs = tuple(f"atomic_{op}" for op in RMW_OPS)
    array_param, index_param = "array", "indices"
    summary = ("atomic read-modify-write at per-element indices, returning the old values "
               "(memory_order, memory_scope, check_bounds)")
    triton = ('masked tl.atomic_<op>(ptrs, update, mask, sem, scope) through '
              '`_atomic_<op>_{rank}d`; `tl.atomic_<op>(ptr, update)` on a 0-d array')

    def signature(array, indices, update, /, *, check_bounds=True,
                  memory_order=EnumV("MemoryOrder", "ACQ_REL"),
                  memory_scope=EnumV("MemoryScope", "DEVICE")):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, hist, TILE: ct.Constant[int]):
    nbins = hist.shape[0]
    v = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.NEG_ZERO)
    bins = ct.floor(v * nbins).astype(ct.int32)
    ct.atomic_add(hist, bins, 1)
""", expect=["ptr, shape, stride, index, update, USE_INT64, CHECK_BOUNDS=True, SEM=None, SCOPE=None",
             "return tl.atomic_add(ptr + offs, update, mask=ok, sem=SEM, scope=SCOPE)",
             "_atomic_add_1d(hist_ptr, (hist_shape0,), (hist_stride0,), (bins,), 1, USE_INT64)"]),
        Example("""
@ct.kernel
def k(x, m, TM: ct.Constant[int]):
    M, N = m.shape
    r = ct.arange(TM, dtype=ct.int32)
    v = ct.load(x, (0,), (TM,))
    old = ct.atomic_max(m, (r[:, None], r[None, :]), v[:, None],
                        memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)
    ct.atomic_xchg(m, (0, 0), 7, check_bounds=False)
    ct.store(x, (0,), ct.sum(old, axis=1))
""", expect=["_atomic_max_2d(m_ptr, (m_shape0, m_shape1), (m_stride0, m_stride1), "
             '(r[:, None], r[None, :]), v[:, None], USE_INT64, SEM="relaxed", SCOPE="cta")',
             "_atomic_xchg_2d(m_ptr, (m_shape0, m_shape1), (m_stride0, m_stride1), (0, 0), 7, "
             "USE_INT64, CHECK_BOUNDS=False)"]),
        Example("""
@ct.kernel
def k(x):
    n = x.shape[0]
    ct.atomic_add(x, 0, 1, memory_order=ct.MemoryOrder.WEAK)
""", error="T2T102", message="memory_order=ct.MemoryOrder.WEAK is not valid for an atomic"),
        Example("""
@ct.kernel
def k(x):
    n = x.shape[0]
    ct.atomic_or(x, 0, 1, memory_scope=ct.MemoryScope.CLUSTER)
""", error="T2T102", message="memory_scope=ct.MemoryScope.CLUSTER is not valid"),
    ]

    def lower(self, call, cx):
        op = call.name[len("atomic_"):]
        info = array_arg(call, cx, zero_d=True)
        idx, shape = element_indices(call, cx, info.rank)
        update = operand(call, cx, "update")
        kw = check_bounds_kw(call, cx) + order_kw(call, cx)
        if info.rank == 0:       # the one element; the Triton atomic casts the update
            return Lowered(f"tl.atomic_{op}({info.pointer}, {update}{zero_d_kw(kw)})",
                           TileV(shape=()))
        name = cx.need(ATOMIC_RMW, op=op, rank=info.rank)
        cx.note_tile(shape)
        args = abi(info, idx) + [update, USE_INT64] + kw
        return Lowered(f"{name}({', '.join(args)})", TileV(shape=shape))


class AtomicCAS(Pattern):
    constructs = ("atomic_cas",)
    array_param, index_param = "array", "indices"
    summary = ("atomic compare-and-swap at per-element indices, returning the old values "
               "(out-of-bounds lanes return `expected`)")
    triton = ("tl.atomic_cas through `_atomic_cas_{rank}d` (out-of-bounds lanes made harmless); "
              "`tl.atomic_cas(ptr, cmp, val)` on a 0-d array")

    def signature(array, indices, expected, desired, /, *, check_bounds=True,
                  memory_order=EnumV("MemoryOrder", "ACQ_REL"),
                  memory_scope=EnumV("MemoryScope", "DEVICE")):
        pass

    examples = [
        Example("""
@ct.kernel
def k(lock, x, TILE: ct.Constant[int]):
    n = lock.shape[0]
    i = ct.arange(TILE, dtype=ct.int32)
    old = ct.atomic_cas(lock, i, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE)
    ct.store(x, (0,), old)
""", expect=["def _atomic_cas_1d(","ptr, shape, stride, index, expected, desired,",
             "offs, cmp = tl.broadcast(offs, tl.cast(expected, ptr.dtype.element_ty))",
             "old = tl.atomic_cas(ptr + tl.where(ok, offs, 0), cmp, tl.where(ok, val, cmp),",
             "return tl.where(ok, old, cmp)",
             '_atomic_cas_1d(lock_ptr, (lock_shape0,), (lock_stride0,), (i,), 0, 1, USE_INT64, '
             'SEM="acquire")']),
        Example("""
@ct.kernel
def k(lock):
    n = lock.shape[0]
    ct.atomic_cas(lock, 0, 1)
""", error="T2T102", message="missing a required argument: 'desired'"),
        Example("""
@ct.kernel
def k(x, lock, count):
    while ct.atomic_cas(lock, (), 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    ct.atomic_add(count, (), 1)
    ct.atomic_xchg(lock, (), 0, memory_order=ct.MemoryOrder.RELEASE)
""", expect=["tl.atomic_cas(lock_ptr, tl.cast(0, lock_ptr.dtype.element_ty), "
             'tl.cast(1, lock_ptr.dtype.element_ty), sem="acquire")',
             "tl.atomic_add(count_ptr, 1)",
             'tl.atomic_xchg(lock_ptr, 0, sem="release")']),
    ]

    def lower(self, call, cx):
        info = array_arg(call, cx, zero_d=True)
        idx, shape = element_indices(call, cx, info.rank)
        expected = operand(call, cx, "expected")
        desired = operand(call, cx, "desired")
        kw = check_bounds_kw(call, cx) + order_kw(call, cx)
        if info.rank == 0:       # the one element; tl.atomic_cas does not cast its operands
            ty = f"{info.pointer}.dtype.element_ty"
            return Lowered(f"tl.atomic_cas({info.pointer}, tl.cast({expected}, {ty}), "
                           f"tl.cast({desired}, {ty}){zero_d_kw(kw)})", TileV(shape=()))
        name = cx.need(ATOMIC_CAS, rank=info.rank)
        cx.note_tile(shape)
        args = abi(info, idx) + [expected, desired, USE_INT64] + kw
        return Lowered(f"{name}({', '.join(args)})", TileV(shape=shape))
