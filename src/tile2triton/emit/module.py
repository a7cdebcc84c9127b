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

import libcst as cst

from ..model import USE_INT64
from ..parse.names import Renamer, comment_safe, launcher_name, rename_code, source_identifiers
from ..parse.source import ParsedModule
from ..recognize import tile_code_names
from ..rewrite.host_kernels import node_of_local
from .coarsening import (coarsenable, coarsened_body, persistable, persistent_body, walked_calls,
                         walked_helper)
from .functions import (function_text, kernel_params, multiples_name, restated, unread_extents,
                        with_module_constants, with_multiples, with_offset_dtype)
from .host import HostRewriter
from .host_references import HostErrors
from .imports import drop_orphaned, identifiers_used, sort_block
from .launcher import (GRID_X, PER_PROGRAM, WALKED_BLOCKS, WALKED_GRID, kernel_hints,
                       launcher_tile_elems, render_launcher, render_rank_dispatch)
from .layout import lay_out
from .shared_offsets import shared_offsets
from .templates import render_host_helpers


def _still_called(helper: str, kernel_calls: set, mc) -> bool:
    """Whether a kernel (`kernel_calls`: the names the kernels call as written, a walked
    kernel's calls of its `_at_block` copies left out; coarsening.py) or another helper calls
    `helper` by its own name."""
    return helper in kernel_calls or any(
        helper in mc.helper_specs[spec][1].facts.calls
        for spec in mc.helper_order if spec != helper)


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


def _is_definition(stmt) -> bool:
    return isinstance(stmt, (cst.FunctionDef, cst.ClassDef))


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


@dataclasses.dataclass
class _Generated:
    """What render_module generates before it meets the user's module."""
    sources: dict = dataclasses.field(default_factory=dict)  # device helper -> source, in the
    # order kernels first use them
    kernel_stmts: dict = dataclasses.field(default_factory=dict)  # kernel -> its statements
    device_stmts: dict = dataclasses.field(default_factory=dict)  # helper -> its statements
    launchers: dict = dataclasses.field(default_factory=dict)  # kernel -> its launcher
    linked: dict = dataclasses.field(default_factory=dict)  # helper linked from another module
    # or hoisted from inside a function -> its statements (they go in the helper block)
    texts: list = dataclasses.field(default_factory=list)  # every generated function's text
    features: set = dataclasses.field(default_factory=set)
    walked_helpers: dict = dataclasses.field(default_factory=dict)  # helper -> its copy taking
    # the block id (coarsening.py)
    # the names the rendered kernels call as written (a walked kernel calls its helpers'
    # copies taking the block id instead): _still_called
    kernel_calls: set = dataclasses.field(default_factory=set)


def render_module(pm: ParsedModule, mc, units: dict, functions: list,
                  shared: SharedRuntime | None = None, coarsen: bool = True,
                  kept: dict | None = None, notes: list | None = None,
                  rank_variants: dict | None = None) -> str:
    """The Triton module. `kept` (convert --keep-unconverted): kernel name -> diagnostics of
    each kernel that failed, kept as cuTile code under `# tile2triton:` notes (keep.py);
    host lines that cannot be translated are then kept too, their diagnostics appended to
    `notes`. `rank_variants`: kernel name -> [(ranks, unit name)] of a kernel translated once
    per rank combination (translate.py), its units in `units` under their own names."""
    gen = _Generated()
    for name, (fn, unit) in units.items():
        _render_kernel(pm, mc, gen, name, fn, unit, coarsen, shared is not None)
    _render_helpers(pm, mc, gen)
    for name, variants in (rank_variants or {}).items():
        _render_rank_dispatch(pm, gen, units, name, variants)
    uncalled = _uncalled_notes(pm, functions, gen.device_stmts)
    constexpr_functions = set().union(*(unit.constexpr_functions for _, unit in units.values()))
    for name in sorted(constexpr_functions & set(gen.device_stmts)):
        raise pm.error(pm.functions[name].name, "T2T102", f"`{name}` is called both at compile "
                       "time (ct.static_eval, ct.static_assert) and as device code",
                       help="use two functions: one of plain Python for compile-time values, "
                            "one for tiles")

    def host_rewriter(keeping: bool) -> HostRewriter:
        rw = HostRewriter(pm, gen.kernel_stmts, gen.device_stmts, {} if keeping else uncalled)
        if keeping:     # (--keep-unconverted, keep.py)
            rw.keep(kept or {}, {fn.name for fn in functions if fn.role == "function"},
                    {id(fn.node) for fn in functions if fn.name in (kept or {})})
        rw.constexpr_functions = constexpr_functions
        rw.linked_helpers = {mc.spec_base.get(n, n) for n in gen.linked}
        rw.nested = {id(fn.nested.node): fn.nested for fn, _ in units.values()
                     if fn.nested is not None}
        for fn, _ in units.values():    # host-function helpers hoisted with their kernels
            for local, (hoisted, _node) in (fn.nested.helpers if fn.nested else {}).items():
                user = node_of_local(fn.nested, local)
                # (plain Python ones stay host code too; a closure factory's tile code is in
                # the function it makes: `def make(t): def f(x, i): ct.scatter(x, i, t)`)
                if any(tile_code_names(pm, d) for d in _defs_in(user)):
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
    gen.features |= rewriter.host_features
    runtime_table = bool(gen.features & {"launch", "replace_hints", "tune.exhaustive_search"})
    # launchers respelled because the user's module has a `launch_<kernel>` of its own: the
    # run-time lookup by name (`_launcher_of`, from any module) would find the user's
    # function, so they are registered in the module's table, which that lookup reads first
    respelled = {name for name in gen.launchers
                 if pm.names[launcher_name(name)] != launcher_name(name)}
    if respelled:
        gen.features.add("respelled_launchers")
        runtime_table = True
    lists = any(p.kind == "array_list" for fn, _ in units.values() for p in fn.params)
    body = _module_body(pm, new_module, rewriter, gen, runtime_table)
    # what the module refers to: the user's identifiers and the generated code's
    wanted = set(pm.names.used) | rewriter.introduced
    for text in gen.texts:
        wanted |= source_identifiers(text)
    if runtime_table:
        wanted.add(_RUNTIME_TABLE)
    helpers, shared_import = _helper_statements(pm, gen, lists, shared, wanted)
    imports = _imports(pm, body + helpers, shared_import)
    out = _placed(pm, body, imports, helpers, rewriter)
    return with_header(new_module.with_changes(body=out).code, pm.source.path)


def _defs_in(fdef: cst.FunctionDef) -> list:
    """`fdef` and the functions defined in it, at any depth."""
    out, stack = [], [fdef]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.FunctionDef):
            out.append(n)
        stack.extend(n.children)
    return out


def _render_kernel(pm: ParsedModule, mc, gen: _Generated, name: str, fn, unit, coarsen: bool,
                   direct: bool) -> None:
    """Kernel `fn` (lowered to `unit`) and its launcher, coarsened or walked persistently
    where that is safe (coarsening.py)."""
    names = pm.names
    gen.sources.update(unit.helper_sources)
    hinted = [p.array for p in fn.params if p.kind == "array" and p.array.rank]
    coarse = coarsen and bool(launcher_tile_elems(fn, unit)) and coarsenable(
        fn, unit, kernel_params(fn.params),
        tuple(mc.helper_specs[spec][1] for spec in mc.helper_order))
    body, extra, per_program = shared_offsets(unit.text), [], []
    if coarse:      # several small independent blocks per program (coarsen.py)
        body = coarsened_body(body, names["block_x"], names[GRID_X], names[PER_PROGRAM],
                              names["_blk"])
        extra = [names[GRID_X]]
        per_program = [f"{names[PER_PROGRAM]}: tl.constexpr"]
    # (the walk needs the tile size at launch: only tiles that fill an SM are walked)
    walk = None if coarse or not launcher_tile_elems(fn, unit) else persistable(
        fn, unit, kernel_params(fn.params),
        {spec: mc.helper_specs[spec][1] for spec in mc.helper_order})
    persistent = 0 if walk is None else walk[1]    # the grid axes walked
    if persistent:  # a matrix kernel over TMA operands walks its blocks (coarsen.py)
        unit = dataclasses.replace(unit, flatten=names["FLATTEN"])
        extra = [names[g] for g in WALKED_GRID[:persistent]]
        body = persistent_body(body, [names[b] for b in WALKED_BLOCKS[:persistent]],
                               extra, unit.flatten, names["block"])
        for helper in sorted(walk[0]):  # helpers reading the block id: a copy taking it
            walked = gen.walked_helpers.setdefault(helper, names[f"{helper}_at_block"])
            body = walked_calls(body, helper, walked, names["block_x"])
    gen.kernel_calls |= unit.facts.calls - (walk[0] if persistent else set())
    descriptors = [desc for _, _, desc in unit.tma]   # TMA descriptors or None (tma.py)
    # extents and strides the kernel never names are not passed, nor unused multiples
    unread = unread_extents(fn.params, body)
    hinted = [a for a in hinted if restated(a, unread)]
    params = (kernel_params(fn.params, unread) + descriptors + extra
              + [f"{multiples_name(a)}: tl.constexpr" for a in hinted] + per_program
              + ([f"{unit.flatten}: tl.constexpr"] if unit.flatten else [])
              + [f"{c}: tl.constexpr" for c, _, _ in unit.row_tiles]
              + [f"{USE_INT64}: tl.constexpr"])
    hints = kernel_hints(pm, fn, gen.features)
    if any(p.dtype_value for p in fn.params):   # (the launcher converts the launch's dtypes)
        gen.features.add("dtype_value")
    body = with_offset_dtype(with_module_constants(body, unit), unit, names)
    text = (function_text(pm, fn, params, with_multiples(body, hinted, unread), unit.debug,
                          tuple(extra)) + "\n"
            + render_launcher(pm, fn, unit, hints, coarse, persistent, direct=direct,
                              unread_abi=unread))
    gen.texts.append(text)
    stmts = _statements(text)
    gen.launchers[name] = stmts[-1]
    gen.kernel_stmts[name] = stmts


def _render_helpers(pm: ParsedModule, mc, gen: _Generated) -> None:
    """Every translation of a helper, in the order the kernels first call them: in place of
    the user's definition, or in the helper block (helpers linked from other modules and
    functions hoisted from inside kernels)."""
    names = pm.names
    own_name = {}  # a walked helper's copy -> the name it keeps (nothing else calls it)
    for spec in mc.helper_order:
        _, unit, _ = mc.helper_specs[spec]
        name = mc.spec_base.get(spec, spec)     # `h_2`: another translation of helper `h`
        gen.sources.update(unit.helper_sources)
        params = kernel_params(unit.fn.params)
        if unit.uses_array_params:
            params.append(f"{USE_INT64}: tl.constexpr")
        text = function_text(pm, unit.fn, params, with_offset_dtype(
            with_module_constants(shared_offsets(unit.text), unit), unit, names), unit.debug)
        if spec in gen.walked_helpers:
            if _still_called(spec, gen.kernel_calls, mc):
                # the helper as written, and its copy taking the block id
                walked = walked_helper(text, unit.fn.name, gen.walked_helpers[spec],
                                       names["block_x"])
                text = f"{text}\n\n\n{walked}"
            else:
                # nothing calls it as written: the helper keeps the user's name and takes the
                # block id itself
                text = walked_helper(text, unit.fn.name, unit.fn.name, names["block_x"])
                own_name[gen.walked_helpers[spec]] = spec
        gen.texts.append(text)
        if name in pm.foreign:
            # a helper linked from the user's other modules (packages.py): no definition here
            # to replace, so it goes in the helper block
            gen.linked[spec] = _statements(
                f"# `{name}` from {comment_safe(str(pm.foreign[name].source.path))}\n" + text)
            continue
        if name in pm.hoisted:
            # a function defined inside a kernel or helper (lower/nested_defs.py)
            gen.linked[spec] = _statements(f"# `{name}`: defined inside "
                                           f"`{pm.hoisted[name][0]}`\n" + text)
            continue
        gen.device_stmts.setdefault(name, []).extend(_statements(text))
    if own_name:
        for stmts in gen.kernel_stmts.values():
            stmts[:-1] = [stmt.visit(Renamer(own_name)) for stmt in stmts[:-1]]
        gen.texts[:] = [rename_code(t, own_name) for t in gen.texts]


def _render_rank_dispatch(pm: ParsedModule, gen: _Generated, units: dict, name: str,
                          variants: list) -> None:
    """A kernel translated per rank combination: the variants, then the launcher choosing
    among them, where the kernel was."""
    stmts = []
    for _, variant in variants:
        part = gen.kernel_stmts.pop(variant)
        stmts += [_spaced(part[0])] + part[1:] if stmts else part
    fn = units[variants[0][1]][0]
    comment, text = render_rank_dispatch(pm, dataclasses.replace(fn, name=name), variants,
                                         hinted=bool(kernel_hints(pm, fn, set())))
    gen.texts.append(text)
    dispatch = _statements(text, _TWO_BLANK + tuple(cst.EmptyLine(comment=cst.Comment(c))
                                                    for c in comment))
    gen.kernel_stmts[name] = stmts + dispatch


def _uncalled_notes(pm: ParsedModule, functions: list, device_stmts: dict) -> dict:
    """@ct.function definitions never called from a kernel are still device code: kept out
    of the host module, with a comment saying so rather than silently dropped."""
    uncalled = {}
    for fn in functions:
        if fn.role == "tile_code" and fn.name not in device_stmts:
            used = ", ".join(f"ct.{n}" for n in tile_code_names(pm, fn.node)[:4]) \
                or "it calls tile helpers"
            uncalled[fn.name] = (f"# `{fn.name}` is tile code ({used}) that nothing here "
                                 "calls: not translated.")
        if fn.role == "function" and fn.name not in device_stmts:
            uncalled[fn.name] = (f"# `{fn.name}` (@ct.function) is not called by any kernel in "
                                 "this module, so it was not translated.")
    for name in sorted(pm.context_managers):
        if name not in device_stmts and name not in uncalled:
            uncalled[name] = (f"# `{name}` (a context manager) is inlined where kernels enter "
                              "it with `with`.")
    for name in sorted(pm.closure_factories):
        if name not in device_stmts and name not in uncalled and name not in pm.hoisted \
                and any(tile_code_names(pm, d) for d in _defs_in(pm.functions[name])):
            uncalled[name] = (f"# `{name}` (a closure factory of tile code) is inlined where "
                              "kernels call it.")
    return uncalled


def _module_body(pm: ParsedModule, new_module, rewriter, gen: _Generated,
                 runtime_table: bool) -> list:
    """The rewritten module's statements, each launcher followed by its `_LAUNCHERS` entry
    where kernels are chosen at run time."""
    names = pm.names
    body = []
    for stmt in new_module.body:
        body.append(stmt)
        if stmt is rewriter.import_anchor or stmt in rewriter.uncalled_markers:
            continue
        for name, launcher in gen.launchers.items():
            if stmt is launcher and runtime_table:
                # kernels chosen at run time are found through this table
                body += _statements(f"{names[_RUNTIME_TABLE]}[{name}] = "
                                    f"{names[launcher_name(name)]}\n", _TWO_BLANK)
    return _fold_markers(body, rewriter)


def _helper_statements(pm: ParsedModule, gen: _Generated, lists: bool,
                       shared: SharedRuntime | None, wanted: set) -> tuple:
    """(the helper block's statements, the import of the shared runtime's helpers or ""):
    device helpers the patterns declare, then host helpers, those the module uses; their
    top-level names are respelled where the user's module spells them too (names.py)."""
    names = pm.names
    helper_code = list(gen.sources.values()) + [render_host_helpers(
        lists,
        # one `_by_target` serves every module of a shared runtime
        gen.features | {"ByTarget"} if shared is not None else gen.features)]
    helpers = []
    for code in helper_code:
        helpers += list(_helper_block(code)) if code.strip() else []
    n_device = sum(len(_helper_block(c)) for c in helper_code[:-1] if c.strip())
    device_ids = {id(s) for s, _, _ in helpers[:n_device]}
    top = set().union(*(d for _, d, _ in helpers)) if helpers else set()
    mapping = {n: names[n] for n in sorted(top) if names[n] != n}
    referenced = set(wanted)  # by the module's own code (not only by other helpers)
    kept_helpers = _used_helpers(helpers, wanted)
    helpers = [s for s, _, _ in kept_helpers]
    moved = [h for h in kept_helpers if shared is not None and (
        shared.device or id(h[0]) not in device_ids)]
    shared_import = ""
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
        helpers = [s for s, _, _ in kept_helpers if id(s) not in gone]
    if mapping:
        helpers = [s.visit(Renamer(mapping)) for s in helpers]
    for stmts in gen.linked.values():   # generated code like the device functions: not
        helpers += stmts                # respelled
    return helpers, shared_import


def _imports(pm: ParsedModule, code: list, shared_import: str) -> list:
    """The imports that the module's code (the user's, rewritten, and the generated) refers
    to and the user's module does not already make, grouped and sorted as isort (ruff's
    I001) would."""
    used = identifiers_used(code)
    stdlib = [m for m in ("contextlib", "dataclasses", "enum", "functools", "math", "operator", "time")
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
    return _statements(import_code) if import_code else []


def _placed(pm: ParsedModule, body: list, imports: list, helpers: list, rewriter) -> list:
    """The module's statements with the imports where the cuda.tile import was (else after
    the docstring and __future__ imports) and the helper block after the last top-level
    import."""
    anchor = rewriter.import_anchor
    out = []
    if anchor is not None and any(s is anchor for s in body):
        for stmt in body:
            if stmt is anchor:
                if imports:
                    out += [imports[0].with_changes(leading_lines=anchor.leading_lines)] \
                        + imports[1:]
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
        # (a constant or loop after another keeps the template's spacing: `_TMA_GPUS = {}`
        # right below `_TMA_DTYPES`)
        helpers = [s if i and not _is_definition(s) and not _is_definition(helpers[i - 1])
                   else _spaced(s) for i, s in enumerate(helpers)]
        if last >= 0 and not isinstance(helpers[0], (cst.FunctionDef, cst.ClassDef)):
            # isort's rule: one blank line after the imports unless a definition follows
            own = [line for line in helpers[0].leading_lines if line.comment is not None]
            helpers[0] = helpers[0].with_changes(leading_lines=(cst.EmptyLine(), *own))
        after = out[last + 1:]
        if after:
            after[0] = _spaced(after[0])
        out = out[:last + 1] + helpers + after
    return out


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
    stdlib = [m for m in ("contextlib", "dataclasses", "enum", "functools", "math", "operator", "time")
              if m in used]
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
    import tokenize
    from pathlib import PurePath

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
