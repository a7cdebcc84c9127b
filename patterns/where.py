"""Selection: ct.where(cond, x, y)."""
from tile2triton.model import Lowered, TileV
from tile2triton.pattern_api import Example, Pattern

from ._common import broadcast_shapes, dtype_of, promote, tile_shape


class Where(Pattern):
    constructs = ("where",)
    summary = "elementwise select"
    triton = "tl.where(cond, x, y)"

    def signature(cond, x, y, /):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    a = ct.load(x, (0,), (TILE,))
    ct.store(x, (0,), ct.where(a > 0, a, 0.0))
""", expect=["tl.where(a > 0, a, 0.0)"])]

    def lower(self, call, cx):
        c, x, y = call.arg("cond"), call.arg("x"), call.arg("y")
        shape = broadcast_shapes(broadcast_shapes(tile_shape(c), tile_shape(x)), tile_shape(y))
        return Lowered(f"tl.where({c.code}, {x.code}, {y.code})",
                       TileV(shape=shape, dtype=promote(dtype_of(x), dtype_of(y))))
