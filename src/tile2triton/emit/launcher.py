"""emit: each kernel's host launcher `launch_<kernel>(stream, grid, *args)` (templates/
launcher.py.j2), its hints from the @ct.kernel options, and the launcher choosing among a
kernel's rank variants."""
from __future__ import annotations

import ast
import textwrap
from collections import Counter

import libcst as cst

from ..model import USE_INT64, FunctionInfo
from ..parse.names import launcher_name, source_identifiers
from ..parse.source import ParsedModule
from .functions import multiples_name, restated
from .host import HostRewriter
from .read_guards import negation, read_guards
from .templates import render

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
        rw = HostRewriter(pm, {}, {}, {})
        out[key] = pm.module.code_for_node(value.visit(rw))
        features |= rw.host_features
    return out


# Host helpers the launcher template calls, spelled per module (names.py)
LAUNCHER_HELPERS = ("_as_tensor", "_check_ndim", "_array_tables", "_triton_dtype",
                    "_needs_int64", "_on_stream", "_grid", "_by_target", "_multiples",
                    "_launch_known", "_remember_launch", "_scalar_key", "_k_major_tf32",
                    "_tf32_operand",
                    "_tma_descriptor", "_row_tiles", "_row_warps", "_walk_programs",
                    "_ptxas_target", "_unread_array", "_callee_error", "_tf32_options",
                    "_dtype_value")
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


def tuple_code(items: list) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def launcher_tile_elems(fn: FunctionInfo, unit) -> list:
    """The kernel's tile sizes the launcher can evaluate (constants and constexprs), without
    those another one's product covers: tile dimensions are positive, so `TM * TN` is at least
    `TM` and `TN * TM` (the launcher wants their largest)."""
    constexprs = {p.name for p in fn.params if p.kind == "constexpr"}
    elems = []
    for e in map(_without_repeated_tests, unit.tile_elems):
        if source_identifiers(e) <= constexprs and e not in elems:
            elems.append(e)
    factors = [Counter(_factors(ast.parse(e, mode="eval").body)) for e in elems]

    def covered(i: int) -> bool:    # (by a larger product, or by an equal one before it)
        return any(factors[i] <= f and (factors[i] != f or j < i)
                   for j, f in enumerate(factors) if j != i)
    return [e for i, e in enumerate(elems) if not covered(i)]


def _factors(node) -> list:
    """The factors of a product (`TM * (N // 2) * TN`), each as its tree's dump; anything
    else is one factor."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [ast.dump(node)]


def launcher_dot_rows(fn: FunctionInfo, unit) -> list:
    """The rows of the kernel's matrix products the launcher can evaluate, where some may be
    fewer than 16 (decode-shaped products); [] where every one is a constant of 16 or more."""
    constexprs = {p.name for p in fn.params if p.kind == "constexpr"}
    rows = [r for r in unit.dot_rows if source_identifiers(r) <= constexprs]
    if all(r.isdigit() and int(r) >= 16 for r in rows):
        return []
    return rows


def _without_repeated_tests(expr: str) -> str:
    """`expr` with each `a if c else (a if c else b)` as `a if c else b` (tile sizes of
    branches on constexprs nest so; both are pure)."""
    tree = ast.parse(expr, mode="eval")
    changed = False
    for node in ast.walk(tree):
        while isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.IfExp) and all(
                ast.dump(getattr(node, f)) == ast.dump(getattr(node.orelse, f))
                for f in ("test", "body")):
            node.orelse, changed = node.orelse.orelse, True
    return ast.unparse(tree) if changed else expr


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
    # dtypes a host function gives its kernel: the Triton dtype its constexpr holds
    unpack += [f"{p.name} = {h['_dtype_value']}({p.name})" for p in fn.params
               if p.dtype_value]
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
    by_value = any(isinstance(r, bool) for _, r in variants[0][0])   # (_value_variants)
    launch = names[launcher_name(fn.name)]
    table = names[f"_{fn.name.lstrip('_').upper()}_BY_{'VALUE' if by_value else 'RANK'}"]
    key = tuple_code([f"bool({a})" if isinstance(r, bool) else f"len({a}.shape)"
                      for a, r in variants[0][0]])
    combos = [tuple_code([str(r) for _, r in chosen]) for chosen, _ in variants]
    entries = "".join(f"    {c}: {names[launcher_name(v)]},\n"
                      for c, (_, v) in zip(combos, variants))
    params = ", ".join([local["stream"], local["grid"]] + signature)
    shown = ", ".join(f"`{a}`" for a in arrays)
    ranks = ", ".join(combos)
    got = ", ".join(f"{{{a}!r}}" if isinstance(r, bool) else f"{{{a}.shape}}"
                    for a, r in variants[0][0])
    must = "be" if by_value else "have ranks"
    got = got if by_value else f"shapes {got}"
    comment = (f"`{fn.name}` indexes {shown} with several ranks: one Triton kernel per rank "
               f"combination of {tuple_code(arrays)}, launched for the ranks of the arrays "
               "passed") if not by_value else (
        f"`{fn.name}` translates only for known values (and ranks) of {shown}: one Triton "
        f"kernel per combination of {tuple_code(arrays)}, launched for those passed")
    comment = textwrap.wrap(comment, 98, initial_indent="# ", subsequent_indent="# ",
                            break_long_words=False, break_on_hyphens=False)
    doc = (f'Run `{fn.name}` like `ct.launch({local["stream"]}, {local["grid"]}, {fn.name}, '
           f'({", ".join(signature)}{"," if len(signature) == 1 else ""}))`, through the '
           f'translation for the {"values and ranks" if by_value else "ranks"} of {shown}.')
    doc = textwrap.wrap(doc, 97, initial_indent='    """', subsequent_indent="    ",
                        break_long_words=False, break_on_hyphens=False)
    lines = [
        f"{table} = {{\n{entries}}}",
        "",
        "",
        f"def {launch}({params}, *, hints=None):",
        *doc[:-1], doc[-1] + '"""',
        f"    launcher = {table}.get({key})",
        "    if launcher is None:",
        "        raise ValueError(",
        f'            f"{fn.name}: {shown} must {must} "',
        f'            f"{ranks}, "',
        f'            f"got {got}"',
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
                    coarse: bool = False, persistent: int = 0, direct: bool = False,
                    unread_abi: frozenset = frozenset()) -> str:
    """The host launcher of kernel `fn`. It launches through Triton's public `kernel[grid](...)`;
    with `direct` (a shared runtime, which checks the Triton version) a launch repeating an
    earlier one's specialization may take the runtime's direct path instead. Long because it
    gathers every fact the template reads into its one `render` call; split, each part would
    only pass them on."""
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
    call_args = _call_args(fn, unread_abi)
    # TMA descriptors of 2-D tiles that feed matrix products (lower/tma.py): built per launch,
    # None where the array does not allow one (the kernel then loads through pointers)
    tma = [(desc, array, "(" + ", ".join(block) + ")") for array, block, desc in unit.tma]
    call_args += [desc for desc, _, _ in tma]
    # a flat array (any shape, one dimension of numel elements): unit stride, no multiple
    constexpr_args = [f"{multiples_name(p.array)}="
                      + ("(1, 1)" if p.array.flat else f"{h['_multiples']}({p.name}.shape, {p.name}.stride())")
                      for p in fn.params if p.kind == "array" and p.array.rank
                      and restated(p.array, unread_abi)]
    if persistent:     # the walk over blocks: flattened when the launcher shrank the grid
        constexpr_args.append(f"{unit.flatten}={local['walked']}")
    elif unit.flatten:  # a persistent loop over TMA products: flattened when they are TMA
        constexpr_args.append(f"{unit.flatten}=" + " or ".join(f"{d} is not None"
                                                               for d, _, _ in tma))
    # loops walking one row keep its tiles in registers (lower/resident_rows.py): per group,
    # the launcher's call computing (tile count or 0, bytes kept), and the kernel's constexpr
    row_tiles = _row_tiles(unit, arrays, h)
    constexpr_args += [f"{constexpr}={local['row_tiles']}[{i}][0]"
                       for i, (constexpr, _, _) in enumerate(unit.row_tiles)]
    if coarse:      # the kernel's extra arguments (coarsen.py)
        call_args.append(local["grid_x"])
        constexpr_args.append(f"{names[PER_PROGRAM]}={local['blocks_per_program']}")
    if persistent:  # the grid's extents along the axes the kernel walks (coarsen.py)
        call_args += [local[g] for g in WALKED_GRID[:persistent]]
    # what the direct launch path keys on (_launch_key), and num_ctas
    known = _launch_key(fn, h) if direct else []
    if known:
        known.append(local["num_ctas"])
        if persistent:  # (whether the blocks are walked, which also reads the grid)
            known.append(local["walked"])
        if row_tiles:   # (the overlap of arrays, which the key does not hold otherwise)
            known.append(local["row_tiles"])
    k_major = _tf32_operand_copies(pm, fn, unit, ranks)
    elems = launcher_tile_elems(fn, unit)
    # each array as a tensor, its rank checked there too; with the direct path, after it (a
    # launch it takes had its ranks checked when Triton's dispatch ran), with `_check_ndim`
    checked = {a: f"{a}, {ranks[a]}, \"{fn.name}\", \"{a}\"" for a in ranks if not known}
    skipped = {a for a, _, _ in unread}
    converted = [a for a in arrays if not (a in skipped and a in checked)]
    # a coarsened kernel of one tile size divides 256 by it where it chooses its blocks
    coarse_tile = (elems[0] if _is_atom(elems[0]) else f"({elems[0]})") \
        if coarse and len(elems) == 1 else None
    simple_warps = not (persistent or unit.uses_dot or unit.persistent_dots) and (
        coarse_tile or not coarse)
    return render(
        "launcher.py.j2", kernel=fn.name, launch=names[launcher_name(fn.name)], h=h, v=local,
        doc=launcher_doc(fn.name, local),
        args_lines=packed_lines(f"{local['args']} = ", f"{local['args']} += ", call_args),
        tensor_lines=assignment_lines(converted, lambda a: f"{h['_as_tensor']}({checked.get(a, a)})"),
        checked=checked, warps_lines=_warps_lines(elems, local) if simple_warps else [],
        coarse_tile=coarse_tile,
        params=signature, unpack=unpack, arrays=arrays, ranks=ranks, unread=unread,
        call_args=call_args, constexpr_args=constexpr_args, known=known, k_major=k_major,
        tma=tma,
        tile_elems=elems, uses_dot=unit.uses_dot, persistent_dots=unit.persistent_dots,
        dot_rows=launcher_dot_rows(fn, unit),
        fma_dots=unit.fma_dots, tf32_dots=unit.tf32_dots, callee_asserts=callee_asserts(unit),
        coarse=coarse, row_tiles=row_tiles, persistent=persistent,
        lists=[(n, L.rank) for n, L in lists], use_int64=USE_INT64,
        int64_args=arrays + [f"*{n}" for n, _ in lists], hints=hints,
        # a launch can pass num_worker_warps only where the module spells it (the decorator,
        # replace_hints, a tuning space): other launchers leave the warp choice to themselves
        worker_warps="num_worker_warps" in pm.source.text,
        # (likewise num_ctas: a launch whose module never spells it runs one CTA per block)
        cluster_hint="num_ctas" in pm.source.text,
        # hints resolved per GPU only where they can be ct.ByTarget values (a shared runtime's
        # `_by_target` serves every module); elsewhere `_by_target` is `1 if v is None else v`
        by_target=direct or "ByTarget" in pm.source.text).rstrip("\n")


def packed_lines(first: str, more: str, items: list, width: int = 100) -> list:
    """`first(items)` as lines of at most `width` columns at indent 4, the tuple built in parts:
    `more(rest)` adds what does not fit (ruff format would put a tuple too long for one line
    one item per line)."""
    lines, part = [], []
    for item in items:
        head = more if lines else first
        if part and len(f"    {head}({', '.join(part + [item])})") > width:
            lines.append(head + tuple_code(part))
            part = []
        part.append(item)
    if part:
        lines.append((more if lines else first) + tuple_code(part))
    return lines or [first + "()"]


def assignment_lines(names: list, value) -> list:
    """`a, b = value(a), value(b)` lines at indent 4 that assign each name its value, as many
    names a line as fit in 100 columns."""
    lines, part = [], []
    for a in names:
        line = ", ".join(part + [a]) + " = " + ", ".join(map(value, part + [a]))
        if part and len(line) + 4 > 100:
            lines.append(", ".join(part) + " = " + ", ".join(map(value, part)))
            part = []
        part.append(a)
    if part:
        lines.append(", ".join(part) + " = " + ", ".join(map(value, part)))
    return lines


# The launcher's rule for kernels without matrix products, said once beside it
WARPS_RULE = "# about 8 elements per thread, 1 to 8 warps"


def _warps_lines(elems: list, local: dict) -> list:
    """The launcher's lines choosing `num_warps` from the tile sizes `elems` (about 8 elements
    per thread, 1 to 8 warps), on one line with the rule's comment where that fits: the largest
    tile's elements over 256 is the largest of each tile's."""
    if not elems:
        return [f"{local['num_warps']} = 4  # (no tile size known: Triton's default)"]
    per = ", ".join(f"{e} // 256" if _binds_like_floordiv(e) else f"({e}) // 256" for e in elems)
    line = f"{local['num_warps']} = min(max({per}, 1), 8)"
    if len(f"    {line}  {WARPS_RULE}") <= 100:
        return [f"{line}  {WARPS_RULE}"]
    if len(f"    {line}") <= 100:
        return [WARPS_RULE, line]
    tile = f"max({', '.join(elems)})" if len(elems) > 1 else elems[0]
    return [f"{local['tile_elems']} = {tile}", WARPS_RULE,
            f"{local['num_warps']} = min(max({local['tile_elems']} // 256, 1), 8)"]


def _binds_like_floordiv(expr: str) -> bool:
    """Whether `expr // 256` divides all of `expr` (a name, a call, a product, ...)."""
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.BinOp):     # (`a * b // 256` is `(a * b) // 256`)
        return isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Div, ast.Mod, ast.Pow))
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert))
    return _is_atom(expr)


def _is_atom(expr: str) -> bool:
    """Whether `expr` needs no parentheses as an operand (a name, a number, a call, ...)."""
    node = ast.parse(expr, mode="eval").body
    return isinstance(node, (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript))


def launcher_doc(kernel: str, local: dict) -> str:
    """The launcher's docstring, within 100 columns."""
    doc = f"`ct.launch({local['stream']}, {local['grid']}, {kernel}, args)`; `hints`: cuTile kernel hints."
    return doc if len(doc) <= 90 else f"`ct.launch` of `{kernel}`."


def _call_args(fn: FunctionInfo, unread: frozenset = frozenset()) -> list:
    """The kernel's arguments as the launcher passes them: each array as its pointer, extents
    and strides (those the kernel reads: not `unread`), each list of arrays as its tables, the
    rest (constexprs too) as they are, in the kernel's parameter order."""
    out = []
    for p in fn.params:
        a = p.array if p.kind == "array" else None
        if a is not None and a.rank and unread & set(a.abi()):
            shapes = [f"{p.name}.numel()" if a.flat else f"{p.name}.shape[{i}]"
                      for i in range(a.rank) if a.shape(i) not in unread]
            strides = ["1" if a.flat else f"{p.name}.stride({i})"
                       for i in range(a.rank) if a.stride(i) not in unread]
            if len(shapes) == a.rank and not a.flat:
                shapes = [f"*{p.name}.shape"]
            if len(strides) == a.rank and not a.flat:
                strides = [f"*{p.name}.stride()"]
            out.append(", ".join([p.name] + shapes + strides))
        elif p.kind == "array" and p.array.flat:   # any shape: one dimension of numel elements
            out.append(f"{p.name}, {p.name}.numel(), 1")
        elif p.kind == "array":
            out.append(f"{p.name}, *{p.name}.shape, *{p.name}.stride()")
        elif p.kind == "array_list":
            out.append(f"*{p.name}_tables")
        else:
            out.append(p.name)
    return out


def _row_tiles(unit, arrays: list, h: dict) -> list:
    """Per group of loops walking one row (lower/resident_rows.py), the launcher's call
    computing (tile count or 0, bytes kept)."""
    out = []
    for constexpr, count, cached in unit.row_tiles:
        if cached:
            tile_bytes = " + ".join(f"{a}.element_size() * " + (f"({e})" if " " in e else e)
                                   for a, e in cached)
            checks = [f"({a}, {tuple_code([o for o in arrays if o != a])})" for a, _ in cached]
            out.append(f"{h['_row_tiles']}({count}, {tile_bytes}, {tuple_code(checks)})")
        else:               # nothing to keep: the loops as written
            out.append("(0, 0)")
    return out


def _launch_key(fn: FunctionInfo, h: dict) -> list:
    """What the direct launch path keys on, per parameter: everything Triton specializes on
    (dtypes, 16-byte alignment of pointers, integer values, constexprs) and what the
    launcher's own choices read (shapes, strides, constants). Empty for a kernel taking a list
    of arrays (the plain path)."""
    known = []
    for p in fn.params:
        if p.kind == "array":
            known.append(f"{p.name}.dtype, {p.name}.data_ptr() & 15, {p.name}.shape, "
                         f"{p.name}.stride()")
        elif p.kind == "constexpr":
            known.append(p.name)
        elif p.kind == "scalar":
            known.append(f"{h['_scalar_key']}({p.name})")
        else:
            return []
    return known


def _tf32_operand_copies(pm: ParsedModule, fn: FunctionInfo, unit, ranks: dict) -> list:
    """tf32 products whose A and B operands are loaded straight from array parameters (the
    mma pattern notes them), where the kernel only reads both: the launcher hands the kernel
    both rounded to tf32 as cuTile rounds them (the tensor cores would truncate; rounded in
    the kernel, the operands leave wgmma's shared-memory path: GPU run 51, 0.74-0.83x), B
    K-major for large products on sm_90. [(array, helper, its further arguments)]."""
    out, seen = [], set()
    readers = unit.read_only     # (the lowering scanned them: Lowerer.read_only_arrays)
    for b, a in getattr(unit, "k_major", ()):
        if b in readers and a in readers and a != b:    # (as the mma pattern decided)
            if a not in seen:
                seen.add(a)
                out.append((a, "_tf32_operand", ""))
            if b not in seen:       # (K-major by A's row count, where A's rank is known)
                seen.add(b)
                out.append((b, "_k_major_tf32", f", {a}.shape[-2]") if a in ranks
                           else (b, "_tf32_operand", ""))
    return out
