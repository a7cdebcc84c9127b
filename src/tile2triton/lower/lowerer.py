"""The Lowerer: lowers one function body, and is the `LoweringContext` patterns receive."""
from __future__ import annotations

import re
from typing import Optional, Sequence

import libcst as cst

from ..diagnostics import TranslationError
from ..model import OFFSET_DTYPE, FuncV, FunctionInfo, Lowered, ParamInfo, Val
from ..pattern_api import DeviceHelper
from .array_bindings import ArrayBindings
from .assignments import Assignments
from .branches import Branches
from .calls import Calls
from .expressions import Expressions
from .helper_calls import HelperCalls
from .loops import Loops
from .memory_order import AccessOrder
from .nested_defs import NestedDefs
from .operators import Operators
from .pyvalues import CompileTimePython
from .resident_rows import ResidentRows
from .statements import Statements
from .tables import CompileTimeTables
from .tma import dot_operand_loads
from .static_iter import StaticIteration
from .unit import UnitResult
from .shape_facts import positive_shape_params
from .values import Values, initial_env, reassigned_names


class Lowerer(Statements, Branches, Loops, Assignments, ArrayBindings, StaticIteration,
              Expressions, Operators, Calls, HelperCalls, NestedDefs, Values, CompileTimePython,
              CompileTimeTables, ResidentRows):
    """Lowers one function body. Patterns see it through `pattern_api.LoweringContext`; `mc` is
    the module's `ModuleContext` (module.py).

    It is made of one mixin per theme: statements.py (the statement dispatch, the lines
    emitted), branches.py (`if`), loops.py, assignments.py and array_bindings.py,
    static_iter.py (`ct.static_iter`), expressions.py (names, literals, subscripts),
    operators.py, calls.py, helper_calls.py, nested_defs.py (nested functions and lambdas),
    values.py (static typing), pyvalues.py (compile-time Python), tables.py (enums, tables),
    resident_rows.py. They are parts of one class rather than objects of their own because
    lowering is one recursion through all of them (a statement lowers expressions, an
    expression calls a helper whose arguments are expressions and whose body is statements)
    over one state, declared below: the environment (`env`, `static_names`), the lines emitted
    (`out`, `depth`, `can_insert`), the names taken and re-bound (`taken_names`, `mutable`,
    `bound`, `straight`, `shadow`, `renames`, `loop_bound`) and the unit's result (`result`).
    Objects of their own would each need that state, or this object, passed in: the same
    coupling, spelled longer."""

    def __init__(self, mc, fn: FunctionInfo, params: list[ParamInfo]):
        self.mc = mc
        self.pm = mc.pm
        self.fn = fn
        self.params = params
        rebound = reassigned_names(fn.node.body, times=1)
        plain = {p.name for p in params if p.kind == "constexpr"} - set(rebound)
        self.env: dict[str, Val] = initial_env(params, rebound, frozenset(
            positive_shape_params(fn.node.body, self.pm.qualname, plain)))
        # names bound by a ct.static_iter loop or comprehension to an item inlined at each use
        self.static_names: dict[str, Lowered] = {}
        self.out: list[str] = []
        self.depth = 0
        self.result = UnitResult(fn.name, "", params, fn=fn)
        self.mutable = reassigned_names(fn.node.body)
        self.loop_bound: set = set()      # names bound inside loops (statements.lower_body)
        self.straight: set = set()        # names re-bound only by top-level statements
        self.shadow: dict = {}            # a re-bound name's value at its last binding
        self.bound: set = set()           # names bound so far (a re-binding needs a new name)
        self.renames: dict = {}           # names spelled otherwise in an `else` branch
        self.can_insert = True  # patterns may put statements before the current one
        self.order = AccessOrder()  # memory accesses, for barriers between them
        self.taken_names = {n.value for n in _names(fn.node)} | {
            a for p in params if p.array is not None for a in p.array.abi()}
        self.body = fn.node.body  # the body as lowered, after lower_body's rewrites
        self._tma_facts = None  # the dot operand loads, computed when asked
        self._read_only = None  # the read-only array parameters, computed when asked
        self.compile_time = 0   # > 0 while lowering an expression cuTile evaluates compiling
        # lambdas made in tuple comprehensions: hoisted name -> {captured comprehension
        # variable: its last item} (the comprehension's scope ends; Python's closures then see
        # the variable's last value), and the variables of the comprehensions being lowered
        self.frozen_captures: dict = {}
        self.comp_vars: list = []
        # loops that keep a row's tiles in registers (resident_rows.py), found by lower_body
        self.row_groups: dict = {}
        self.row_loads: dict = {}
        self._row_lines: list = []
        self._row_params: dict = {}
        self._bound_here = None   # names the function binds (Values.keeps_constant_name)
        self._top_bindings: dict = {}   # module constant -> its top-level bindings (the same)
        # `# tile2triton:` notes already written for arguments with no Triton counterpart
        self.hint_notes: set = set()

    # ------------------------------------------------- LoweringContext: services for patterns
    def error(self, node, code, message, help=None) -> TranslationError:
        return self.pm.error(node, code, message, help)

    def need(self, helper: DeviceHelper, **options) -> str:
        """Ask emit for a device helper a pattern declares; returns the name to call it by (the
        module may respell it where the user's code uses the same identifier, names.py)."""
        for req in helper.requires:
            self.need(req)
        name = helper.emitted_name(**options)
        if name not in self.result.helper_sources:
            self.result.helper_sources[name] = helper.render(**options)
        return self.pm.names[name]

    def need_source(self, name: str, source: str) -> str:
        """A device helper whose full source the pattern gives (same as `need` of a
        DeviceHelper without options)."""
        return self.need(DeviceHelper(name, lambda: source))

    def static_expr(self, node) -> Lowered:
        self.compile_time += 1
        try:
            return self.expr(node)
        finally:
            self.compile_time -= 1

    def offset_dtype(self) -> str:
        self.result.offset_dtype = True
        return self.pm.names[OFFSET_DTYPE]

    def fresh_name(self, hint: str) -> str:
        name, k = hint, 1
        while name in self.taken_names:
            k += 1
            name = f"{hint}_{k}"
        self.taken_names.add(name)
        return name

    def before(self, *lines: str) -> bool:
        if not self.can_insert:
            return False
        for text in lines:
            self.line(text)
        return True

    def note_tile(self, shape) -> None:
        if shape and all(s is not None for s in shape):
            # no `1 * TM` in the launcher; `N // 2` is one factor
            dims = [str(s) if re.fullmatch(r"[\w.]+", str(s)) else f"({s})" for s in shape
                    if str(s) != "1"]
            if dims:  # an all-ones tile says nothing about the kernel's size
                self.result.tile_elems.append(" * ".join(dims))

    def mark_debug(self) -> None:
        self.result.debug = True

    def mark_dot(self, fma: bool = False, tf32: bool = False, rows=None) -> None:
        self.result.uses_dot = True
        if rows is not None and str(rows) not in self.result.dot_rows:
            self.result.dot_rows.append(str(rows))
        self.result.fma_dots |= fma
        self.result.tf32_dots |= tf32

    def note_tf32_operands(self, b_array: str, a_array: str) -> None:
        if (b_array, a_array) not in self.result.k_major:
            self.result.k_major.append((b_array, a_array))
            self.read_only_arrays()         # (the launcher copies only read-only arrays)

    def read_only_arrays(self) -> frozenset:
        """The array parameters this function only reads (recognize.read_only_arrays),
        scanned once and kept on the result, where the launcher reads them."""
        if self._read_only is None:
            from ..recognize import read_only_arrays
            arrays = {p.name for p in self.params if p.kind == "array"}
            self._read_only = frozenset(read_only_arrays(self.pm, self.fn, arrays))
            self.result.read_only = self._read_only
        return self._read_only

    def tensor_descriptor(self, call_node, array, shape) -> Optional[str]:
        """The kernel parameter of a TMA descriptor for 2-D tiles of `shape` loaded from
        `array` by `call_node`, or None: only for a kernel's own array parameter that the kernel
        only reads, a load whose tile feeds a matrix product, and a tile shape the launcher can
        evaluate (literals and ct.Constant parameters)."""
        if self.fn.role != "kernel" or array.rank != 2 or array.flat \
                or array.shape_codes is not None:
            return None
        param = next((p for p in self.params if p.kind == "array" and p.array is array), None)
        if param is None:
            return None
        if self._tma_facts is None:
            self._tma_facts = dot_operand_loads(self.pm, self.body)
        feeds_dot, read_only = self._tma_facts, self.read_only_arrays()
        if id(call_node) not in feeds_dot or param.name not in read_only:
            return None
        constexprs = {p.name for p in self.params if p.kind == "constexpr"}
        if not all(str(d).isdigit() or str(d) in constexprs for d in shape):
            return None
        key = (param.name, tuple(str(d) for d in shape))
        for name, block, desc in self.result.tma:
            if (name, block) == key:
                return desc
        desc = self.fresh_name(f"{array.abi_prefix}_desc")
        self.result.tma.append((*key, desc))
        return desc

    def source_of(self, node) -> str:
        return self.pm.module.code_for_node(node)

    def resolve(self, node) -> Optional[str]:
        if isinstance(node, cst.Name) and (node.value in self.env
                                           or node.value in self.pm.functions):
            return None
        if isinstance(node, cst.Name) and node.value in ("max", "min") \
                and node.value not in self.pm.imports and node.value not in self.pm.globals:
            return f"builtins.{node.value}"
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self.pm.qualname(node)
        return None

    def lower_callable(self, node, call, args: Sequence[Val]) -> tuple[str, int]:
        if isinstance(node, cst.Lambda):
            unit = self.mc.lower_lambda(node, args, self)
        elif isinstance(node, cst.Name) and (
                node.value in self.pm.functions and node.value not in self.env
                or isinstance(self.env.get(node.value), FuncV)
                and self.env[node.value].name in self.pm.hoisted):
            name = node.value if node.value not in self.env else self.env[node.value].name
            if self.pm.hoisted.get(name, (None, []))[1]:
                raise self.error(node, "T2T101", "a function passed as a value cannot read "
                                 "variables of the function it is defined in",
                                 help="pass those values as arguments, or define it at module "
                                      "level")
            unit, _ = self.mc.specialize(
                name, call, [Lowered(f"_arg{i}", v) for i, v in enumerate(args)])
        else:
            raise self.error(node, "T2T100", "this function cannot be translated as a value",
                             help="pass a module-level function or a lambda")
        self.result.merge(unit)
        return unit.name, len(unit.params)


def _names(node):
    if isinstance(node, cst.Name):
        yield node
    for child in node.children:
        yield from _names(child)
