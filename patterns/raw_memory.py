"""Raw array memory: `x.get_raw_memory()` and its `load_offset`, `store_offset`,
`atomic_<op>_offset` and `atomic_cas_offset`.

Raw memory addresses elements by their offset from the array's base pointer, whatever the
array's shape and strides, which is exactly a Triton pointer plus an offset tile. Masks and
padding values are `mask=` / `other=`; the value and update operands are broadcast to the
offsets' shape and cast to the array's dtype by tl.store and the Triton atomics themselves
(tl.atomic_cas does neither, so its helper does both). The latency hint has no Triton
counterpart and is dropped: it changes scheduling only. Memory order and scope map as for
ct.atomic_* (patterns/atomics.py).
"""
from tile2triton.model import ArrayV, ConstV, EnumV, Lowered, NoneV, RawMemoryV, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

from ._common import broadcast_shapes, tile_shape
from .atomics import RMW_OPS, order_kw

RAW_CAS = DeviceHelper("_raw_atomic_cas", """
@triton.jit
def _raw_atomic_cas(ptrs, expected, desired, base, mask, MASKED: tl.constexpr,
                    SEM: tl.constexpr = None, SCOPE: tl.constexpr = None):
    # tl.atomic_cas neither broadcasts nor casts its operands, and takes no mask: masked-off
    # lanes swap at the base pointer with desired == expected, which never changes memory,
    # and return `expected`.
    ptrs, cmp = tl.broadcast(ptrs, tl.cast(expected, base.dtype.element_ty))
    ptrs, val = tl.broadcast(ptrs, tl.cast(desired, base.dtype.element_ty))
    if MASKED:
        ptrs, ok = tl.broadcast(ptrs, mask)
        old = tl.atomic_cas(tl.where(ok, ptrs, base), cmp, tl.where(ok, val, cmp),
                            sem=SEM, scope=SCOPE)
        return tl.where(ok, old, cmp)
    else:
        return tl.atomic_cas(ptrs, cmp, val, sem=SEM, scope=SCOPE)
""")


def _memory(call, cx):
    v = call.val("memory")
    if not isinstance(v, RawMemoryV):
        raise cx.error(call.node, "T2T102", f"{call.name}: not the raw memory of an array",
                       help="call it on `x.get_raw_memory()` of an array parameter")
    return v.array


def _operand(call, cx, param):
    low = call.arg(param)
    if isinstance(low.val, (ArrayV, NoneV, RawMemoryV)):
        raise cx.error(call.node_of(param), "T2T102",
                       f"{call.name}: `{param}` must be a tile or a scalar",
                       help="load a tile from an array first")
    return low


def _mask(call, cx):
    if isinstance(call.val("mask"), NoneV) or not call.has("mask"):
        return None
    return _operand(call, cx, "mask")


def _order(call, cx) -> dict:
    """sem= / scope= keywords for orders other than Triton's defaults (cuTile's defaults)."""
    out = {}
    for kw in order_kw(call, cx):
        key, value = kw.split("=", 1)
        out[key.lower()] = value
    return out


def _pointers(info, offset: Lowered) -> str:
    if isinstance(offset.val, ConstV) and offset.val.value == 0:
        return info.pointer
    return f"{info.pointer} + {offset.wrap(12)}"


def _shape(*lows):
    shape = ()
    for low in lows:
        if low is None:
            continue
        shape = broadcast_shapes(shape, tile_shape(low))
    return shape


class GetRawMemory(Pattern):
    constructs = ("Array.get_raw_memory",)
    array_param = "array"
    summary = "an array's memory addressed by element offsets from its base pointer"
    triton = "nothing at run time; its methods are Triton loads, stores and atomics on " \
             "`x_ptr + offset`"

    def signature(array, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    n = x.shape[0]
    mem = x.get_raw_memory()
    offs = ct.arange(TILE, dtype=ct.int64) + ct.bid(0) * TILE
    t = mem.load_offset(offs, mask=offs < n, padding_value=-1.0)
    y.get_raw_memory().store_offset(offs, t * 2, mask=offs < n)
""", expect=["t = tl.load(x_ptr + offs, mask=offs < n, other=-1.0)",
             "tl.store(y_ptr + offs, t * 2, mask=offs < n)"])]

    def lower(self, call, cx):
        low = call.arg("array")
        if not isinstance(low.val, ArrayV):
            raise cx.error(call.node_of("array"), "T2T102",
                           "get_raw_memory() needs an array parameter",
                           help="pass an array parameter of the kernel")
        return Lowered(f"{low.code}.get_raw_memory()", RawMemoryV(low.val.info))


class LoadOffset(Pattern):
    constructs = ("RawArrayMemory.load_offset",)
    summary = "load elements at offsets from the base pointer (masked lanes get padding_value)"
    triton = "tl.load(x_ptr + offset, mask=mask, other=padding_value)"

    def signature(memory, offset, /, *, mask=None, padding_value=0, latency=None):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y):
    v = x.get_raw_memory().load_offset(0)
    y.get_raw_memory().store_offset(0, v + 1)
""", expect=["v = tl.load(x_ptr)", "tl.store(y_ptr, v + 1)"])]

    def lower(self, call, cx):
        info = _memory(call, cx)
        offset = _operand(call, cx, "offset")
        mask = _mask(call, cx)
        args = [_pointers(info, offset)]
        if mask is not None:
            args.append(f"mask={mask.code}")
            pad = _operand(call, cx, "padding_value")
            args.append(f"other={pad.code}")
        shape = _shape(offset, mask)
        cx.note_tile(shape)
        if shape and tile_shape(offset) != shape:   # a mask wider than the offsets
            args[0] = f"tl.broadcast_to({args[0]}, {_tuple(shape)})"
        code = f"tl.load({', '.join(args)})"
        return Lowered(code, TileV(shape=shape, dtype=None))


def _tuple(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class StoreOffset(Pattern):
    constructs = ("RawArrayMemory.store_offset",)
    summary = "store values at offsets from the base pointer (not where mask is False)"
    triton = "tl.store(x_ptr + offset, value, mask=mask)"

    def signature(memory, offset, value, /, *, mask=None, latency=None):
        pass

    examples = [Example("""
@ct.kernel
def k(y, V: ct.Constant[float]):
    offs = ct.reshape(ct.arange(8, dtype=ct.int64), (4, 2))
    y.get_raw_memory().store_offset(offs, ct.full((4, 1), V, dtype=ct.float32))
""", expect=["tl.store(y_ptr + offs, tl.full((4, 1), V, tl.float32))"])]

    def lower(self, call, cx):
        info = _memory(call, cx)
        offset = _operand(call, cx, "offset")
        value = _operand(call, cx, "value")
        mask = _mask(call, cx)
        args = [_pointers(info, offset), value.code]
        if mask is not None:
            args.append(f"mask={mask.code}")
        return Lowered(f"tl.store({', '.join(args)})", NoneV())


class AtomicRMWOffset(Pattern):
    constructs = tuple(f"RawArrayMemory.atomic_{op}_offset" for op in RMW_OPS)
    summary = "atomic read-modify-write at offsets from the base pointer, returning old values"
    triton = "tl.atomic_<op>(x_ptr + offset, update, mask=mask, sem=..., scope=...)"

    def signature(memory, offset, update, /, *, mask=None,
                  memory_order=EnumV("MemoryOrder", "ACQ_REL"),
                  memory_scope=EnumV("MemoryScope", "DEVICE")):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    offs = ct.arange(TILE, dtype=ct.int32)
    old = x.get_raw_memory().atomic_add_offset(offs, 1, mask=offs < 5,
                                               memory_order=ct.MemoryOrder.RELAXED)
    ct.store(y, (0,), old)
""", expect=['old = tl.atomic_add(x_ptr + offs, 1, mask=offs < 5, sem="relaxed")'])]

    def lower(self, call, cx):
        op = call.name.split(".")[-1][len("atomic_"):-len("_offset")]
        info = _memory(call, cx)
        offset = _operand(call, cx, "offset")
        update = _operand(call, cx, "update")
        mask = _mask(call, cx)
        args = [_pointers(info, offset), update.code]
        if mask is not None:
            args.append(f"mask={mask.code}")
        args += [f"{k}={v}" for k, v in _order(call, cx).items()]
        shape = _shape(offset, update, mask)
        cx.note_tile(shape)
        return Lowered(f"tl.atomic_{op}({', '.join(args)})", TileV(shape=shape))


class AtomicCASOffset(Pattern):
    constructs = ("RawArrayMemory.atomic_cas_offset",)
    summary = ("atomic compare-and-swap at offsets from the base pointer, returning old values "
               "(masked-off lanes return `expected`)")
    triton = "tl.atomic_cas through `_raw_atomic_cas` (broadcast, cast, masked lanes harmless)"

    def signature(memory, offset, expected, desired, /, *, mask=None,
                  memory_order=EnumV("MemoryOrder", "ACQ_REL"),
                  memory_scope=EnumV("MemoryScope", "DEVICE")):
        pass

    examples = [Example("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    offs = ct.arange(TILE, dtype=ct.int64)
    old = x.get_raw_memory().atomic_cas_offset(offs, 0, 1)
    ct.store(y, (0,), old)
""", expect=["def _raw_atomic_cas(ptrs, expected, desired, base, mask, MASKED: tl.constexpr,",
             "old = _raw_atomic_cas(x_ptr + offs, 0, 1, x_ptr, None, False)"])]

    def lower(self, call, cx):
        info = _memory(call, cx)
        offset = _operand(call, cx, "offset")
        expected = _operand(call, cx, "expected")
        desired = _operand(call, cx, "desired")
        mask = _mask(call, cx)
        name = cx.need(RAW_CAS)
        args = [_pointers(info, offset), expected.code, desired.code, info.pointer,
                mask.code if mask is not None else "None", str(mask is not None)]
        args += [f"{k.upper()}={v}" for k, v in _order(call, cx).items()]
        shape = _shape(offset, expected, desired, mask)
        cx.note_tile(shape)
        return Lowered(f"{name}({', '.join(args)})", TileV(shape=shape))
