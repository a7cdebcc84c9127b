"""ct.astile: a tile built from a scalar or a (nested) tuple of scalars.

The nesting of the tuple is the tile's shape (every length a power of two, siblings of one
length); the elements are cast to `dtype`. Elements may be runtime scalars (`ct.bid(0) * 2`).
A tuple becomes `_astile_<n>(v0, ..., DTYPE)`, which places element k of a 1-D tile with
`tl.where(arange == k, ...)`, reshaped to the nested shape; a scalar is a 0-d cast.
"""
from tile2triton.model import ConstExprV, ConstV, DTypeV, Lowered, TileV
from tile2triton.pattern_api import DeviceHelper, Example, Pattern

ASTILE = DeviceHelper("_astile_{n}", r'''
@triton.jit
def _astile_{{ n }}({% for k in range(n) %}v{{ k }}, {% endfor %}DTYPE: tl.constexpr):
    """ct.astile of {{ n }} scalars: element k of the 1-D tile is v<k>, cast to DTYPE."""
    i = tl.arange(0, {{ n }})
    if DTYPE.is_fp8():  # Triton makes no fp8 constants: built in fp32, converted once
        t = tl.zeros(({{ n }},), tl.float32)
    else:
        t = tl.zeros(({{ n }},), DTYPE)
{% for k in range(n) %}
    t = tl.where(i == {{ k }}, v{{ k }}, t)
{% endfor %}
    return t.to(DTYPE)
''')


def _parts(low):
    """The entries of a tuple value (a tuple expression or a tuple constant), else None."""
    v = low.val
    if low.items is not None:
        return low.items
    if isinstance(v, ConstV) and isinstance(v.value, tuple):
        return [Lowered(repr(x), ConstV(x)) for x in v.value]
    return None


def _flatten(low, call, cx):
    """(shape, element codes) of a scalar or nested tuple of scalars."""
    parts = _parts(low)
    if parts is None:
        v = low.val
        scalar = (isinstance(v, ConstV) and isinstance(v.value, (bool, int, float))) or \
            isinstance(v, ConstExprV) or (isinstance(v, TileV) and v.shape == ())
        if not scalar:
            raise cx.error(call.node_of("value"), "T2T102", "ct.astile: every element must be a "
                           "scalar (a number or a scalar expression)",
                           help="build tiles from tiles with ct.cat, ct.reshape or ct.where")
        return (), [low.code]
    n = len(parts)
    if n == 0 or n & (n - 1):
        raise cx.error(call.node_of("value"), "T2T105", f"ct.astile: a tuple of length {n}; "
                       "every length must be a power of two", help="pad the tuple")
    shapes, codes = set(), []
    for p in parts:
        s, c = _flatten(p, call, cx)
        shapes.add(s)
        codes += c
    if len(shapes) != 1:
        raise cx.error(call.node_of("value"), "T2T105", "ct.astile: sibling tuples of "
                       "different shapes", help="every tuple at one level needs one length")
    return (n,) + shapes.pop(), codes


class AsTile(Pattern):
    constructs = ("astile",)
    summary = "tile from a scalar or a nested tuple of scalars (compile-time or runtime)"
    triton = "`_astile_<n>(v0, ..., DTYPE)` reshaped to the nesting; a scalar is `tl.cast`"

    def signature(value, /, *, dtype):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x):
    w = ct.astile(((1, 2), (3, 4)), dtype=ct.float32)
    ct.store(x, (0, 0), w * ct.bid(0))
""", expect=["def _astile_4(v0, v1, v2, v3, DTYPE: tl.constexpr):",
             "w = tl.reshape(_astile_4(1, 2, 3, 4, tl.float32), (2, 2))"]),
        Example("""
@ct.kernel
def k(x):
    v = ct.astile((ct.bid(0), 7), dtype=ct.int32)
    s = ct.astile(0.5, dtype=x.dtype)
    ct.store(x, (0,), v * s)
""", expect=["v = _astile_2(tl.program_id(0), 7, tl.int32)",
             "s = tl.cast(0.5, x_ptr.dtype.element_ty)"]),
        Example("""
@ct.kernel
def k(x):
    ct.store(x, (0,), ct.astile((1, 2, 3), dtype=ct.int32))
""", error="T2T105", message="every length must be a power of two"),
        Example("""
@ct.kernel
def k(x):
    ct.store(x, (0, 0), ct.astile(((1, 2), (3,)), dtype=ct.int32))
""", error="T2T105", message="sibling tuples of different shapes"),
    ]

    def lower(self, call, cx):
        dtype = call.val("dtype")
        if not isinstance(dtype, DTypeV):
            raise cx.error(call.node_of("dtype"), "T2T102",
                           "ct.astile: `dtype` must be a cuTile dtype such as ct.float32",
                           help="pass a cuTile dtype such as ct.float32")
        shape, codes = _flatten(call.arg("value"), call, cx)
        val = TileV(shape=tuple(str(d) for d in shape), dtype=dtype.name)
        if not shape:
            return Lowered(f"tl.cast({codes[0]}, {dtype.triton})", val)
        n = len(codes)
        code = f"{cx.need(ASTILE, n=n)}({', '.join(codes)}, {dtype.triton})"
        if len(shape) > 1:
            code = f"tl.reshape({code}, ({', '.join(str(d) for d in shape)}))"
        cx.note_tile(shape)
        return Lowered(code, val)
