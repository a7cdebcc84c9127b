"""Tile creation: ct.full, ct.zeros, ct.ones, ct.arange."""
from tile2triton.model import ConstV, Lowered, TileV
from tile2triton.pattern_api import Example, Pattern

from ._args import dtype_arg, static_shape
from ._common import shape_code


class Full(Pattern):
    constructs = ("full", "zeros", "ones")
    summary = "tiles filled with one value"
    triton = "tl.full(shape, value, dtype) / tl.zeros(shape, dtype)"

    def signature(shape, fill_value=None, dtype=None):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.zeros((TM, TN), dtype=ct.float32)
    b = ct.ones((TM, TN), ct.float16)
    c = ct.full((TM, TN), -1, dtype=x.dtype)
    ct.store(x, (0, 0), a + b + c)
""", expect=["a = tl.zeros((TM, TN), dtype=tl.float32)", "b = tl.full((TM, TN), 1, tl.float16)",
             "c = tl.full((TM, TN), -1, x_ptr.dtype.element_ty)"])]

    def lower(self, call, cx):
        # ct.zeros(shape, dtype) / ct.ones(shape, dtype): the second positional is the dtype
        if call.name in ("zeros", "ones") and call.has("fill_value") and not call.has("dtype"):
            call.move("fill_value", "dtype")
        if not call.has("dtype"):
            raise cx.error(call.node, "T2T102", f"ct.{call.name}: missing `dtype`",
                           help="pass dtype=, e.g. dtype=ct.float32")
        dims = static_shape(call, "shape", cx)
        dtype = dtype_arg(call, "dtype", cx)
        shape = shape_code(dims)
        cx.note_tile(dims)
        val = TileV(shape=tuple(dims), dtype=dtype.name, tf32=dtype.name == "tfloat32")
        if call.name == "zeros":
            return Lowered(f"tl.zeros({shape}, dtype={dtype.triton})", val)
        fill = "1" if call.name == "ones" else call.arg("fill_value").code
        if call.name == "full" and isinstance(call.val("fill_value"), ConstV):
            value = call.val("fill_value").value
            if not isinstance(value, (bool, int, float)):  # found by the fuzzer: 'abc'
                raise cx.error(call.node_of("fill_value"), "T2T102",
                               f"ct.full: fill_value must be a number, not {value!r}",
                               help="fill tiles with a number, a boolean or a scalar")
            val.nonneg = value >= 0
            if isinstance(value, float) and (dtype.name or "").startswith(("int", "uint")) \
                    and value == value and abs(value) != float("inf"):
                # a float literal for an integer tile: converted (toward zero) here, as Triton's
                # full takes no float for an integer dtype
                fill = repr(int(value))
        return Lowered(f"tl.full({shape}, {fill}, {dtype.triton})", val)


class Arange(Pattern):
    constructs = ("arange",)
    summary = "1-D tile start, start+step, ..."
    triton = "tl.arange(0, size) (scaled, shifted and cast when asked)"

    def signature(size, /, *, dtype, start=0, step=1):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    i = ct.arange(TILE, dtype=ct.int32)
    j = ct.arange(TILE, dtype=ct.float32, start=1, step=2)
    ct.store(x, (0,), i + j)
""", expect=["i = tl.arange(0, TILE)", "j = (tl.arange(0, TILE) * 2 + 1).to(tl.float32)"])]

    def lower(self, call, cx):
        size = call.arg("size")
        if not isinstance(size.val, (ConstV,)) and not size.code.isidentifier():
            dims = static_shape(call, "size", cx)  # raises the compile-time diagnostic
            size = Lowered(dims[0], size.val)
        dtype = dtype_arg(call, "dtype", cx)
        start, step = call.arg("start"), call.arg("step")
        code = f"tl.arange(0, {size.code})"
        prec = 100
        if not (isinstance(step.val, ConstV) and step.val.value == 1):
            code, prec = f"{code} * {step.wrap(13)}", 12
        if not (isinstance(start.val, ConstV) and start.val.value == 0):
            code, prec = f"{code} + {start.wrap(12)}", 11
        if dtype.name != "int32":
            code, prec = f"({code}).to({dtype.triton})" if prec < 100 else \
                f"{code}.to({dtype.triton})", 100
        nonneg = cx.is_nonneg(start) and cx.is_nonneg(step)
        cx.note_tile([size.code])
        return Lowered(code, TileV(shape=(size.code,), dtype=dtype.name, nonneg=nonneg), prec)
