"""What lowering one function produces, for emit and for the functions that call it."""
from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from ..model import FunctionInfo


@dataclass(frozen=True, slots=True)
class BodyFacts:
    """What a generated function body does that decides whether its blocks may be run several
    per program or in a persistent walk (emit/coarsening.py), read from the body's syntax tree
    once when the lowering produces it (`of`), so that emit asks these fields instead of
    searching the text. Docstrings and comments are not code: they say nothing here."""
    atomics: bool = False           # a tl.atomic_* call: a block may wait for another
    grid_size: bool = False         # tl.num_programs: the block learns the grid's size
    barriers: bool = False          # tl.debug_barrier or inline assembly
    block_axes: frozenset = frozenset()  # the k of each tl.program_id(k) (ct.bid(k))
    loops: bool = False             # a for or while loop, at any depth
    whiles: bool = False            # a while loop, at any depth
    returns: int = 0                # return statements, at any depth
    strings: bool = False           # a string statement after the docstring (its lines would
    # change if the body were indented; coarsening.coarsened_body)
    assigned: frozenset = frozenset()  # names the body binds or deletes
    calls: frozenset = frozenset()  # names it calls as `name(...)` (not `x.name(...)`)

    @staticmethod
    def of(text: str) -> "BodyFacts":
        """The facts of generated code `text`: a function body (indented or not) or a whole
        `@triton.jit` function (a device helper's source)."""
        return _facts(text)


@lru_cache(maxsize=4096)
def _facts(text: str) -> BodyFacts:
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:         # (not expected of generated code) nothing is assumed safe
        return BodyFacts(atomics=True, grid_size=True, barriers=True, loops=True, whiles=True,
                         returns=2, strings=True)
    body = tree.body
    if len(body) == 1 and isinstance(body[0], ast.FunctionDef):
        body = body[0].body
    if body and _is_string(body[0]):
        body = body[1:]             # the docstring
    atomics = grid = barriers = loops = whiles = strings = False
    axes, assigned, calls, returns = set(), set(), set(), 0
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, (ast.For, ast.While)):
            loops = True
            whiles |= isinstance(node, ast.While)
        elif isinstance(node, ast.Return):
            returns += 1
        elif _is_string(node):
            strings = True
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            assigned.add(node.id)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                calls.add(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.value.id == "tl":
                atomics |= f.attr.startswith("atomic_")
                grid |= f.attr == "num_programs"
                barriers |= f.attr == "debug_barrier" or f.attr.startswith("inline_asm")
                if f.attr == "program_id":
                    axes.add(_axis(node))
    return BodyFacts(atomics, grid, barriers, frozenset(axes), loops, whiles, returns, strings,
                     frozenset(assigned), frozenset(calls))


def _is_string(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
        node.value.value, str)


def _axis(call: ast.Call):
    """The axis of a generated `tl.program_id(k)` (`axis=k` too); None where it is not a
    literal (then no axis is known, and emit keeps one block per program)."""
    args = list(call.args) + [k.value for k in call.keywords if k.arg == "axis"]
    if len(args) == 1 and isinstance(args[0], ast.Constant) and type(args[0].value) is int:
        return args[0].value
    return None


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
    # the rows (M) of each matrix product, as exprs: products of fewer than 16 rows (decode
    # attention's query-head groups) get the launcher's short pipeline
    dot_rows: list = field(default_factory=list)
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
    # the module's number constants it reads, by name (value as code): defined at its top as
    # constexprs (emit.with_module_constants), so the body keeps the user's names
    module_constants: dict = field(default_factory=dict)
    # plain Python functions of the module called at compile time (ct.static_eval, static_assert
    # conditions): emitted with @triton.constexpr_function
    constexpr_functions: set = field(default_factory=set)
    # a function it calls (or one they call) has a tl.static_assert (emit.callee_asserts)
    asserting_callees: bool = False
    # what the body does, for emit's block coarsening and persistent walk (BodyFacts); set
    # with the text (`finish`)
    facts: BodyFacts = BodyFacts()

    def finish(self, text: str) -> None:
        """The function's generated body, and its facts."""
        self.text = text
        self.facts = BodyFacts.of(text)

    def merge(self, callee: "UnitResult") -> None:
        """What a called function needs, its caller needs too: the one way a helper's results
        reach the kernel (helper calls, combiners and lambdas alike)."""
        self.helper_sources.update(callee.helper_sources)
        self.tile_elems += callee.tile_elems
        self.uses_dot |= callee.uses_dot
        self.dot_rows += [r for r in callee.dot_rows if r not in self.dot_rows]
        self.fma_dots |= callee.fma_dots
        self.tf32_dots |= callee.tf32_dots
        self.debug |= callee.debug
        self.constexpr_functions |= callee.constexpr_functions
        self.asserting_callees |= callee.asserting_callees or "tl.static_assert(" in callee.text
