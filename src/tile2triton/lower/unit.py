"""What lowering one function produces, for emit and for the functions that call it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..model import FunctionInfo


@dataclass(slots=True)  # slots: every field is declared here, none attached later
class UnitResult:
    """One lowered function (kernel, helper, or a lambda translated into a helper)."""
    name: str
    text: str
    params: list
    fn: Optional[FunctionInfo] = None
    uses_array_params: bool = False  # a helper taking arrays also takes USE_INT64
    # device helpers requested (with what they require): name -> @triton.jit source
    helper_sources: dict = field(default_factory=dict)
    tile_elems: list = field(default_factory=list)  # launcher heuristics: tile sizes as exprs
    uses_dot: bool = False
    # dots inside a loop nested in a grid-stride loop (a persistent matmul): deeper pipeline
    persistent_dots: bool = False
    # fp32 products on CUDA cores (input_precision="ieee"): compiled with ptxas -O1 when the
    # launch's float arrays are all float32 (docs/performance.md, FFT)
    fma_dots: bool = False
    # products that may ask for tf32 (input_precision="tf32"): on GPUs whose Triton backend
    # has no tf32 (AMD gfx90a) the launcher has them computed in fp32 (_tf32_options)
    tf32_dots: bool = False
    # (B array, A array) of tf32 products whose operands are loaded straight from this
    # function's array parameters: candidates for a K-major copy of B (docs/performance.md)
    k_major: list = field(default_factory=list)
    # the array parameters the function only reads (recognize.read_only_arrays), scanned once
    # by the lowering (Lowerer.read_only_arrays) for its TMA and resident-row choices and for
    # the launcher's K-major copies
    read_only: frozenset = frozenset()
    # TMA descriptors the kernel may load through (lower/tma.py): (array parameter, tile shape
    # as source strings, the descriptor's parameter name); the launcher builds them
    tma: list = field(default_factory=list)
    # the constexpr that flattens a persistent loop over TMA products (loops.py), if any
    flatten: Optional[str] = None
    # loops walking one row that keep its tiles in registers (resident_rows.py): per group,
    # (its constexpr, trip count as launcher code, [(cached array, tile elements as code)])
    row_tiles: list = field(default_factory=list)
    debug: bool = False  # uses device asserts: emit @triton.jit(debug=True)
    offset_dtype: bool = False  # accesses tiles inline: defines OFFSET_DTYPE at its top
    # plain Python functions of the module called at compile time (ct.static_eval, static_assert
    # conditions): emitted with @triton.constexpr_function
    constexpr_functions: set = field(default_factory=set)
    # a function it calls (or one they call) has a tl.static_assert (emit.callee_asserts)
    asserting_callees: bool = False

    def merge(self, callee: "UnitResult") -> None:
        """What a called function needs, its caller needs too: the one way a helper's results
        reach the kernel (helper calls, combiners and lambdas alike)."""
        self.helper_sources.update(callee.helper_sources)
        self.tile_elems += callee.tile_elems
        self.uses_dot |= callee.uses_dot
        self.fma_dots |= callee.fma_dots
        self.tf32_dots |= callee.tf32_dots
        self.debug |= callee.debug
        self.constexpr_functions |= callee.constexpr_functions
        self.asserting_callees |= callee.asserting_callees or "tl.static_assert(" in callee.text
