"""emit: render the Triton module.

The user's module is kept as it is (host code, comments, docstrings) except for:
  * `cuda.tile` imports -> `import triton` / `import triton.language as tl` (+ torch, contextlib);
  * module-level cuTile aliases (`ConstInt = ct.Constant[int]`, `PAD = ct.PaddingMode.ZERO`),
    which the translator folds into the kernels;
  * each @ct.kernel -> a @triton.jit kernel followed by its host launcher;
  * each @ct.function / helper called from kernels -> a @triton.jit helper;
  * `ct.launch(stream, grid, kernel, args)` -> `launch_kernel(stream, grid, *args)`;
    host `ct.cdiv` -> `triton.cdiv`.
Device and host helpers the kernels need are rendered from templates/ after the imports.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import jinja2
import libcst as cst

from .coarsening import (called_helpers, coarsenable, coarsened_body, persistable,
                      persistent_body, walked_calls, walked_helper)
from ..diagnostics import LocatedFailure, TranslationError
from .imports import drop_orphaned, identifiers_used, sort_block
from .layout import after_docstring, lay_out, layout_simple
from ..model import DTYPES, OFFSET_DTYPE, USE_INT64, FunctionInfo
from ..parse.names import Renamer, comment_safe, launcher_name, rename_code, source_identifiers
from . import keep_unconverted as keep_mod
from ..parse.source import ParsedModule, dotted_name
from .read_guards import negation, read_guards
from ..recognize import read_only_arrays



@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("tile2triton.emit", "templates"),
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def render_host_helpers(lists: bool, features: set) -> str:
    return _env().get_template("host.py.j2").render(lists=lists, features=features).strip("\n")


KNOWN_HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps")
# cuda-tile 1.7 accepts these warp counts (a power of 2 in [1, 32]); Triton asserts a power of 2
WORKER_WARPS = (1, 2, 4, 8, 16, 32)


def kernel_hints(pm: ParsedModule, fn: FunctionInfo, features: set) -> dict:
    """@ct.kernel(...) options as host-side Python source (ct.ByTarget -> _ByTarget)."""
    out = {}
    for key, value in fn.decorator_options.items():
        if key not in KNOWN_HINTS:
            raise pm.error(value, "T2T108", f"unknown @ct.kernel option `{key}`",
                           help=f"cuTile kernel options are {', '.join(KNOWN_HINTS)}")
        if key == "num_worker_warps" and isinstance(value, cst.Integer) \
                and value.evaluated_value not in WORKER_WARPS:
            raise pm.error(value, "T2T108", f"num_worker_warps={value.value}: cuTile takes a "
                           "power of 2 between 1 and 32",
                           help=f"use one of {', '.join(map(str, WORKER_WARPS))}")
        rw = _HostRewriter(pm, {}, {}, {})
        out[key] = pm.module.code_for_node(value.visit(rw))
        features |= rw.host_features
    return out


def _function_text(pm: ParsedModule, fn: FunctionInfo, params: list[str], body: str,
                   debug: bool = False, no_specialize: tuple = ()) -> str:
    # device asserts are compiled only in Triton's debug mode; a long signature is wrapped
    # by layout.py with the rest of the generated code. `no_specialize`: integer arguments
    # whose value changes from launch to launch (a grid size) and must not recompile
    options = (["debug=True"] if debug else []) + (
        ["do_not_specialize=[" + ", ".join(f'"{n}"' for n in no_specialize) + "]"]
        if no_specialize else [])
    lines = [f"@triton.jit({', '.join(options)})" if options else "@triton.jit",
             f"def {fn.name}({', '.join(params)}):"]
    return "\n".join(lines) + "\n" + body


def kernel_params(params) -> list[str]:
    out = []
    for p in params:
        if p.kind == "array":
            a = p.array
            static = {a.shape(i) for i in a.static_shapes} | {a.stride(i) for i in a.static_strides}
            out.extend(f"{n}: tl.constexpr" if n in static else n for n in a.abi())
        elif p.kind == "array_list":
            out.extend(p.array_list.abi())
        elif p.kind == "constexpr":
            out.append(f"{p.name}: tl.constexpr")
        else:
            out.append(p.name)
    return out


def multiples_name(array) -> str:
    return f"{array.abi_prefix}_div"


def with_multiples(body: str, arrays: list) -> str:
    """The kernel body with divisibility the launcher checked made visible to Triton.

    Triton specializes an integer argument on being a multiple of 16, nothing less; a row
    stride or row length that is a multiple of 8 but not 16 (K = 4088) leaves every row start
    unproven 16-byte aligned and every load scalar (7.4x slower on the H200). The launcher
    passes, per array, the largest of 16, 8, 4, 2, 1 dividing each stride, then each extent of
    a contiguous dimension (`x_div`; 1 for the other extents); `v // d * d` is v itself, and
    carries the multiple into the kernel (tl.multiple_of on an argument has no effect). Both
    layouts count: a column-major array (a K-major matmul operand) is contiguous along its
    first dimension, whose extent then bounds the vector loads."""
    lines = []
    for a in arrays:
        d = multiples_name(a)
        for i in range(a.rank):
            if i not in a.static_strides:    # (a compile-time stride is known exactly)
                lines.append(f"    {a.stride(i)} = {a.stride(i)} // {d}[{i}] * {d}[{i}]")
        for i in range(a.rank):
            j = a.rank + i
            if i not in a.static_shapes:
                lines.append(f"    {a.shape(i)} = {a.shape(i)} // {d}[{j}] * {d}[{j}]")
    if not lines:
        return body
    text = body.split("\n")
    at = after_docstring(text)
    note = ["    # strides and row lengths are multiples the launcher checked (its *_div arguments)"]
    return "\n".join(text[:at] + note + lines + text[at:])


def with_offset_dtype(body: str, unit, names) -> str:
    """The function body with its offset dtype (lowerer.offset_dtype) defined at its top, where
    its inline tile accesses use one: the launcher's USE_INT64 choice, made once."""
    if not unit.offset_dtype:
        return body
    text = body.split("\n")
    at = after_docstring(text)
    line = f"    {names[OFFSET_DTYPE]}: tl.constexpr = tl.int64 if {USE_INT64} else tl.int32"
    return "\n".join(text[:at] + [line] + text[at:])


# Host helpers the launcher template calls, spelled per module (names.py)
LAUNCHER_HELPERS = ("_as_tensor", "_check_ndim", "_array_tables", "_triton_dtype",
                    "_needs_int64", "_on_stream", "_grid", "_by_target", "_multiples",
                    "_launch_known", "_remember_launch", "_scalar_key", "_k_major_tf32",
                    "_tma_descriptor", "_row_tiles", "_row_warps", "_walk_programs",
                    "_ptxas_target", "_unread_array", "_callee_error", "_tf32_options")
# The launcher's own locals
LAUNCHER_LOCALS = ("tile_elems", "num_warps", "num_stages", "num_ctas", "args", "known",
                   "constexprs", "compiled", "grid_x", "grid_y", "grid_z", "grid_rest",
                   "blocks", "walked", "blocks_per_program", "ptx_options", "float_dtypes",
                   "row_tiles")
# Kernel parameters of a coarsened kernel (coarsen.py): the launch's own grid size along axis 0
# and the number of blocks each program runs
GRID_X, PER_PROGRAM = "grid_x", "BLOCKS_PER_PROGRAM"
# Kernel parameters and loop names of a walked kernel (coarsen.persistent_body), per grid axis
WALKED_GRID, WALKED_BLOCKS = ("grid_x", "grid_y", "grid_z"), ("block_x", "block_y", "block_z")


def _still_called(helper: str, kernel_texts: list, mc) -> bool:
    """Whether a kernel's text or another helper's body calls `helper` by its own name (after
    the persistent walk called its `_at_block` copy instead; coarsen.py)."""
    return any(called_helpers(t, (helper,)) for t in kernel_texts) or any(
        called_helpers(mc.helper_specs[spec][1].text, (helper,))
        for spec in mc.helper_order if spec != helper)


def _tuple_code(items: list) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def launcher_tile_elems(fn: FunctionInfo, unit) -> list:
    """The kernel's tile sizes the launcher can evaluate (constants and constexprs)."""
    constexprs = {p.name for p in fn.params if p.kind == "constexpr"}
    elems = []
    for e in unit.tile_elems:
        if source_identifiers(e) <= constexprs and e not in elems:
            elems.append(e)
    return elems


def launcher_signature(pm: ParsedModule, fn: FunctionInfo) -> tuple:
    """(parameters, lines unpacking tuple parameters, spellings of its locals) of the
    launcher of kernel `fn`."""
    names = pm.names
    h = {n: names[n] for n in LAUNCHER_HELPERS}
    # The launcher's own locals avoid every name of the module (hint expressions may read
    # module globals); its `stream` and `grid` parameters only the kernel's parameters, so
    # they keep their usual spelling unless a kernel parameter is called that.
    local = {n: names[n] for n in LAUNCHER_LOCALS}
    # tuple parameters split into their parts (tuple_params.py): the launcher takes the tuple
    leaf_of = {leaf: (name, path) for name, parts in fn.tuple_params for leaf, path in parts}
    signature, unpack = [], []
    for p in fn.params:
        if p.name not in leaf_of:
            signature.append(p.name)
            continue
        name, path = leaf_of[p.name]
        if name not in signature:
            signature.append(name)
        unpack.append(f"{p.name} = len({name})" if path == ("len",) else
                      f"{p.name} = {name}" + "".join(f"[{i}]" for i in path))
    taken = {p.name for p in fn.params} | set(signature) | set(local.values()) | set(h.values())
    for n in ("stream", "grid"):
        spelled, k = n, 0
        while spelled in taken:
            k += 1
            spelled = f"{n}_{k}"
        local[n] = spelled
        taken.add(spelled)
    return signature, unpack, local


def render_rank_dispatch(pm: ParsedModule, fn: FunctionInfo, variants: list,
                         hinted: bool) -> str:
    """The launcher of a kernel translated once per rank combination of the arrays it indexes
    with several ranks (`variants`: [(((array, rank), ...), variant kernel name)]): it runs
    the variant for its arguments' ranks."""
    names = pm.names
    signature, _, local = launcher_signature(pm, fn)
    arrays = [a for a, _ in variants[0][0]]
    launch = names[launcher_name(fn.name)]
    table = names[f"_{fn.name.lstrip('_').upper()}_BY_RANK"]
    key = _tuple_code([f"len({a}.shape)" for a in arrays])
    combos = [_tuple_code([str(r) for _, r in chosen]) for chosen, _ in variants]
    entries = "".join(f"    {c}: {names[launcher_name(v)]},\n"
                      for c, (_, v) in zip(combos, variants))
    params = ", ".join([local["stream"], local["grid"]] + signature)
    shown = ", ".join(f"`{a}`" for a in arrays)
    ranks = ", ".join(combos)
    got = ", ".join(f"{{{a}.shape}}" for a in arrays)
    comment = [f"# `{fn.name}` indexes {shown} with several ranks: one Triton kernel per rank",
               f"# combination of {_tuple_code(arrays)}, launched for the ranks of the arrays "
               "passed"]
    lines = [
        f"{table} = {{\n{entries}}}",
        "",
        "",
        f"def {launch}({params}, *, hints=None):",
        f'    """Run `{fn.name}` like `ct.launch({local["stream"]}, {local["grid"]}, {fn.name}, '
        f'({", ".join(signature)}{"," if len(signature) == 1 else ""}))`, through the '
        f'translation for the ranks of {shown}."""',
        f"    launcher = {table}.get({key})",
        "    if launcher is None:",
        "        raise ValueError(",
        f'            f"{fn.name}: {shown} must have ranks {ranks}, got shapes {got}"',
        "        )",
        f"    launcher({params}, hints=hints)",
    ]
    if hinted:
        lines += ["", "", f"{launch}.hints = {names[launcher_name(variants[0][1])]}.hints"]
    lines += ["", "", f"# `{fn.name}` as a value of host code (a kernel chosen at run time)",
              f"{fn.name} = {launch}"]
    return comment, "\n".join(lines) + "\n"


def callee_asserts(unit) -> bool:
    """Whether a function the kernel calls has a tl.static_assert (a branch naming a construct
    the installed cuda-tile lacks, a user's ct.static_assert): Triton's error for it names only
    the call, so the launcher raises the function's own error instead."""
    return unit.asserting_callees or any("tl.static_assert(" in s
                                         for s in unit.helper_sources.values())


def render_launcher(pm: ParsedModule, fn: FunctionInfo, unit, hints: dict,
                    coarse: bool = False, persistent: int = 0, direct: bool = False) -> str:
    """The host launcher of kernel `fn`. It launches through Triton's public `kernel[grid](...)`;
    with `direct` (a shared runtime, which checks the Triton version) a launch repeating an
    earlier one's specialization may take the runtime's direct path instead."""
    names = pm.names
    arrays = [p.name for p in fn.params if p.kind == "array"]
    ranks = {p.name: p.array.rank for p in fn.params if p.kind == "array" and not p.array.flat}
    lists = [(p.name, p.array_list) for p in fn.params if p.kind == "array_list"]
    # arrays read only under branches on constants: a launch that does not take those
    # branches may pass any array there (read_guards.py)
    guards = read_guards(fn.node, [a for a in ranks if ranks[a]],
                         [p.name for p in fn.params if p.kind == "constexpr"])
    unread = [(a, negation(guards[a]), ranks[a]) for a in arrays if a in guards]
    h = {n: names[n] for n in LAUNCHER_HELPERS}
    signature, unpack, local = launcher_signature(pm, fn)
    call_args = []
    for p in fn.params:
        if p.kind == "array" and p.array.flat:   # any shape: one dimension of numel elements
            call_args.append(f"{p.name}, {p.name}.numel(), 1")
        elif p.kind == "array":
            call_args.append(f"{p.name}, *{p.name}.shape, *{p.name}.stride()")
        elif p.kind == "array_list":
            call_args.append(f"*{p.name}_tables")
        else:  # constexprs too: positional, in the kernel's parameter order
            call_args.append(p.name)
    # TMA descriptors of 2-D tiles that feed matrix products (lower/tma.py): built per launch,
    # None where the array does not allow one (the kernel then loads through pointers)
    tma = [(desc, array, "(" + ", ".join(block) + ")") for array, block, desc in unit.tma]
    call_args += [desc for desc, _, _ in tma]
    # a flat array (any shape, one dimension of numel elements): unit stride, no multiple
    constexpr_args = [f"{multiples_name(p.array)}="
                      + ("(1, 1)" if p.array.flat else f"{h['_multiples']}({p.name})")
                      for p in fn.params if p.kind == "array" and p.array.rank]
    if persistent:     # the walk over blocks: flattened when the launcher shrank the grid
        constexpr_args.append(f"{unit.flatten}={local['walked']}")
    elif unit.flatten:  # a persistent loop over TMA products: flattened when they are TMA
        constexpr_args.append(f"{unit.flatten}=" + " or ".join(f"{d} is not None"
                                                               for d, _, _ in tma))
    # loops walking one row keep its tiles in registers (lower/resident_rows.py): per group,
    # the launcher's call computing (tile count or 0, bytes kept), and the kernel's constexpr
    row_tiles = []
    for i, (constexpr, count, cached) in enumerate(unit.row_tiles):
        if cached:
            tile_bytes = " + ".join(f"{a}.element_size() * " + (f"({e})" if " " in e else e)
                                   for a, e in cached)
            checks = [f"({a}, {_tuple_code([o for o in arrays if o != a])})" for a, _ in cached]
            row_tiles.append(f"{h['_row_tiles']}({count}, {tile_bytes}, {_tuple_code(checks)})")
        else:               # nothing to keep: the loops as written
            row_tiles.append("(0, 0)")
        constexpr_args.append(f"{constexpr}={local['row_tiles']}[{i}][0]")
    if coarse:      # the kernel's extra arguments (coarsen.py)
        call_args.append(local["grid_x"])
        constexpr_args.append(f"{names[PER_PROGRAM]}={local['blocks_per_program']}")
    if persistent:  # the grid's extents along the axes the kernel walks (coarsen.py)
        call_args += [local[g] for g in WALKED_GRID[:persistent]]
    # What the direct launch path keys on: everything Triton specializes on (dtypes, 16-byte
    # alignment of pointers, integer values, constexprs) and everything the launcher's own
    # choices read (shapes, strides, constants, num_ctas). Lists of arrays take the plain path.
    known = []
    for p in (fn.params if direct else ()):
        if p.kind == "array":
            known.append(f"{p.name}.dtype, {p.name}.data_ptr() & 15, {p.name}.shape, "
                         f"{p.name}.stride()")
        elif p.kind == "constexpr":
            known.append(p.name)
        elif p.kind == "scalar":
            known.append(f"{h['_scalar_key']}({p.name})")
        else:
            known = []
            break
    if known:
        known.append(local["num_ctas"])
        if persistent:  # (whether the blocks are walked, which also reads the grid)
            known.append(local["walked"])
        if row_tiles:   # (the overlap of arrays, which the key does not hold otherwise)
            known.append(local["row_tiles"])
    # tf32 products whose B operand (and A, for the row count) are loaded straight from array
    # parameters (the mma pattern notes them): B gets a K-major copy when the kernel only
    # reads it
    k_major, seen = [], set()
    pairs = getattr(unit, "k_major", ())
    readers = read_only_arrays(pm, fn, set(arrays)) if pairs else set()
    for b, a in pairs:
        if b in readers and a in ranks and a != b and b not in seen:  # x @ x: A stays
            seen.add(b)
            others = [x for x in arrays if x != b]
            k_major.append((b, f"{a}.shape[-2]", ", ".join(others) + (
                "," if len(others) == 1 else "")))
    elems = launcher_tile_elems(fn, unit)
    return _env().get_template("launcher.py.j2").render(
        kernel=fn.name, launch=names[launcher_name(fn.name)], h=h, v=local,
        params=signature, unpack=unpack, arrays=arrays, ranks=ranks, unread=unread,
        call_args=call_args, constexpr_args=constexpr_args, known=known, k_major=k_major,
        tma=tma,
        tile_elems=elems, uses_dot=unit.uses_dot, persistent_dots=unit.persistent_dots,
        fma_dots=unit.fma_dots, tf32_dots=unit.tf32_dots, callee_asserts=callee_asserts(unit),
        coarse=coarse, row_tiles=row_tiles, persistent=persistent,
        lists=[(n, L.rank) for n, L in lists], use_int64=USE_INT64,
        int64_args=arrays + [f"*{n}" for n, _ in lists], hints=hints,
        # a launch can pass num_worker_warps only where the module spells it (the decorator,
        # replace_hints, a tuning space): other launchers leave the warp choice to themselves
        worker_warps="num_worker_warps" in pm.source.text).rstrip("\n")


class _HostRewriter(cst.CSTTransformer):
    """Rewrites the module around the kernels: each kernel becomes its generated statements,
    the first cuda.tile import an anchor where the imports go (render_module)."""

    def __init__(self, pm: ParsedModule, kernels: dict, device_funcs: dict, uncalled: dict):
        self.pm = pm
        self.names = pm.names
        self.kernels = kernels  # kernel name -> its generated statements (kernel + launcher)
        self.device_funcs = device_funcs  # helper name -> its generated @triton.jit statements
        self.uncalled = uncalled  # @ct.function name -> comment saying it was not translated
        self.uncalled_markers: dict = {}  # marker statement -> that comment
        self.method_markers: dict = {}  # the same, for a dataclass method (leave_ClassDef)
        self.import_anchor = None
        self.depth = 0
        self.class_depth = 0    # inside a class body: a method is not a module-level kernel
        self.errors = []
        self.host_features: set = set()
        self.introduced: set = set()  # generated names the rewritten host code refers to
        self.linked_helpers: set = set()   # helpers linked from other modules (packages.py)
        self.constexpr_functions: set = set()  # run at compile time: @triton.constexpr_function
        self.nested: dict = {}     # id(kernel def inside a host function) -> NestedKernel
        self.hoisted_defs: dict = {}   # id(tile helper def in a host function) -> its helper
        self.columns = [0]  # where the current block's statements start
        self.called: set = set()       # id() of the callee of each call in host code
        self.annotations = 0           # inside an annotation (which becomes a string)
        self.nested_refs: set = set()  # id() of ct-resolving bases of longer ct references
        # --keep-unconverted (keep.py): failed kernels, the tile functions kept with them, and
        # the diagnostics of host lines kept as cuTile code
        self.keeping = False
        self.kept: dict = {}
        self.kept_functions: set = set()
        self.kept_nodes: set = set()
        self.notes: list = []
        self.statement_errors: list = []   # len(self.errors) where each open statement began
        self.host_reads = None     # names host code reads (_host_reads)

    def keep(self, kept: dict, tile_functions: set, nodes: set) -> None:
        self.kept, self.kept_functions, self.kept_nodes = kept, tile_functions, nodes
        self.keeping = True

    def _kept_statement(self, original, updated):
        """In keep mode, a statement whose translation failed stays as written, under a
        note per diagnostic; otherwise `updated`."""
        start = self.statement_errors.pop()
        if not self.keeping or len(self.errors) == start:
            return updated
        new, self.errors = self.errors[start:], self.errors[:start]
        self.notes += [e.diagnostic for e in new]
        return keep_mod.with_notes(original, [e.diagnostic for e in new])

    def visit_IndentedBlock(self, node):
        self.columns.append(self.columns[-1] + len(node.indent if node.indent is not None
                                                  else "    "))

    def leave_IndentedBlock(self, original, updated):
        self.columns.pop()
        return updated

    def on_leave(self, original, updated):
        try:
            return super().on_leave(original, updated)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this node
            raise LocatedFailure(original, e) from e

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.statement_errors.append(len(self.errors))
        if id(node) in self.kept_nodes or (self.depth == 1 and (
                node.name.value in self.kept_functions and node.name.value not in
                self.device_funcs)) or (self.keeping and self.depth > 1 and any(
                    keep_mod.is_cutile_decorator(self.pm, d) for d in node.decorators)
                    and id(node) not in self.nested):
            return False        # cuTile code kept as it is (--keep-unconverted)
        if id(node) in self.pm.device_methods:
            return False        # a dataclass method kernels call: device code (records.py)
        if id(node) in self.hoisted_defs:
            return False        # a tile helper of hoisted kernels: module level now
        if (self.depth > 1 or self.class_depth) and id(node) not in self.nested:
            from ..recognize import tile_code_names
            role = next((r for r in (self.pm.decorator_role(d)[0] for d in node.decorators)
                         if r), None)
            if role is None and self.class_depth and self.depth == 1 \
                    and tile_code_names(self.pm, node):
                role = "function"   # tile code in a class body (handed to ct.kernel later)
            if role is not None:
                # tile code that convert cannot hoist (deeper nesting, in a class, a nested
                # @ct.function): one diagnostic at its definition, not one per ct.* call
                self.errors.append(self.pm.error(
                    node.name, "T2T109", f"{'kernel' if role == 'kernel' else 'tile function'} "
                    f"`{node.name.value}` is defined where convert cannot translate it",
                    help="convert translates kernels and helpers at module level and kernels "
                         "defined directly in a module-level function; move it there, or "
                         "translate it at run time with tile2triton.translate_kernel"))
                return False
        name = node.name.value
        return name not in self.kernels and name not in self.device_funcs \
            and name not in self.uncalled and id(node) not in self.nested

    def _nested_kernel(self, original, nk):
        """A kernel defined in a host function becomes its (hoisted) launcher there, with the
        host function's values of the kernel's closure names bound (see rewrite/host_kernels.py)."""
        self.host_features.add("launch")
        launcher = cst.Name(self.names[launcher_name(nk.hoisted)])
        value = launcher
        if nk.outer_kind == "class":    # `K.negate` and `self.negate` are the launcher
            value = cst.Call(cst.Name("staticmethod"), [cst.Arg(launcher)])
        if nk.closure:
            self.introduced.add("functools")
            def bound(c):     # a function value the kernel calls: passed by its name
                if not nk.choices.get(c):
                    return cst.Name(c)
                self.host_features.add("choice")
                self.introduced.add("_choice_name")
                return cst.Call(cst.Name(self.names["_choice_name"]), [cst.Arg(cst.Name(c))])
            value = cst.Call(cst.parse_expression("functools.partial"), [cst.Arg(launcher)] + [
                cst.Arg(bound(c), keyword=cst.Name(c), equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))) for c in nk.closure])
        return cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(nk.name))], value)],
            leading_lines=original.leading_lines)

    def visit_ClassDef(self, node):
        self.statement_errors.append(len(self.errors))
        self.class_depth += 1

    def leave_ClassDef(self, original, updated):
        """A dataclass whose methods kernels call keeps its fields and other methods; each
        translated method leaves a comment naming its device helpers (records.py). In keep
        mode a class whose own line failed (`class K(ct._cext.TileDispatcher)`) keeps that
        line as written (its body is translated statement by statement). Kernels of the
        class's body (rewrite/host_kernels.py) go before it, hoisted."""
        self.class_depth -= 1
        cls = self._class_body(original, updated)
        hoisted = [k for k in self.nested.values() if k.outer is original
                   or k.owner is original]       # (its body's kernels, its methods' kernels)
        if not hoisted or self.depth or self.class_depth:
            return cls
        blank = [cst.EmptyLine(), cst.EmptyLine()]
        out = []
        for k in hoisted:
            stmts = self.kernels[k.hoisted]
            out += [stmts[0].with_changes(leading_lines=blank)] + list(stmts[1:])
        return cst.FlattenSentinel(
            out + [cls.with_changes(leading_lines=list(cls.leading_lines) or blank)])

    def _class_body(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is not None:
            updated = updated.with_changes(
                leading_lines=kept.leading_lines, bases=original.bases,
                keywords=original.keywords, decorators=original.decorators)
        if not self.method_markers or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body, carry = [], []
        for stmt in updated.body.body:
            comment = self.method_markers.pop(stmt, None)
            if comment is not None:
                carry += [cst.EmptyLine(comment=cst.Comment(comment))]
                continue
            if carry:
                stmt = stmt.with_changes(leading_lines=list(stmt.leading_lines) + carry)
                carry = []
            body.append(stmt)
        if not body:
            body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carry))
            carry = []
        return updated.with_changes(body=updated.body.with_changes(
            body=body, footer=carry + list(updated.body.footer)))

    def leave_FunctionDef(self, original, updated):
        self.depth -= 1
        if id(original) in self.kept_nodes:
            self.statement_errors.pop()
            return keep_mod.kept_kernel(original, self.kept.get(original.name.value, []))
        kept_line = False
        if self.keeping:   # a host function's own line (decorators, defaults) failed
            kept = self._kept_statement(original, None)
            if kept is not None:    # (kernels hoisted from it still go before it)
                updated, kept_line = kept.with_changes(body=updated.body), True
        else:
            self.statement_errors.pop()
        if id(original) in self.pm.device_methods:
            cls, helpers = self.pm.device_methods[id(original)]
            marker = cst.SimpleStatementLine([cst.Pass()])
            names = ", ".join(f"`{h}`" for h in helpers)
            what = f"`{cls}.{original.name.value}`"
            self.method_markers[marker] = (
                f"# {what} is tile code that no kernel here calls: not translated"
                if not helpers else
                f"# {what} is a context manager, inlined where kernels enter it with `with`"
                if all(h in self.pm.context_managers for h in helpers) else
                f"# {what} runs in kernels: translated as {names}")
            return marker
        nk = self.nested.get(id(original))
        if nk is not None:
            return self._nested_kernel(original, nk)
        if id(original) in self.hoisted_defs:
            return cst.SimpleStatementLine([cst.Pass()], leading_lines=list(
                original.leading_lines) + [cst.EmptyLine(comment=cst.Comment(
                    f"# `{original.name.value}`: tile code of the kernels defined here, "
                    "translated with them at module level"))])
        hoisted = [k for k in self.nested.values() if k.outer is original and k.owner is None]
        if self.depth == 0 and hoisted:
            blank = [cst.EmptyLine(), cst.EmptyLine()]
            out = []
            for k in hoisted:       # the hoisted kernel and its launcher, before the function
                stmts = self.kernels[k.hoisted]
                out += [stmts[0].with_changes(leading_lines=blank)] + list(stmts[1:])
            return cst.FlattenSentinel(
                out + [updated.with_changes(leading_lines=list(updated.leading_lines) or blank)])
        name = original.name.value
        if self.depth or kept_line:
            return updated
        stmts = self.kernels.get(name) or self.device_funcs.get(name)
        if stmts:
            first = stmts[0].with_changes(leading_lines=original.leading_lines)
            if isinstance(first, cst.FunctionDef) and name in self.kernels:
                first = first.with_changes(
                    decorators=self._user_decorators(original) + list(first.decorators))
            elif isinstance(first, cst.FunctionDef) and (user := self._user_decorators(original)):
                # a kernel calls its device helpers directly: a decorator wrapping one would
                # make the Triton kernel call a Python wrapper, which Triton cannot compile
                dropped = ", ".join(f"`@{self.pm.module.code_for_node(d.decorator)}`"
                                    for d in user)
                first = first.with_changes(leading_lines=list(first.leading_lines) + [
                    cst.EmptyLine(comment=cst.Comment(
                        f"# {dropped} is left out: Triton kernels call their helpers directly"))])
            copy = []
            if name in self.device_funcs and name not in self.kernels \
                    and self._host_runnable(name):
                copy = [self._host_copy(updated, self.names[f"{name}_host"]).with_changes(
                    leading_lines=[cst.EmptyLine(), cst.EmptyLine(), cst.EmptyLine(
                        comment=cst.Comment(f"# `{name}` as host code calls it (plain Python)"))])]
            return cst.FlattenSentinel([first] + list(stmts[1:]) + copy)
        if name in self.uncalled and self._host_runnable(name):
            # no kernel calls it, host code does: it stays, as plain Python
            return self._host_copy(updated, name)
        if name in self.uncalled:
            marker = cst.SimpleStatementLine([cst.Pass()], leading_lines=original.leading_lines)
            self.uncalled_markers[marker] = self.uncalled[name]
            return marker
        if name in self.constexpr_functions:
            # plain Python that kernels call on compile-time values: Triton runs it while
            # compiling; host code calls it as before
            return updated.with_changes(decorators=[cst.Decorator(
                cst.parse_expression("triton.constexpr_function"))] + list(updated.decorators))
        return updated

    def _user_decorators(self, fdef) -> list:
        """The decorators of a kernel or tile function that are not cuTile's, kept above
        `@triton.jit` (a registration decorator then registers the Triton kernel). One below
        the cuTile decorator has changed the function cuTile compiled: refused."""
        kept, below = [], False
        for d in fdef.decorators:
            if self.pm.decorator_role(d)[0] is not None:
                below = True
            elif below:
                self.errors.append(self.pm.error(
                    d, "T2T109", "a decorator below the cuTile decorator changes the function "
                    "that cuTile compiles, which has no Triton translation",
                    help="put the decorator above the cuTile decorator (it then applies to the "
                         "kernel), or remove it"))
            else:
                kept.append(d)
        return kept

    # --keep-unconverted: a compound statement whose header failed keeps the header as
    # written (its body is translated statement by statement)
    _HEADERS = {"If": ("test",), "While": ("test",), "For": ("target", "iter"),
                "With": ("items",)}

    def _visit_compound(self, node):
        self.statement_errors.append(len(self.errors))

    def _leave_compound(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is None:
            return updated
        fields = self._HEADERS[type(original).__name__]
        return updated.with_changes(leading_lines=kept.leading_lines,
                                    **{f: getattr(original, f) for f in fields})

    visit_If = visit_While = visit_For = visit_With = _visit_compound
    leave_If = leave_While = leave_For = leave_With = _leave_compound

    def visit_SimpleStatementLine(self, node):
        self.statement_errors.append(len(self.errors))

    def leave_SimpleStatementLine(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is not None:
            return kept
        keep = []
        replaced = False
        for small in updated.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and self._is_cuda_tile_import(
                    small) and not self.keeping:      # (kept code needs cuda.tile)
                replaced = True
                continue
            if isinstance(small, cst.ImportFrom) and self.depth == 0:
                linked = self._link_imports(small)
                if linked is not small:
                    replaced = True
                    if linked is None:
                        continue
                    small = linked
            if self._dropped(small):
                replaced = True
                continue
            keep.append(small)
        if not replaced:
            if updated is not original and not updated.deep_equals(original):
                # host code the translation rewrote (`ct.launch(...)` -> `launch_k(...)`):
                # laid out like generated code; the user's other lines stay as written
                return layout_simple(updated, self.columns[-1])
            return updated
        if not keep:
            if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in original.body) \
                    and self.import_anchor is None and self.depth == 0:
                self.import_anchor = cst.SimpleStatementLine(
                    [cst.Pass()], leading_lines=original.leading_lines)
                return self.import_anchor
            return cst.RemovalSentinel.REMOVE
        return updated.with_changes(body=keep)

    def _dropped(self, small) -> bool:
        """A module-level cuTile alias the translator folds into the kernels (`ConstInt =
        ct.Constant[int]`), or a host function's cuTile constant folded into a kernel hoisted
        from it: the translated module has no line for it."""
        if self.keeping:
            return False        # (kept code reads them)
        if self.depth == 0 and isinstance(small, (cst.Assign, cst.AnnAssign)) \
                and small.value is not None and self._is_cutile_value(small.value):
            return not self._host_dtype_alias(small)
        return self.depth == 1 and isinstance(small, cst.Assign) and len(small.targets) == 1 \
            and isinstance(small.targets[0].target, cst.Name) \
            and self._is_cutile_value(small.value) and any(
                small.targets[0].target.value in k.folded for k in self.nested.values())

    def _host_runnable(self, name: str) -> bool:
        """Whether host code calls tile function `name` and it can run there: it reads no
        cuda.tile name and calls no other tile function (plain Python math on its arguments,
        which host code passes host values)."""
        if name not in self._host_reads() or name not in self.pm.functions:
            return False
        fdef = self.pm.functions[name]
        fdef = self.pm.origins.get(fdef, fdef)
        tile = set(self.device_funcs) | set(self.uncalled) | set(self.kernels)
        for sub in _walk(fdef.body):
            if isinstance(sub, (cst.Name, cst.Attribute)) and (
                    self.pm.ct_name(sub) is not None or self.pm.qualname(sub) == "cuda.tile"):
                return False
            if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Name) \
                    and sub.func.value in tile:
                return False
        return not any(self.pm.ct_name(n) is not None for p in fdef.params.params
                       if p.annotation is not None for n in _walk(p.annotation.annotation)
                       if isinstance(n, (cst.Name, cst.Attribute)))

    def _host_copy(self, fdef, name: str):
        """Tile function `fdef` as a plain Python function `name` (its cuTile decorator off)."""
        return fdef.with_changes(name=cst.Name(name), decorators=[
            d for d in fdef.decorators if self.pm.decorator_role(d)[0] is None])

    def _host_dtype_alias(self, small) -> bool:
        """`DT = ct.float16` (or a tuple, list or dict of dtypes) that host code reads too:
        the module keeps it, with Triton's dtypes (the kernels fold it all the same)."""
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) \
            else [small.target]
        if not all(isinstance(t, cst.Name) for t in targets) or not any(
                t.value in self._host_reads() for t in targets):
            return False
        for sub in _walk(small.value):
            name = self.pm.ct_name(sub) if isinstance(sub, (cst.Name, cst.Attribute)) else None
            if name is not None and (DTYPES.get(name) is None
                                     or DTYPES[name].triton is None):
                return False
        return True

    def _host_reads(self) -> set:
        """Names host code reads: outside the module's kernels and tile functions."""
        if self.host_reads is None:
            import ast
            device = set(self.kernels) | set(self.device_funcs) | set(self.uncalled) \
                | set(self.kept) | set(self.kept_functions)
            self.host_reads = set()
            try:
                tree = ast.parse(self.pm.source.text)
            except (SyntaxError, ValueError, RecursionError):
                return self.host_reads
            for stmt in tree.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and stmt.name in device:
                    continue
                self.host_reads |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                                    and isinstance(n.ctx, ast.Load)}
        return self.host_reads

    def visit_Assign(self, node):
        if self._dropped(node) or (self.keeping and self.depth == 0 and
                                   self._is_cutile_value(node.value)):
            return False        # (its cuTile names are not host code)
        self._refuse_ct_targets([t.target for t in node.targets])
        return True

    def visit_AnnAssign(self, node):
        if self._dropped(node) or (self.keeping and self.depth == 0 and node.value is not None
                                   and self._is_cutile_value(node.value)):
            return False
        self._refuse_ct_targets([node.target])
        return True

    def visit_AugAssign(self, node):
        self._refuse_ct_targets([node.target])

    def visit_Del(self, node):
        self._refuse_ct_targets([node.target])

    def _refuse_ct_targets(self, targets) -> None:
        """`ct.launch = patched` changes cuda.tile itself, which the translated module no
        longer imports."""
        for target in targets:
            for t in ([e.value for e in target.elements]
                      if isinstance(target, (cst.Tuple, cst.List)) else [target]):
                name = self.pm.ct_name(t) if isinstance(t, cst.Attribute) else None
                if name is not None:
                    self.nested_refs.add(id(t))
                    self.errors.append(self.pm.error(
                        t, "T2T109", f"host code changes ct.{name}; the translated module "
                        "does not import cuda.tile, so there is nothing to change",
                        help="call your own function where the code relies on the change "
                             "(the translated launch calls go to `launch_<kernel>` "
                             "functions), or keep this code in a module that is not "
                             "converted"))

    def visit_Import(self, node):
        return False            # (an import's names are not references)

    def visit_ImportFrom(self, node):
        return False

    def visit_Call(self, node):
        self.called.add(id(node.func))
        if self._getattr_of_module(node) is not None:
            self.nested_refs.add(id(node.args[0].value))

    def visit_Attribute(self, node):
        self.nested_refs.add(id(node.attr))     # (`np.float32` reads no name `float32`)
        if self.pm.ct_name(node) is not None or self.pm.qualname(node) == "cuda.tile":
            self.nested_refs.add(id(node.value))    # (the longer reference is translated)

    def visit_Arg(self, node):
        if node.keyword is not None:            # (`f(float32=...)` neither)
            self.nested_refs.add(id(node.keyword))

    def visit_Annotation(self, node):
        self.annotations += 1

    def _getattr_of_module(self, call):
        """`attr` of `getattr(ct, "attr")` (the same as `ct.attr`), else None."""
        if isinstance(call.func, cst.Name) and call.func.value == "getattr" \
                and "getattr" not in self.pm.globals and "getattr" not in self.pm.functions \
                and len(call.args) == 2 and all(a.keyword is None and not a.star
                                                for a in call.args) \
                and self.pm.qualname(call.args[0].value) == "cuda.tile" \
                and isinstance(call.args[1].value, cst.SimpleString):
            attr = call.args[1].value.evaluated_value
            return attr if isinstance(attr, str) and attr.isidentifier() else None
        return None

    def _host_reference(self, original, updated, where=None):
        """A cuda.tile name that host code reads: what the translated module reads instead,
        or a diagnostic. Host code keeps a closed set: launch (as a value: the run-time
        `_launch`), the HOST_NAMES, and dtypes (Triton's). Callees are left to leave_Call."""
        where = where if where is not None else original
        if id(original) in self.nested_refs:
            return updated
        name = self.pm.ct_name(original)
        if name is None:
            if self.pm.qualname(original) == "cuda.tile" and not self.annotations:
                self.errors.append(self.pm.error(
                    where, "T2T109", "host code uses the cuda.tile module as a value; the "
                    "translated module does not import cuda.tile",
                    help="refer to the cuTile names you need directly (ct.launch, ct.cdiv, "
                         "...), which convert translates"))
            return updated
        if name in self.HOST_NAMES:
            return self._host_name(name)
        if self.annotations or id(original) in self.called:
            return updated
        if name == "launch":
            self.host_features.add("launch")
            self.introduced.add("_launch")
            return cst.Name(self.names["_launch"])
        dtype = DTYPES.get(name)
        if dtype is not None and dtype.triton is not None:
            return cst.parse_expression(dtype.triton)
        if f"cuda.tile.{name}" in self._choices():
            # a construct handed to a kernel factory as a value: its name, which the
            # kernel's translation chooses by (host_kernels.choice_candidates)
            return cst.SimpleString(f'"{name}"')
        self.errors.append(self.pm.error(
            where, "T2T109", f"host code uses ct.{name}, which has no translation outside "
            "kernels", help=_HOST_HELP))
        return updated

    def _choices(self) -> set:
        """The function values that kernels of host functions choose among."""
        return {c for k in self.nested.values() for cs in k.choices.values() for c in cs}

    def _link_imports(self, node: cst.ImportFrom):
        """`from mypkg.tiles import helper`: the helper is now a local @triton.jit function, so
        its name leaves the import; `from mypkg.kern import kernel` also imports the kernel's
        launcher (packages.py). Returns the statement, or None when no name is left."""
        if isinstance(node.names, cst.ImportStar):
            return node
        foreign, fkernels = self.pm.foreign, self.pm.foreign_kernels
        names = []
        for a in node.names:
            local = a.asname.name.value if a.asname else a.name.value
            if local in foreign and local in self.linked_helpers:
                continue
            names.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            if local in fkernels and local not in self.pm.kept_foreign:
                kname = fkernels[local][1]
                alias = None if local == kname else cst.AsName(cst.Name(launcher_name(local)))
                names.append(cst.ImportAlias(cst.Name(launcher_name(kname)), asname=alias))
        if not names:
            return None
        return node.with_changes(names=names)

    def _is_cuda_tile_import(self, node) -> bool:
        if isinstance(node, cst.Import):
            names = [dotted_name(a.name) for a in node.names]
            return all(n == "cuda" or n.startswith("cuda.tile") for n in names)
        mod = dotted_name(node.module) if node.module else ""
        return mod == "cuda.tile" or mod.startswith("cuda.tile.") or (
            mod == "cuda" and not isinstance(node.names, cst.ImportStar)
            and all(a.name.value == "tile" for a in node.names))

    def _is_cutile_value(self, expr) -> bool:
        """Whether `expr` is a cuTile value only kernels give a meaning to (`ct.Constant[int]`,
        `ct.PaddingMode.ZERO`), which the translator folds into them. One that also reads a
        host function (ct.launch, ct.cdiv) or cuda.tile's private modules (`_cext.launch`)
        is host code, translated or refused where it is."""
        stack, folded = [expr], False
        while stack:
            sub = stack.pop()
            name = self.pm.ct_name(sub) if isinstance(sub, (cst.Name, cst.Attribute)) else None
            if name is not None:
                if name in self.HOST_NAMES or name in ("launch", "kernel") \
                        or name.startswith("_") or f"cuda.tile.{name}" in self._choices():
                    return False        # (a construct handed to a kernel factory: its name)
                folded = True
                continue
            stack.extend(sub.children)
        return folded

    # host-side cuTile names and what they become in the translated module
    HOST_NAMES = {"ByTarget": "_ByTarget", "tune.exhaustive_search": "_exhaustive_search",
                  "tune.TuningResult": "_TuningResult", "tune.Measurement": "_Measurement",
                  "cdiv": "triton.cdiv"}

    def _host_name(self, name: str):
        self.host_features.add(name)
        if name.startswith("tune."):   # (the tuning helpers come as one block)
            self.host_features.add("tune.exhaustive_search")
        target = self.HOST_NAMES[name]
        if "." in target:
            return cst.parse_expression(target)
        self.introduced.add(target)
        return cst.Name(self.names[target])

    def leave_Annotation(self, original, updated):
        """Host annotations naming cuTile types (`compute_type: ct.DType`, `k: ct.kernel`)
        become strings: they document the type without importing cuda.tile."""
        self.annotations -= 1
        if any(isinstance(n, (cst.Name, cst.Attribute)) and self.pm.ct_name(n) is not None
               for n in _walk(updated.annotation)):     # (host names are already rewritten)
            code = self.pm.module.code_for_node(original.annotation)
            quote = "'" if '"' in code else '"'
            return updated.with_changes(annotation=cst.SimpleString(f"{quote}{code}{quote}"))
        return updated

    def leave_Attribute(self, original, updated):
        if original.attr.value == "replace_hints" and id(original) not in self.called:
            # `kernel.replace_hints` as a value: the function that gives the hints
            self.host_features.add("replace_hints")
            self.introduced |= {"_with_hints", "functools"}
            return cst.Call(cst.parse_expression("functools.partial"), [
                cst.Arg(cst.Name(self.names["_with_hints"])), cst.Arg(updated.value)])
        return self._host_reference(original, updated)

    def leave_Name(self, original, updated):
        return self._host_reference(original, updated)  # `from cuda.tile import ByTarget`

    def leave_Call(self, original, updated):
        func = original.func
        # kernel.replace_hints(...): the kernel's launcher with other hints; a kernel reached
        # through a variable, a container or a call is found at run time (_launcher_of)
        if isinstance(func, cst.Attribute) and func.attr.value == "replace_hints":
            self.host_features.add("replace_hints")
            self.introduced.add("_with_hints")
            if isinstance(func.value, cst.Name) and func.value.value in self.kept:
                return updated      # a kept cuTile kernel's own replace_hints
            known = isinstance(func.value, cst.Name) and func.value.value in self.kernels
            target = cst.Name(self.names[launcher_name(func.value.value)]) if known \
                else updated.func.value
            return updated.with_changes(func=cst.Name(self.names["_with_hints"]),
                                        args=[cst.Arg(target)] + list(updated.args))
        attr = self._getattr_of_module(original)
        if attr is not None:    # getattr(ct, "launch") is ct.launch
            ref = cst.Attribute(original.args[0].value, cst.Name(attr))
            return self._host_reference(ref, ref, where=original)
        if isinstance(func, cst.Name) and func.value in self.device_funcs \
                and func.value not in self.kernels:
            if self._host_runnable(func.value):
                # plain Python math: the host calls a copy of it without the cuTile decorator
                return updated.with_changes(func=cst.Name(self.names[f"{func.value}_host"]))
            self.errors.append(self.pm.error(
                original, "T2T109", f"host code calls `{func.value}`, a tile function: in "
                "the Triton module it is a @triton.jit function, which only kernels can call",
                help=f"`{func.value}` uses cuda.tile, so it cannot run on the host; call a "
                     "plain Python function from host code"))
            return updated
        name = self.pm.ct_name(func)
        if name is None or name in self.HOST_NAMES:
            return updated
        if name in ("ArrayAnnotation", "ListAnnotation"):
            # inside annotations (which become strings) and the module-level aliases of them
            # (`Rows = Annotated[list, ct.ListAnnotation(...)]`, dropped like other aliases)
            return updated
        if name == "kernel" and original.args and isinstance(original.args[0].value, cst.Name) \
                and original.args[0].value.value in self.kernels and original.args[0].value.value \
                not in {k.hoisted for k in self.nested.values()}:
            # (a kernel of a host function is its local launcher there: the branch below)
            # ct.kernel(fn, **options) in host code: the Triton kernel (its launcher is found
            # through _LAUNCHERS), or its launcher with those options as hints
            kname = original.args[0].value.value
            self.host_features.add("launch")
            opts = [a for a in updated.args[1:] if a.keyword is not None]
            if not opts:
                return cst.Name(kname)
            self.host_features.add("replace_hints")
            self.introduced.add("_with_hints")
            return updated.with_changes(func=cst.Name(self.names["_with_hints"]), args=[
                cst.Arg(cst.Name(self.names[launcher_name(kname)]))] + opts)
        if name == "kernel" and len(updated.args) >= 1 and updated.args[0].keyword is None \
                and updated.args[0].star == "":
            # ct.kernel(fn) of a function given at run time (`def run(fn): ct.kernel(fn)`):
            # the functions handed to it are translated kernels, found through _LAUNCHERS
            self.host_features.add("launch")
            opts = [a for a in updated.args[1:] if a.keyword is not None]
            if not opts:
                return updated.args[0].value
            self.host_features.add("replace_hints")
            self.introduced.add("_with_hints")
            return updated.with_changes(func=cst.Name(self.names["_with_hints"]),
                                        args=[updated.args[0].with_changes(
                                            comma=cst.MaybeSentinel.DEFAULT)] + opts)
        if name == "compiler_timeout":
            # Triton compiles without a time limit: a context manager that does nothing
            self.introduced.add("contextlib")
            return updated.with_changes(func=cst.parse_expression("contextlib.nullcontext"),
                                        args=[])
        if name == "launch":
            args = list(updated.args)
            if len(args) != 4 or any(a.keyword is not None for a in args):
                self.errors.append(self.pm.error(
                    original, "T2T109", "ct.launch must be called as "
                    "ct.launch(stream, grid, kernel, args)",
                    help="pass the four arguments positionally"))
                return updated
            kernel = args[2].value
            if isinstance(kernel, cst.Name) and kernel.value in self.kept:
                return updated      # a kept cuTile kernel: cuTile launches it
            if isinstance(kernel, cst.Name) and kernel.value in self.pm.kept_foreign:
                module = self.pm.foreign_kernels[kernel.value][0]
                self.errors.append(self.pm.error(
                    original, "T2T112", f"`{kernel.value}` stays cuTile code in `{module}` "
                    "(--keep-unconverted): this launch stays cuTile's",
                    help=f"finish the translation of `{module}`, then convert this file again"))
                return updated
            fkernels = self.pm.foreign_kernels
            local_kernel = isinstance(kernel, cst.Name) and (
                kernel.value in self.kernels or kernel.value in fkernels) and \
                kernel.value not in {k.hoisted for k in self.nested.values()}
            if not local_kernel:
                # a kernel chosen at run time (a variable, replace_hints, a tuning result)
                self.host_features.add("launch")
                self.introduced.add("_launch")
                return updated.with_changes(func=cst.Name(self.names["_launch"]))
            kargs = args[3].value
            new_args = [args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT),
                        args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
            if isinstance(kargs, cst.Tuple):   # (`(*xs, 128)`: the star stays)
                new_args += [cst.Arg(e.value, star="*" if isinstance(e, cst.StarredElement)
                                     else "") for e in kargs.elements]
            else:
                new_args.append(cst.Arg(kargs, star="*"))
            new_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in new_args]
            return cst.Call(func=cst.Name(self.names[launcher_name(kernel.value)]), args=new_args)
        self.errors.append(self.pm.error(
            original, "T2T109", f"host code uses ct.{name}, which has no translation outside "
            "kernels", help=_HOST_HELP))
        return updated


_HOST_HELP = ("this is tile code: where it belongs to a kernel or a device helper, mark that "
              "function @ct.kernel or @ct.function (or call it from a kernel); host code itself "
              "may use ct.launch, ct.kernel, ct.cdiv, ct.ByTarget, ct.compiler_timeout, "
              "kernel.replace_hints, ct.tune.exhaustive_search and cuTile dtypes")


class HostErrors(Exception):
    """Several host-code diagnostics of one module (translate.py reports each)."""

    def __init__(self, errors):
        super().__init__(errors[0].diagnostic.message)
        self.errors = errors



def _walk(node):
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


_TWO_BLANK = (cst.EmptyLine(), cst.EmptyLine())
_RUNTIME_TABLE = "_LAUNCHERS"


def _statements(code: str, leading=None) -> list:
    """Generated source as CST statements, laid out as `ruff format --line-length 100` would
    (layout.py); the first one gets `leading` lines."""
    body = [lay_out(stmt) for stmt in cst.parse_module(code).body]
    if body and leading is not None:
        body[0] = body[0].with_changes(leading_lines=tuple(leading))
    return body


def _defines(stmt) -> set:
    """Names a top-level statement of generated code defines."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    out = set()
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            targets = small.targets if isinstance(small, cst.Assign) else (
                [small] if isinstance(small, cst.AnnAssign) else [])
            for t in targets:
                out |= _target_names(t.target)
    return out


def _target_names(target) -> set:
    """The names an assignment target binds (`a`, `a, b`, `(a, *b)`)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(e.value) for e in target.elements))
    return set()


@lru_cache(maxsize=256)
def _helper_block(code: str) -> tuple:
    """(statement, names it defines, identifiers it uses) for each statement of a generated
    helper block (a handful of distinct blocks per run: cached)."""
    out = []
    for stmt in _statements(code):
        text = cst.Module([stmt]).code
        out.append((stmt, frozenset(_defines(stmt)), frozenset(source_identifiers(text))))
    return tuple(out)


def _used_helpers(helpers: list, wanted: set) -> list:
    """The helper statements `wanted` names need, directly or through each other (a module
    gets `_ByTarget` only if it uses ct.ByTarget, `_check_ndim` only if it has arrays, ...)."""
    defined = [(names, stmt) for stmt, names, _ in helpers]
    uses = [u for _, _, u in helpers]
    wanted = set(wanted)
    # a statement that defines nothing (`for ...: TABLE[k] = v`) belongs to the one before it
    for i in range(1, len(defined)):
        if not defined[i][0]:
            defined[i] = (defined[i - 1][0], defined[i][1])
    keep: set = set()
    changed = True
    while changed:
        changed = False
        for i, (names, stmt) in enumerate(defined):
            if i not in keep and (not names or names & wanted):
                keep.add(i)
                wanted |= uses[i]
                changed = True
    return [helpers[i] for i in sorted(keep)]


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value,
                                               (cst.SimpleString, cst.ConcatenatedString))


def _spaced(stmt, blank: int = 2):
    """`stmt` with at least `blank` empty lines above it (comments stay attached)."""
    lines = list(stmt.leading_lines)
    n = 0
    while n < len(lines) and lines[n].comment is None:
        n += 1
    if n >= blank:
        return stmt
    return stmt.with_changes(leading_lines=tuple([cst.EmptyLine()] * blank + lines[n:]))


class SharedRuntime:
    """`convert --shared-runtime`: the helper statements a module needs are collected here
    (with their usual spellings) instead of being written into the module, which imports them
    from the module `name` (cli.py writes that module once for the whole batch)."""

    def __init__(self, name: str, device: bool = True):
        self.name = name
        self.device = device    # device helpers shared too (else they stay in the module)
        self.pieces: list = []  # (names it defines, source text) in the module's order


def render_module(pm: ParsedModule, mc, units: dict, functions: list,
                  shared: SharedRuntime | None = None, coarsen: bool = True,
                  kept: dict | None = None, notes: list | None = None,
                  rank_variants: dict | None = None) -> str:
    """The Triton module. `kept` (convert --keep-unconverted): kernel name -> diagnostics of
    each kernel that failed, kept as cuTile code under `# tile2triton:` notes (keep.py);
    host lines that cannot be translated are then kept too, their diagnostics appended to
    `notes`. `rank_variants`: kernel name -> [(ranks, unit name)] of a kernel translated once
    per rank combination (translate.py), its units in `units` under their own names."""
    names = pm.names
    sources = {}  # device helper name -> source, in the order kernels first use them
    kernel_stmts, device_stmts, launchers = {}, {}, {}
    linked = {}  # helper name -> statements of a helper linked from another module
    generated = []  # texts of the generated kernels, launchers and device functions
    features: set = set()
    walked_helpers: dict = {}   # helper -> its copy taking the block id (coarsen.py)
    for name, (fn, unit) in units.items():
        sources.update(unit.helper_sources)
        hinted = [p.array for p in fn.params if p.kind == "array" and p.array.rank]
        coarse = coarsen and bool(launcher_tile_elems(fn, unit)) and coarsenable(
            fn, unit, kernel_params(fn.params),
            tuple(mc.helper_specs[spec][1].text for spec in mc.helper_order))
        body, extra, per_program = unit.text, [], []
        if coarse:      # several small independent blocks per program (coarsen.py)
            body = coarsened_body(body, names["block_x"], names[GRID_X], names[PER_PROGRAM],
                                  names["_blk"])
            extra = [names[GRID_X]]
            per_program = [f"{names[PER_PROGRAM]}: tl.constexpr"]
        # (the walk needs the tile size at launch: only tiles that fill an SM are walked)
        walk = None if coarse or not launcher_tile_elems(fn, unit) else persistable(
            fn, unit, kernel_params(fn.params),
            {spec: mc.helper_specs[spec][1].text for spec in mc.helper_order})
        persistent = 0 if walk is None else walk[1]    # the grid axes walked
        if persistent:  # a matrix kernel over TMA operands walks its blocks (coarsen.py)
            unit = dataclasses.replace(unit, flatten=names["FLATTEN"])
            extra = [names[g] for g in WALKED_GRID[:persistent]]
            body = persistent_body(body, [names[b] for b in WALKED_BLOCKS[:persistent]],
                                   extra, unit.flatten, names["block"])
            for helper in sorted(walk[0]):  # helpers reading the block id: a copy taking it
                walked = walked_helpers.setdefault(helper, names[f"{helper}_at_block"])
                body = walked_calls(body, helper, walked, names["block_x"])
        descriptors = [desc for _, _, desc in unit.tma]   # TMA descriptors or None (tma.py)
        params = (kernel_params(fn.params) + descriptors + extra
                  + [f"{multiples_name(a)}: tl.constexpr" for a in hinted] + per_program
                  + ([f"{unit.flatten}: tl.constexpr"] if unit.flatten else [])
                  + [f"{c}: tl.constexpr" for c, _, _ in unit.row_tiles]
                  + [f"{USE_INT64}: tl.constexpr"])
        hints = kernel_hints(pm, fn, features)
        body = with_offset_dtype(body, unit, names)
        text = (_function_text(pm, fn, params, with_multiples(body, hinted), unit.debug,
                               tuple(extra)) + "\n"
                + render_launcher(pm, fn, unit, hints, coarse, persistent,
                                  direct=shared is not None))
        generated.append(text)
        stmts = _statements(text)
        launchers[name] = stmts[-1]
        kernel_stmts[name] = stmts
    own_name = {}  # a walked helper's copy -> the name it keeps (nothing else calls it)
    for spec in mc.helper_order:
        _, unit, _ = mc.helper_specs[spec]
        name = mc.spec_base.get(spec, spec)     # `h_2`: another translation of helper `h`
        sources.update(unit.helper_sources)
        params = kernel_params(unit.fn.params)
        if unit.uses_array_params:
            params.append(f"{USE_INT64}: tl.constexpr")
        text = _function_text(pm, unit.fn, params, with_offset_dtype(unit.text, unit, names),
                              unit.debug)
        if spec in walked_helpers:
            if _still_called(spec, generated, mc):
                # the helper as written, and its copy taking the block id
                walked = walked_helper(text, unit.fn.name, walked_helpers[spec], names["block_x"])
                text = f"{text}\n\n\n{walked}"
            else:
                # nothing calls it as written: the helper keeps the user's name and takes the
                # block id itself
                text = walked_helper(text, unit.fn.name, unit.fn.name, names["block_x"])
                own_name[walked_helpers[spec]] = spec
        generated.append(text)
        if name in pm.foreign:
            # a helper linked from the user's other modules (packages.py): no definition here
            # to replace, so it goes in the helper block
            linked[spec] = _statements(
                f"# `{name}` from {comment_safe(str(pm.foreign[name].source.path))}\n" + text)
            continue
        if name in pm.hoisted:
            # a function defined inside a kernel or helper (lower/nested_defs.py)
            linked[spec] = _statements(f"# `{name}`: defined inside `{pm.hoisted[name][0]}`\n"
                                       + text)
            continue
        device_stmts.setdefault(name, []).extend(_statements(text))
    if own_name:
        for stmts in kernel_stmts.values():
            stmts[:-1] = [stmt.visit(Renamer(own_name)) for stmt in stmts[:-1]]
        generated = [rename_code(t, own_name) for t in generated]
    for name, variants in (rank_variants or {}).items():
        # the variants, then the launcher choosing among them, where the kernel was
        stmts = []
        for _, variant in variants:
            part = kernel_stmts.pop(variant)
            stmts += [_spaced(part[0])] + part[1:] if stmts else part
        fn = units[variants[0][1]][0]
        comment, text = render_rank_dispatch(pm, dataclasses.replace(fn, name=name), variants,
                                             hinted=bool(kernel_hints(pm, fn, set())))
        generated.append(text)
        dispatch = _statements(text, _TWO_BLANK + tuple(cst.EmptyLine(comment=cst.Comment(c))
                                                        for c in comment))
        kernel_stmts[name] = stmts + dispatch
    # @ct.function definitions never called from a kernel are still device code: keep them out
    # of the host module but say so, rather than silently dropping them.
    uncalled = {}
    for fn in functions:
        if fn.role == "tile_code" and fn.name not in device_stmts:
            from ..recognize import tile_code_names
            used = ", ".join(f"ct.{n}" for n in tile_code_names(pm, fn.node)[:4])
            uncalled[fn.name] = (f"# `{fn.name}` is tile code ({used}) that nothing here "
                                 "calls: not translated.")
        if fn.role == "function" and fn.name not in device_stmts:
            uncalled[fn.name] = (f"# `{fn.name}` (@ct.function) is not called by any kernel in "
                                 "this module, so it was not translated.")
    for name in sorted(pm.context_managers):
        if name not in device_stmts and name not in uncalled:
            uncalled[name] = (f"# `{name}` (a context manager) is inlined where kernels enter "
                              "it with `with`.")
    constexpr_functions = set().union(*(unit.constexpr_functions for _, unit in units.values()))
    for name in sorted(constexpr_functions & set(device_stmts)):
        raise pm.error(pm.functions[name].name, "T2T102", f"`{name}` is called both at compile "
                       "time (ct.static_eval, ct.static_assert) and as device code",
                       help="use two functions: one of plain Python for compile-time values, "
                            "one for tiles")

    def host_rewriter(keeping: bool) -> _HostRewriter:
        rw = _HostRewriter(pm, kernel_stmts, device_stmts, {} if keeping else uncalled)
        if keeping:     # (--keep-unconverted, keep.py)
            rw.keep(kept or {}, {fn.name for fn in functions if fn.role == "function"},
                    {id(fn.node) for fn in functions if fn.name in (kept or {})})
        rw.constexpr_functions = constexpr_functions
        rw.linked_helpers = {mc.spec_base.get(n, n) for n in linked}
        rw.nested = {id(fn.nested.node): fn.nested for fn, _ in units.values()
                     if fn.nested is not None}
        from ..rewrite.host_kernels import node_of_local
        from ..recognize import tile_code_names
        for fn, _ in units.values():    # host-function helpers hoisted with their kernels
            for local, (hoisted, _node) in (fn.nested.helpers if fn.nested else {}).items():
                user = node_of_local(fn.nested, local)
                if tile_code_names(pm, user):      # (plain Python ones stay host code too)
                    rw.hoisted_defs[id(user)] = hoisted
        return rw

    rewriter = host_rewriter(bool(kept))
    new_module = pm.module.visit(rewriter)
    if kept is not None and not kept and rewriter.errors:
        # every kernel translated but some host lines did not: kept as cuTile code
        rewriter = host_rewriter(True)
        new_module = pm.module.visit(rewriter)
    if notes is not None:
        notes.extend(rewriter.notes)
    if rewriter.errors:
        if len(rewriter.errors) > 1:        # every host line that needs attention is reported
            raise HostErrors(rewriter.errors)
        raise rewriter.errors[0]
    features |= rewriter.host_features
    runtime_table = bool(features & {"launch", "replace_hints", "tune.exhaustive_search"})

    # The helper block: device helpers the patterns declare, then host helpers; their
    # top-level names are respelled where the user's module spells them too (names.py).
    helper_code = list(sources.values()) + [
        render_host_helpers(any(p.kind == "array_list" for fn, _ in units.values()
                                for p in fn.params),
                            # one `_by_target` serves every module of a shared runtime
                            features | {"ByTarget"} if shared is not None else features)]
    helpers = []
    for code in helper_code:
        helpers += list(_helper_block(code)) if code.strip() else []
    n_device = sum(len(_helper_block(c)) for c in helper_code[:-1] if c.strip())
    device_ids = {id(s) for s, _, _ in helpers[:n_device]}
    top = set().union(*(d for _, d, _ in helpers)) if helpers else set()
    mapping = {n: names[n] for n in sorted(top) if names[n] != n}

    body = []
    anchor_leading = None
    for stmt in new_module.body:
        if stmt is rewriter.import_anchor:
            anchor_leading = stmt.leading_lines
            body.append(stmt)
            continue
        if stmt in rewriter.uncalled_markers:  # a comment where the function was
            body.append(stmt)
            continue
        body.append(stmt)
        for name, launcher in launchers.items():
            if stmt is launcher and runtime_table:
                # kernels chosen at run time are found through this table
                body += _statements(f"{names[_RUNTIME_TABLE]}[{name}] = "
                                    f"{names[launcher_name(name)]}\n", _TWO_BLANK)
    body = _fold_markers(body, rewriter)
    # what the module refers to: the user's identifiers and the generated code's
    wanted = set(names.used) | rewriter.introduced
    for text in generated:
        wanted |= source_identifiers(text)
    if runtime_table:
        wanted.add(_RUNTIME_TABLE)
    referenced = set(wanted)  # by the module's own code (not only by other helpers)
    kept_helpers = _used_helpers(helpers, wanted)
    helpers = [s for s, _, _ in kept_helpers]
    moved = [h for h in kept_helpers if shared is not None and (
        shared.device or id(h[0]) not in device_ids)]
    if moved:
        # the helpers live in the shared module; this one imports what it defines, under this
        # module's spellings
        shared.pieces += [(sorted(d), cst.Module([s]).code) for s, d, _ in moved]
        defined = sorted(set().union(*(d for _, d, _ in moved)) & referenced)
        # (in isort's order: constants, then the rest without regard to case)
        defined.sort(key=lambda n: (not n.isupper(), n.lower()))
        shared_import = _import_from(shared.name, [
            n if names[n] == n else f"{n} as {names[n]}" for n in defined])
        gone = {id(s) for s, _, _ in moved}
        kept_helpers = [h for h in kept_helpers if id(h[0]) not in gone]
        helpers = [s for s, _, _ in kept_helpers]
    else:
        shared_import = ""
    if mapping:
        helpers = [s.visit(Renamer(mapping)) for s in helpers]
    for stmts in linked.values():   # generated code like the device functions: not respelled
        helpers += stmts

    # Imports: those the module's code (the user's, rewritten, and the generated) refers to and
    # the user's module does not already make, grouped and sorted as isort (ruff's I001) would
    used = identifiers_used(body + helpers)
    stdlib = [m for m in ("contextlib", "dataclasses", "functools", "time")
              if m in used and (pm.imports.get(m) != m or m in pm.borrowed_imports)]
    third = [line for line, bound, value in (
        ("import torch", "torch", "torch"), ("import triton", "triton", "triton"),
        ("import triton.language as tl", "tl", "triton.language"))
        if bound in used and (pm.imports.get(bound) != value or bound in pm.borrowed_imports)]
    import_code = "".join(f"import {m}\n" for m in stdlib)
    import_code += ("\n" if stdlib and third else "") + "".join(f"{t}\n" for t in third)
    if shared_import:
        # a relative import is a section of its own; an absolute one is another third-party
        # module to isort (nothing tells it the runtime is local)
        blank = shared_import.startswith("from .") or (stdlib and not third)
        import_code += ("\n" if import_code and blank else "") + shared_import
    imports = _statements(import_code) if import_code else []

    # Imports go where the cuda.tile import was (else after the docstring and __future__
    # imports); the helper block after the last top-level import.
    out = []
    if rewriter.import_anchor is not None and any(s is rewriter.import_anchor for s in body):
        for stmt in body:
            if stmt is rewriter.import_anchor:
                if imports:
                    out += [imports[0].with_changes(leading_lines=anchor_leading)] + imports[1:]
            else:
                out.append(stmt)
    else:
        at = 0
        while at < len(body) and (_is_docstring(body[at]) and at == 0 or (
                _is_import(body[at]) and isinstance(body[at].body[0], cst.ImportFrom)
                and _is_future(body[at].body[0]))):
            at += 1
        first = imports[:1]
        if first and at:
            first = [_spaced(first[0], 1)]
        out = body[:at] + first + imports[1:] + body[at:]
    ours = {id(s) for s in out if _is_import(s) and any(s.body[0].deep_equals(i.body[0])
                                                        for i in imports)}
    out = sort_block(drop_orphaned(out, pm.source.text, ours, helpers), ours)
    last = max((i for i, s in enumerate(out) if _is_import(s)), default=-1)
    if helpers:
        helpers = [_spaced(s) for s in helpers]
        if last >= 0 and not isinstance(helpers[0], (cst.FunctionDef, cst.ClassDef)):
            # isort's rule: one blank line after the imports unless a definition follows
            own = [line for line in helpers[0].leading_lines if line.comment is not None]
            helpers[0] = helpers[0].with_changes(leading_lines=(cst.EmptyLine(), *own))
        after = out[last + 1:]
        if after:
            after[0] = _spaced(after[0])
        out = out[:last + 1] + helpers + after
    return with_header(new_module.with_changes(body=out).code, pm.source.path)


def _import_from(module: str, items: list) -> str:
    """`from module import a, b`, one item per line when that does not fit in 100 columns."""
    flat = f"from {module} import {', '.join(items)}\n"
    if len(flat) <= 101:
        return flat
    return f"from {module} import (\n" + "".join(f"    {i},\n" for i in items) + ")\n"


def render_shared_runtime(shared: SharedRuntime, version: str) -> str:
    """The shared helper module: each helper once, in the order modules first needed them."""
    seen: dict = {}
    body = []
    for defined, code in shared.pieces:
        key = tuple(defined) or ("", code)
        if key in seen:
            if seen[key] != code:  # two modules needed different texts under one name
                raise ValueError(f"shared runtime: two definitions of {', '.join(defined)}")
            continue
        seen[key] = code
        body.append(code.strip("\n"))
    text = "\n\n\n".join(body)
    used = source_identifiers(text) if text else set()
    stdlib = [m for m in ("contextlib", "dataclasses", "functools", "time") if m in used]
    imports = "".join(f"import {m}\n" for m in stdlib) + ("\n" if stdlib else "")
    imports += "import torch\nimport triton\nimport triton.language as tl\n"
    head = (f"# Helpers shared by the modules tile2triton {version} translated into this folder."
            "\n")
    if shared.device:
        doc = ('"""Device (@triton.jit) and host helpers of the translated modules next to this '
               'one,\nwritten once (`tile2triton convert --shared-runtime`)."""\n')
    else:
        doc = ('"""Host helpers of the translated modules under this folder, written once (their '
               'device\nhelpers stay in each module)."""\n')
    # a blank line after the docstring, as ruff format lays it out; after the imports two
    # before a definition, else one (isort's rule)
    after = "\n\n" if text.startswith(("def ", "class ", "@")) else "\n"
    return head + doc + "\n" + imports + (after + text + "\n" if text else "")


def _is_future(node) -> bool:
    return isinstance(node.module, cst.Name) and node.module.value == "__future__"


def _fold_markers(body: list, rewriter) -> list:
    """Replace each marker of an uncalled @ct.function by its comment, attached to the next
    statement (or to the module footer when it is last)."""
    out = []
    carry = []
    for stmt in body:
        marker = rewriter.uncalled_markers.get(stmt)
        if marker is not None:
            carry += list(stmt.leading_lines) + [cst.EmptyLine(comment=cst.Comment(marker))]
            continue
        if carry:
            # two blank lines between the comment and the statement, whatever blank lines the
            # statement had (its own comments stay): the result is stable under ruff format
            own = list(stmt.leading_lines)
            while own and own[0].comment is None:
                own.pop(0)
            stmt = stmt.with_changes(leading_lines=tuple(carry + [cst.EmptyLine()] * 2 + own))
            carry = []
        out.append(stmt)
    if carry:
        out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=tuple(carry)))
    return out


def with_header(code: str, path: str) -> str:
    """The module opens with a comment naming its source and the tile2triton version, after a
    `#!` line and a PEP 263 coding line, which must stay on the first two lines."""
    from pathlib import PurePath
    import tokenize

    from ..version import __version__
    name = comment_safe(PurePath(path).name if not path.startswith("<") else path)
    header = f"# Translated from {name} (cuTile) to Triton by tile2triton {__version__}.\n"
    lines = code.splitlines(True)
    keep = 0
    for i, line in enumerate(lines[:2]):
        if (i == 0 and line.startswith("#!")) or tokenize.cookie_re.match(line):
            keep = i + 1
        else:
            break
    return "".join(lines[:keep]) + header + "".join(lines[keep:])
