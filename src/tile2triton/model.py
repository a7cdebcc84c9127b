"""What the translator knows about values inside a kernel, statically.

Each lowered expression is Triton source text plus a `Val` describing it: enough type, rank and
constness to choose the right Triton spelling (e.g. floor division only where operands may be
negative, `input_precision` from the operand dtype, reductions that keep cuTile's result dtype).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst

# Names of the ABI every generated kernel shares with its launcher and helpers.
# USE_INT64: constexpr set by the launcher when some array spans 2**31 elements or more; the
# load/store helpers then widen their offsets to int64.
USE_INT64 = "USE_INT64"
# The function-level constexpr naming the dtype of inline tile offsets: defined once at the top
# of a function that accesses tiles inline (emit.with_offset_dtype), from USE_INT64.
OFFSET_DTYPE = "OFFSET_DTYPE"


# The most items (characters of a string, entries of a tuple) a compile-time value may have.
# Every value a kernel computes at compile time is bounded before it is computed: past this
# the translation (and cuTile's compiler) would run out of memory or time, and no kernel holds
# such a value (`(1,) * 10**6` took 27 s and 4 GB; `s = s + s` forty times and
# `"%09999999999d" % 1` exhausted memory).
MAX_SEQUENCE = 10_000

@dataclass(frozen=True)
class DType:
    """One cuTile dtype: its Triton spelling (None: Triton cannot represent it), its kind and
    width. The only table of dtype facts; patterns ask it rather than keep their own sets."""
    name: str
    triton: Optional[str]
    kind: str  # bool | int | uint | float
    bits: int

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")


DTYPES = {d.name: d for d in (
    DType("bool_", "tl.int1", "bool", 1),
    DType("int8", "tl.int8", "int", 8), DType("int16", "tl.int16", "int", 16),
    DType("int32", "tl.int32", "int", 32), DType("int64", "tl.int64", "int", 64),
    DType("uint8", "tl.uint8", "uint", 8), DType("uint16", "tl.uint16", "uint", 16),
    DType("uint32", "tl.uint32", "uint", 32), DType("uint64", "tl.uint64", "uint", 64),
    DType("float16", "tl.float16", "float", 16), DType("bfloat16", "tl.bfloat16", "float", 16),
    DType("float32", "tl.float32", "float", 32), DType("float64", "tl.float64", "float", 64),
    # storage is fp32; the tf32 flag travels in the Val (see mma)
    DType("tfloat32", "tl.float32", "float", 32),
    DType("float8_e4m3fn", "tl.float8e4nv", "float", 8),
    DType("float8_e5m2", "tl.float8e5", "float", 8),
    DType("float4_e2m1fn", None, "float", 4), DType("float8_e8m0fnu", None, "float", 8),
    DType("float8_e5m3fnu", None, "float", 8),
)}

# Views of the table, for the common questions.
CT_TO_TL_DTYPE = {n: d.triton for n, d in DTYPES.items()}
FLOAT_DTYPES = {n for n, d in DTYPES.items() if d.is_float and d.triton is not None}
INT_DTYPES = {n for n, d in DTYPES.items() if d.is_int}
# dtypes Triton computes in without widening (>= 32 bits: tl.sum, tl.cumsum, math keep them)
WIDE_DTYPES = {n for n, d in DTYPES.items() if d.bits >= 32 and d.kind != "bool"}
# integer and float dtypes ordered by promotion rank (cuTile's type promotion)
PROMOTION_ORDER = ["bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                   "uint64", "float16", "bfloat16", "float32", "float64"]


def dtype_bits(name: Optional[str]) -> Optional[int]:
    d = DTYPES.get(name)
    return d.bits if d is not None else None


# Attributes of an array the engine answers itself (methods come from the patterns).
ARRAY_ATTRIBUTES = ("shape", "strides", "dtype", "ndim")


class Val:
    """Static knowledge about a lowered value."""


@dataclass
class ArrayInfo:
    """A cuTile Array parameter: pointer + per-dimension shape + per-dimension stride."""
    name: str
    rank: Optional[int] = None
    pointer: str = ""

    # only used through `get_raw_memory()` (no rank in the kernel): passed as its element count
    # with stride 1 whatever its shape
    flat: bool = False

    # dimensions whose extent / stride `Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=
    # ..., static_stride_dims=...)]` makes compile-time: tl.constexpr parameters of the kernel
    static_shapes: tuple = ()
    static_strides: tuple = ()

    # prefix of the ABI names (`{abi}_ptr`, `{abi}_shape0`, ...): the array's name unless the
    # user's module spells one of those names itself (names.Names.array_prefix)
    abi_prefix: str = ""

    def __post_init__(self):
        self.abi_prefix = self.abi_prefix or self.name
        self.pointer = self.pointer or f"{self.abi_prefix}_ptr"

    # For an element of a list of arrays: Triton expressions reading its pointer table entry
    shape_codes: Optional[list] = None
    stride_codes: Optional[list] = None

    def shape(self, i: int) -> str:
        if self.shape_codes is not None:
            return self.shape_codes[i]
        return f"{self.abi_prefix}_shape{i}"

    def stride(self, i: int) -> str:
        if self.stride_codes is not None:
            return self.stride_codes[i]
        return f"{self.abi_prefix}_stride{i}"

    def abi(self) -> list[str]:
        assert self.rank is not None
        return ([self.pointer] + [self.shape(i) for i in range(self.rank)]
                + [self.stride(i) for i in range(self.rank)])


@dataclass
class ArrayV(Val):
    info: ArrayInfo


@dataclass
class RawMemoryV(Val):
    """`x.get_raw_memory()`: the array's elements addressed by offsets from its base pointer
    (strides ignored); a compile-time handle with no runtime value of its own."""
    array: ArrayInfo


@dataclass
class TiledViewV(Val):
    """`x.tiled_view(tile_shape, padding_mode=...)`: a compile-time description of how to load
    and store tiles of `array`; it has no runtime value of its own."""
    array: ArrayInfo
    tile_shape: list
    padding: Optional[object] = None  # the Lowered padding_mode argument
    steps: Optional[list] = None  # traversal_steps when they differ from tile_shape


@dataclass
class ArrayListInfo:
    """A list of arrays (grouped GEMM, MoE): device tables of pointers, shapes and strides
    (int64), and constexprs chosen by the launcher: the element dtype, per dimension whether
    every array's stride is exactly 1 (`UNIT`), and what divides every array's address (bytes),
    strides and contiguous extents (`DIV`, as a single array's `x_div`). Values loaded from the
    tables are opaque to Triton; the flags give back the unit stride and the alignment that
    make loads 16 bytes wide (issue 8: 28-32x on grouped GEMM)."""
    name: str
    rank: Optional[int] = None
    abi_prefix: str = ""  # as ArrayInfo.abi_prefix

    def __post_init__(self):
        self.abi_prefix = self.abi_prefix or self.name

    @property
    def ptrs(self):
        return f"{self.abi_prefix}_ptrs"

    @property
    def shapes(self):
        return f"{self.abi_prefix}_shapes"

    @property
    def strides(self):
        return f"{self.abi_prefix}_strides"

    @property
    def count(self):
        return f"{self.abi_prefix}_count"

    @property
    def dtype(self):
        return f"{self.abi_prefix.upper()}_DTYPE"

    @property
    def unit(self):
        return f"{self.abi_prefix.upper()}_UNIT"

    @property
    def div(self):
        return f"{self.abi_prefix.upper()}_DIV"

    def abi(self) -> list[str]:
        return [self.ptrs, self.shapes, self.strides, self.count, f"{self.dtype}: tl.constexpr",
                f"{self.unit}: tl.constexpr", f"{self.div}: tl.constexpr"]

    def element(self, index: str) -> ArrayInfo:
        r = self.rank
        row = f"{index} * {r}" if r != 1 else index
        u, d = self.unit, self.div
        return ArrayInfo(
            name=f"{self.name}[{index}]",
            rank=r,
            pointer=f"tl.multiple_of(tl.load({self.ptrs} + {index})"
                    f".to(tl.pointer_type({self.dtype})), tl.constexpr({d}[0]))",
            # shapes are int32 inside kernels, as in cuTile; strides stay int64
            shape_codes=[f"tl.multiple_of(tl.load({self.shapes} + {row} + {k}).to(tl.int32), "
                         f"tl.constexpr({d}[{1 + r + k}]))" for k in range(r)],
            stride_codes=[f"(1 if {u}[{k}] else tl.multiple_of(tl.load({self.strides} + {row} "
                          f"+ {k}), tl.constexpr({d}[{1 + k}])))" for k in range(r)])


@dataclass
class ArrayListV(Val):
    info: ArrayListInfo


@dataclass
class TileV(Val):
    """A tile or runtime scalar (shape == ())."""
    shape: Optional[tuple] = None  # tuple of Triton source strings / ints, None if unknown
    dtype: Optional[str] = None  # cuTile dtype name if statically known
    tf32: bool = False  # came through astype(ct.tfloat32)
    nonneg: bool = False  # provably >= 0 (used to emit plain // and %)
    positive: bool = False  # provably >= 1 (so `x - 1` is >= 0); implies nonneg
    numeric: bool = False  # provably not bool (an arithmetic result): `-x` needs no promotion
    # the array parameter a ct.load read this tile from, in the array's own axis order (kept
    # by astype): the launcher may lay a tf32 product's B operand out K-major (patterns/mma.py)
    loaded_from: Optional[str] = None

    @property
    def rank(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)


@dataclass
class ConstV(Val):
    """A value known at translation time (Python literal, tuple of them, enum member)."""
    value: Any


@dataclass
class ConstExprV(Val):
    """A compile-time constant whose value is only known at launch (ct.Constant parameter)."""
    name: str
    # int | bool | float | other | python (what a @triton.constexpr_function returns) |
    # open_shape (None or a tuple, chosen by the launch: ParamInfo.open_shape)
    kind: str = "int"
    # provably >= 1: a parameter the function uses as a tile dimension (shape_facts.py), or a
    # helper's parameter that receives such a value (its translation is for that, module.py)
    positive: bool = False


@dataclass
class TupleV(Val):
    items: list
    # False: a tuple whose length is not known here (the shape of a tile of unknown rank);
    # `items` is then empty. True: `items` are all of them (none for `()`)
    known: bool = True


@dataclass
class DTypeV(Val):
    """A dtype: a cuTile dtype name, or the dtype of an array parameter."""
    name: Optional[str] = None
    array: Optional[ArrayInfo] = None
    code: Optional[str] = None  # e.g. `t.dtype` for a tile whose dtype is only known to Triton
    # a dtype chosen per specialization (`ct.tfloat32 if A.dtype == ct.float32 else A.dtype`):
    # the Triton constexpr condition under which it is tfloat32, when that depends on the launch
    tf32_when: Optional[str] = None

    @property
    def triton(self) -> str:
        if self.code is not None:
            return self.code
        if self.array is not None:
            return f"{self.array.pointer}.dtype.element_ty"
        return CT_TO_TL_DTYPE[self.name]


@dataclass
class EnumV(Val):
    """A member of a cuTile enum such as PaddingMode.ZERO (parse.source.ENUM_MEMBERS), or of an enum class of the user's
    module (`user`, with the member's `value`)."""
    enum: str
    member: str
    value: Any = field(default=None, repr=False)   # (repr: cuTile's signatures in diagnostics)
    user: bool = field(default=False, repr=False)


@dataclass
class EnumClassV(Val):
    """An enum class of the user's module (`class Op(enum.Enum)`), known at translation time."""
    name: str


@dataclass
class ConstExprEnumV(Val):
    """`Op(k)` of a ct.Constant parameter `k`: a member of a user enum chosen at launch;
    `code` is the Triton expression of its value (Triton folds comparisons of it)."""
    enum: str
    code: str


@dataclass
class TableV(Val):
    """A dict with compile-time keys (`{Op.ADD: ct.atomic_add, ...}`): (key, Lowered value)
    pairs; keys are Python values or user/cuTile EnumV members."""
    entries: list


@dataclass
class ChoiceV(Val):
    """One of several translation-time values, chosen per specialization: (Triton constexpr
    condition, Lowered value) pairs, the first true condition wins (a table indexed by a
    ct.Constant parameter). Calling it calls each option; Triton compiles the taken one."""
    options: list


@dataclass
class CtRefV(Val):
    """A reference to a cuda.tile attribute that has not been called yet (e.g. `ct.PaddingMode`),
    or a method of a value (`method.<construct>`, with the value lowered once as `receiver`)."""
    qualname: str
    receiver: Optional["Lowered"] = None


@dataclass
class PyRefV(Val):
    """A name of a Python module cuTile evaluates at compile time (`math`, numpy, torch), or an
    attribute of one that is not a value by itself (`math.sqrt` before it is called)."""
    qualname: str


@dataclass
class FuncV(Val):
    """A module-level helper function called from a kernel."""
    name: str


@dataclass
class NoneV(Val):
    pass


@dataclass(slots=True)
class Lowered:
    code: str
    val: Val
    prec: int = 100  # Python precedence of `code`'s outermost operator; 100 = atomic
    # for a tuple: its parts, lowered (so `t[i]` and tile shapes read `TM`, not `t[0]`)
    items: Optional[list] = None

    def wrap(self, min_prec: int) -> str:
        return self.code if self.prec >= min_prec else f"({self.code})"

    def cast(self, dtype: str, bitcast: bool = False) -> str:
        """`x.to(dtype)`; for a scalar `tl.cast(x, dtype)`, since under TRITON_INTERPRET a
        scalar may be a Python number (a `range` variable, a comparison of one), which has no
        `.to`. Compiled, both are the same conversion."""
        more = ", bitcast=True" if bitcast else ""
        if isinstance(self.val, TileV) and self.val.shape == ():
            return f"tl.cast({self.code}, {dtype}{more})"
        return f"{self.wrap(100)}.to({dtype}{more})"


# Python operator precedence, low to high (only what we emit).
PREC = {
    "lambda": 1, "ifexp": 2, "or": 3, "and": 4, "not": 5, "cmp": 6, "|": 7, "^": 8, "&": 9,
    "<<": 10, ">>": 10, "+": 11, "-": 11, "*": 12, "/": 12, "//": 12, "%": 12, "@": 12,
    "unary": 13, "**": 14, "atom": 100,
}


@dataclass(slots=True)
class ParamInfo:
    name: str
    kind: str  # array | array_list | constexpr | scalar | tile
    array: Optional[ArrayInfo] = None
    array_list: Optional[ArrayListInfo] = None
    annotation: Optional[str] = None
    # `(value,)` when the function is translated for one launch whose value of this ct.Constant
    # parameter is known (live translation specialized per launch: `translate.Specialization`)
    launch_value: Optional[tuple] = None
    # a function value the kernel calls, given at launch (a factory's `reduce_op`): the
    # constructs ("cuda.tile.sum") and helpers it may be; the parameter holds the name of the
    # one launched ("sum", a helper's name), and each call is a choice Triton folds
    choices: Optional[tuple] = None
    # a host function's value given as a shape of the launch's choosing (`traversal_steps=`
    # of a factory: None or a tuple): a constexpr the lowering reads per axis
    open_shape: bool = False
    # a host function's dtype given at launch (`ct.astype(t, to_dtype)` of a factory's
    # parameter): the parameter holds a Triton dtype (the launcher's `_dtype_value` makes it
    # of a torch, NumPy or Triton dtype or a dtype's name), a DTypeV known to Triton only
    dtype_value: bool = False


@dataclass(frozen=True)
class Specialization:
    """What one launch tells about a kernel's parameters (live translation of a launched
    kernel): `ranks` of its array arguments and `values` of its other arguments, as sorted
    (name, value) pairs. A rank decides where the kernel's own indexing leaves an array's rank
    open; a value is taken by a ct.Constant parameter (its compile-time branches fold)."""
    kernel: str
    ranks: tuple = ()
    values: tuple = ()


@dataclass(slots=True)  # slots: every field is declared here, none attached later
class FunctionInfo:
    """A cuTile kernel, @ct.function, or plain helper called from a kernel."""
    name: str
    node: cst.FunctionDef
    role: str  # kernel | function | helper
    params: list = field(default_factory=list)
    decorator_options: dict = field(default_factory=dict)
    # a kernel defined inside a host function: its nested.NestedKernel (convert hoists it)
    nested: Optional[object] = None
    # tuple parameters split into their parts (tuple_params.py): [(name, [(part, path)])]
    tuple_params: list = field(default_factory=list)
    # one of a kernel's translations per rank combination (translate._rank_variants)
    rank_variant: bool = False
