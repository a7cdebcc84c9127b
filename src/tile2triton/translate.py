"""The pipeline for one module: parse -> recognize -> lower -> emit.

`translate_source` never raises for user errors in a kernel: each kernel either translates or
carries diagnostics, and the module text is produced only when every kernel translated (a file
is never half-translated).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from itertools import product
from math import prod
from typing import Optional

from .emit import module as emit
from .emit import keep_unconverted as keep_mod
from .diagnostics import Diagnostic, LocatedFailure, TranslationError
from .lower import ModuleContext, lower_function
from .emit.module_check import check_output
from .emit.probes import probe_rewrite
from .model import FunctionInfo, ParamInfo, Specialization
from .emit.host_names import rebinding_problem
from .emit.host_references import HostErrors
from .parse.names import (RESERVED, RESERVED_IMPORTS, TRITON_LAUNCH_KEYWORDS, launcher_name,
                          name_nodes)
from .parse.packages import link_imports
from .parse.source import MAX_SOURCE_CHARS, ParsedModule, parse_source
from .recognize import classify_params, find_cutile_functions, open_ranks
from .registry import load_registry
from . import rewrite


@dataclass
class KernelReport:
    kernel: str
    status: str  # translated | failed
    diagnostics: list = field(default_factory=list)
    line: int = 0
    # a kernel defined in a module-level host function (rewrite/host_kernels.py): that function's name, the
    # kernel's name there, and the host function's names its launcher takes as keywords
    outer: Optional[str] = None
    local_name: Optional[str] = None
    closure: list = field(default_factory=list)
    outer_kind: str = "function"    # "class": `outer` is a module-level class
    choices: list = field(default_factory=list)   # closure names that are function values
    dtypes: list = field(default_factory=list)    # closure names that are dtypes (launch's)
    launcher: Optional[str] = None    # its launcher's name in the output (`launch_<kernel>`)


@dataclass
class ModuleResult:
    path: str
    has_cutile: bool
    output: Optional[str]  # None when any kernel failed
    kernels: list = field(default_factory=list)
    module_diagnostics: list = field(default_factory=list)
    # with a shared runtime: (names, source) of the helper statements the module imports
    runtime: list = field(default_factory=list)
    # --keep-unconverted: the kernels kept as cuTile code in `output`
    kept: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.output is not None and not self.module_diagnostics \
            and all(k.status == "translated" for k in self.kernels)

    def diagnostics(self) -> list[Diagnostic]:
        out = list(self.module_diagnostics)
        for k in self.kernels:
            out.extend(k.diagnostics)
        return out


def _internal(pm: ParsedModule, node, exc: BaseException, what: str) -> Diagnostic:
    d = pm.diagnostic(node, "T2T900",
                      f"internal error while translating {what}: {type(exc).__name__}: {exc}",
                      help="this is a tile2triton bug; please report it with this file")
    return d


def _failure(pm: ParsedModule, exc: Exception, fallback_node, what: str) -> Diagnostic:
    """The diagnostic for an exception that escaped a stage: a user error as it is, an
    unexpected one as T2T900 at the node that was being processed (else at `fallback_node`)."""
    if isinstance(exc, TranslationError):
        return exc.diagnostic
    if isinstance(exc, LocatedFailure):
        return _internal(pm, exc.node, exc.exc, what)
    return _internal(pm, fallback_node, exc, what)


def _reserved_clash(pm: ParsedModule, functions: list) -> Optional[Diagnostic]:
    """A user name the generated code needs with its usual meaning (names.RESERVED) is
    refused at its first use; every other generated name is respelled instead (names.py).
    So is a binding that would change what the generated host code reads (host_names.py)."""
    rebinding = rebinding_problem(pm.source.text)
    if rebinding is not None:
        line, col, name, why = rebinding
        what = "names by a star import" if name == "*" else f"`{name}`"
        return Diagnostic("T2T121", f"this module binds {what}: {why}", pm.source.path, line, col,
                          help="import the names you use" if name == "*" else
                          f"rename your `{name}`", source_line=pm.source.line_text(line))
    if not (set(RESERVED) | {"hints"} | set(TRITON_LAUNCH_KEYWORDS)) & pm.names.used:
        return None  # the common case, without walking the tree
    for name, expected in RESERVED_IMPORTS.items():
        bound = pm.imports.get(name)
        if (bound is not None and bound != expected) or name in pm.globals \
                or name in pm.functions:
            node = next((n for n in name_nodes(pm.module) if n.value == name), pm.module)
            return _reserved(pm, node, name)
    for fn in functions:  # a kernel local or parameter named like them
        for n in name_nodes(fn.node):
            if n.value == "USE_INT64" or (n.value in RESERVED_IMPORTS and pm.imports.get(
                    n.value) != RESERVED_IMPORTS[n.value]):
                return _reserved(pm, n, n.value)
        for p in fn.node.params.params:
            if fn.role == "kernel" and p.name.value == "hints":
                return pm.diagnostic(p.name, "T2T121", "a kernel parameter cannot be called "
                                     "`hints`: the translated launcher takes kernel hints under "
                                     "that keyword", help="rename the parameter")
            if p.name.value in TRITON_LAUNCH_KEYWORDS:
                return pm.diagnostic(p.name, "T2T121", f"a kernel parameter cannot be called "
                                     f"`{p.name.value}`: Triton takes that keyword as a launch "
                                     "option", help="rename the parameter")
    if "USE_INT64" in pm.names.used:
        # only as a name: `obj.USE_INT64` (an attribute) clashes with nothing
        node = next((n for n in name_nodes(pm.module) if n.value == "USE_INT64"), None)
        if node is not None:
            return _reserved(pm, node, "USE_INT64")
    return None


def _reserved(pm: ParsedModule, node, name: str) -> Diagnostic:
    return pm.diagnostic(node, "T2T121", f"`{name}` is {RESERVED[name]}; this module uses the "
                         "name for something else", help=f"rename your `{name}`")


def _python_refuses(pm: ParsedModule, text: str, path: str) -> Optional[Diagnostic]:
    """libcst parses what Python's grammar allows; Python's compiler also refuses `break`
    outside a loop, `return` outside a function, ... A module Python would not run is not
    translated (its translation would not run either)."""
    try:
        compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        line = e.lineno or 1
        return Diagnostic("T2T001", f"syntax error: {e.msg}", path, line, max(e.offset or 1, 1),
                          help="fix the Python syntax; tile2triton only reads valid Python",
                          source_line=pm.source.line_text(line))
    except ValueError as e:  # e.g. null bytes
        return Diagnostic("T2T001", f"syntax error: {e}", path, 1, 1,
                          help="fix the Python source; tile2triton only reads valid Python",
                          source_line=pm.source.line_text(1))
    return None


def hidden_cutile_import(text: str, path: str, source) -> Optional[Diagnostic]:
    """cuda.tile imported where tile2triton does not look for it: inside `try:` (a guarded
    import), inside a function or class, or by `importlib.import_module("cuda.tile")` /
    `__import__`. The module is cuTile code tile2triton does not translate: a diagnostic,
    never "no cuTile here"."""
    if "cuda" not in text:
        return None
    import ast
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None

    def is_cutile(name) -> bool:
        return isinstance(name, str) and (name == "cuda.tile" or name.startswith("cuda.tile."))

    for node in ast.walk(tree):
        how = None
        if isinstance(node, ast.Import) and any(is_cutile(a.name) for a in node.names):
            how = "this import of cuda.tile is not at module level"
        elif isinstance(node, ast.ImportFrom) and not node.level and (
                is_cutile(node.module) or (node.module == "cuda" and any(
                    a.name == "tile" for a in node.names))):
            how = "this import from cuda.tile is not at module level"
        elif isinstance(node, ast.Call) and node.args and is_cutile(getattr(
                node.args[0], "value", None)) and (
                getattr(node.func, "attr", None) == "import_module"
                or getattr(node.func, "id", None) in ("import_module", "__import__")
                or getattr(node.func, "attr", None) == "importorskip"):  # pytest's
            how = "cuda.tile imported by name at run time"
        if how is not None:
            return Diagnostic(
                "T2T100", f"{how}: tile2triton translates kernels of modules that import "
                "cuda.tile at module level, unconditionally", path, node.lineno,
                node.col_offset + 1, help="import cuda.tile at the top of the module "
                "(`import cuda.tile as ct`), outside try/except and functions",
                source_line=source.line_text(node.lineno))
    return None


def translate_source(text: str, path: str = "<input>",
                     shared_runtime: Optional[str] = None,
                     shared_device: bool = True,
                     specialize: Optional[Specialization] = None,
                     coarsen: bool = True,
                     keep_unconverted: bool = False,
                     kept_foreign: frozenset = frozenset()) -> ModuleResult:
    """Translate one module. `shared_runtime`: the name of a module the output imports its
    helpers from (see `ModuleResult.runtime`) instead of defining them itself; with
    `shared_device=False` only the host helpers, the device helpers staying in the output (the
    corpus goldens' form). `specialize`: translate kernel `specialize.kernel` for one launch's
    arguments (live.translate_kernel). `coarsen=False`: one Triton program per cuTile block
    always (coarsen.py; the pattern examples show each construct's own translation).
    `keep_unconverted`: a module whose kernels did not all translate still gets its text, the
    failed kernels and host lines kept as cuTile code under notes (keep.py); its diagnostics
    are reported all the same. `kept_foreign`: (module as imported, kernel) of the kernels
    imported from the user's other modules that those keep as cuTile code (their launches
    stay cuTile's, under notes; launcher_links.py)."""
    pm, early = _parse_module(text, path, keep_unconverted)
    if early is not None:
        return early
    link_imports(pm)      # helpers and kernels imported from the user's other modules
    pm.kept_foreign = {local for local, k in pm.foreign_kernels.items() if k in kept_foreign}
    mc = ModuleContext(pm, load_registry())
    try:
        functions = find_cutile_functions(pm)
        # the module passes (rewrite/__init__.py): dataclass instances as fields, kernels of
        # host functions found. They replace function definitions, never roles: each
        # recognized function takes its rewritten definition.
        rewrites = rewrite.run(rewrite.MODULE_PASSES, rewrite.Unit(
            pm, roles=tuple(f.name for f in functions)))
        for f in functions:
            f.node = pm.functions[f.name]
    except Exception as e:  # noqa: BLE001 - reported with its location
        return ModuleResult(path, True, None,
                            module_diagnostics=[_failure(pm, e, pm.module, "the module")])
    clash = _reserved_clash(pm, functions)
    if clash is not None:
        return ModuleResult(path, True, None, module_diagnostics=[clash])
    result = ModuleResult(path, True, None)
    units: dict[str, tuple] = {}
    rank_variants: dict[str, list] = {}
    for fn in _kernels(pm, functions, rewrites.hoisted):
        _lower_kernel(mc, fn, specialize, rewrites.failures, result, units, rank_variants)
    failed = {k.kernel: k.diagnostics for k in result.kernels if k.status == "failed"}
    if failed and not keep_unconverted:
        _name_launchers(result, pm)     # (the checker's partial artifact launches by them)
        return result
    shared = emit.SharedRuntime(shared_runtime, shared_device) if shared_runtime else None
    _emit_module(result, text, pm, mc, units, functions, rank_variants, failed, shared, coarsen,
                 keep_unconverted)
    if result.output is not None:
        broken = _does_not_compile(result.output, path)
        if broken is not None:  # never a module that does not compile with exit 0
            result.output = None
            result.module_diagnostics.append(broken)
    return result


def _parse_module(text: str, path: str, keep_unconverted: bool):
    """(the parsed module, None), or (None, the result) for a module that ends here: one that
    does not parse, does not use cuda.tile, or that Python itself refuses."""
    if len(text) > MAX_SOURCE_CHARS and "cuda" not in text:
        return None, ModuleResult(path, False, text)  # a big file that cannot import cuda.tile
    try:
        pm = parse_source(text, path)
    except TranslationError as e:
        return None, ModuleResult(path, True, None, module_diagnostics=[e.diagnostic])
    except Exception as e:  # noqa: BLE001 - a parser failure the prescan did not foresee
        return None, ModuleResult(path, True, None, module_diagnostics=[Diagnostic(
            "T2T900", f"internal error while parsing: {type(e).__name__}: {e}", path, 1, 1,
            help="this is a tile2triton bug; please report it with this file")])
    if not pm.uses_cuda_tile() and not _calls_kernel_api(pm, text):
        probed = probe_rewrite(text) if "cuda" in text else None
        if probed is not None:   # `try: import cuda.tile` only to ask whether it is there
            return None, ModuleResult(path, True, probed)
        hidden = hidden_cutile_import(text, path, pm.source)
        if hidden is not None:   # cuTile code that would otherwise pass `--check` unseen
            # (--keep-unconverted: the module stays cuTile code as a whole, under the note)
            return None, ModuleResult(path, True, keep_mod.noted_text(text, [hidden])
                                      if keep_unconverted else None,
                                      module_diagnostics=[hidden])
        return None, ModuleResult(path, False, text)
    bad = _python_refuses(pm, text, path)
    if bad is not None:
        return None, ModuleResult(path, True, None, module_diagnostics=[bad])
    return pm, None


def _calls_kernel_api(pm, text: str) -> bool:
    """Whether a module that does not import cuda.tile is host code of cuTile kernels all the
    same: it imports a kernel of the user's other modules and calls a cuTile kernel method
    (`.replace_hints`, as a table of kernel variants does), which the Triton kernel lacks.
    Such a module is converted too, its calls becoming `_with_hints` (emit/host_references)."""
    if ".replace_hints" not in text:
        return False
    link_imports(pm)
    return bool(pm.foreign_kernels)


def _kernels(pm, functions, hoisted: list) -> list:
    """The module's kernels, and those defined inside host functions (test functions,
    factories; `hoisted`, rewrite/host_kernels.py), which are hoisted."""
    kernels = [f for f in functions if f.role == "kernel"]
    for nk in hoisted:
        fn = FunctionInfo(nk.hoisted, nk.node, "kernel", decorator_options=nk.options,
                          nested=nk)
        kernels.append(fn)
        for hoisted, node in nk.helpers.values():
            # a function of the host function that the kernel calls: a module-level helper
            if hoisted not in pm.functions:
                pm.functions[hoisted] = node
                pm.hoisted[hoisted] = (nk.outer_name, [])
    return kernels


def _lower_kernel(mc, fn, specialize, record_failures, result, units, rank_variants) -> None:
    """Lower kernel `fn` into `units` (its rank variants too, `rank_variants`), its report
    added to `result`; a failure is the report's located diagnostic, and leaves the module's
    helper specializations as they were."""
    pm = mc.pm
    nk = fn.nested
    report = KernelReport(fn.name, "translated", line=pm.def_line(fn.name) if nk is None
                          else pm.positions[fn.node.name].start.line)
    if nk is not None:
        report.outer, report.local_name = nk.outer_name, nk.name
        report.closure = list(nk.closure)
        report.outer_kind = nk.outer_kind
        report.choices = sorted(c for c in nk.closure if nk.choices.get(c))
        report.dtypes = sorted(c for c in nk.closure if c in nk.dtypes)
    result.kernels.append(report)
    saved_specs = dict(mc.helper_specs)
    saved_order = list(mc.helper_order)
    saved_globals = dict(pm.globals)
    try:
        if fn.name in record_failures and nk is None:
            raise record_failures[fn.name]      # (its dataclass uses did not rewrite)
        # the kernel passes (rewrite/__init__.py): tuple parameters split, and a kernel of a
        # host function's dataclass instances as fields; a kernel of a host function as it
        # calls the helpers hoisted with it (their module-level names)
        if nk is not None and nk.lowered is not None and fn.node is nk.node:
            fn.node = nk.lowered
        rewrite.run(rewrite.KERNEL_PASSES, rewrite.Unit(pm, fn=fn))
        spec = specialize if specialize is not None and specialize.kernel == fn.name \
            else None
        extra = []
        if nk is not None:      # the host function's constants fold, its other names are
            pm.globals.update(nk.folded)        # constexpr parameters
            extra = [ParamInfo(c, "constexpr", choices=nk.choices.get(c),
                               open_shape=c in nk.open_shapes, dtype_value=c in nk.dtypes)
                     for c in nk.closure]
        variants = _rank_variants(mc, fn, extra) if spec is None else None
        if variants:
            return _add_variants(fn, variants, units, rank_variants)
        try:
            fn.params = classify_params(pm, fn, spec) + extra
            unit = lower_function(mc, fn, fn.params)
        except TranslationError:
            # (what the failed attempt requested goes: the variants request their own)
            mc.helper_specs, mc.helper_order = dict(saved_specs), list(saved_order)
            variants = _value_variants(mc, fn, extra) if spec is None else None
            if not variants:
                raise
            return _add_variants(fn, variants, units, rank_variants)
        units[fn.name] = (fn, unit)
    except Exception as e:  # noqa: BLE001 - every failure becomes a located diagnostic
        report.status = "failed"
        report.diagnostics = [_failure(pm, e, fn.node, f"kernel `{fn.name}`")]
        mc.helper_specs, mc.helper_order = saved_specs, saved_order
    finally:
        pm.globals.clear()
        pm.globals.update(saved_globals)


def _name_launchers(result, pm) -> None:
    """Each translated kernel's launcher spelling (respelled where the user's module has that
    name already: a host function `launch_<kernel>` of its own)."""
    for report in result.kernels:
        if report.status == "translated":
            report.launcher = pm.names[launcher_name(report.kernel)]


def _emit_module(result, text, pm, mc, units, functions, rank_variants, failed, shared,
                 coarsen, keep_unconverted) -> None:
    """Render the module into `result.output`, checked first: a module that would not run is
    a diagnostic, never a written file."""
    path = result.path
    notes: list = []
    try:
        output = emit.render_module(pm, mc, units, functions, shared, coarsen,
                                    kept=failed if keep_unconverted else None,
                                    notes=notes if keep_unconverted else None,
                                    rank_variants=rank_variants)
        # a module that would not run is a diagnostic, never a written file
        problems = check_output(path, text, output, {f.name for f in functions},
                                pm.source.line_text,
                                cuda_tile_allowed=bool(failed or notes))
        if problems:
            result.module_diagnostics.extend(problems)
            return
        result.output = output
        _name_launchers(result, pm)
        result.kept = sorted(failed)
        result.module_diagnostics.extend(notes)
        result.runtime = shared.pieces if shared is not None else []
    except HostErrors as e:
        result.module_diagnostics.extend(err.diagnostic for err in e.errors)
    except Exception as e:  # noqa: BLE001 - every failure becomes a located diagnostic
        result.module_diagnostics.append(_failure(pm, e, pm.module, "the module"))


# At most this many translations of one kernel for the rank combinations of its arrays
MAX_RANK_VARIANTS = 8
# ... of the combinations tried (at most 27, translations kept at most 16 then): those whose
# ranks the kernel cannot take (the branch on `A.ndim` those ranks select stores into `C` with
# another rank) are no translation of their own
MAX_RANK_ATTEMPTS, MAX_RANK_KEPT = 27, 16


def _rank_variants(mc, fn: FunctionInfo, extra=()) -> Optional[list]:
    """A kernel whose own indexing leaves the ranks of some arrays open (open_ranks: `x` is
    indexed with rank 2 in one compile-time branch and rank 4 in another) is translated once
    per rank combination, as cuTile compiles one specialization per launch's ranks:
    [(((array, rank), ...), variant FunctionInfo, lowered unit)]. None for any other kernel,
    and where the combinations are too many or an open array is part of a tuple parameter
    (then classify_params reports the ranks). `extra`: parameters of a kernel of a host
    function (its closure names), after the kernel's own. In a variant, a branch on constants
    that cannot take the variant's ranks (`if keepdims:` stores a rank-2 `out`, else a rank-1
    one) is a compile-time error of the launches that take it (lower/branches.py), as cuTile
    rejects such a launch while compiling it; a combination whose ranks a use the variant
    cannot skip refuses (`if A.ndim == 1 and B.ndim == 1: ct.store(C, (0,), ...)` with a
    rank-2 `C`) has no variant: its launches are refused by the launcher, as cuTile refuses
    to compile them (test_mma.py's `matmul_nd_kernel`: 27 combinations, 15 translations, 9
    of them for ranks that take none of its branches)."""
    pm = mc.pm
    ranks = open_ranks(pm, fn)
    leaves = {leaf for _, parts in fn.tuple_params for leaf, _ in parts}
    if not ranks or ranks.keys() & leaves or prod(len(r) for r in ranks.values()) \
            > MAX_RANK_ATTEMPTS:
        return None
    out = []
    saved = dict(mc.helper_specs), list(mc.helper_order)
    for combo in product(*ranks.values()):
        before = dict(mc.helper_specs), list(mc.helper_order)
        chosen = tuple(zip(ranks, combo))
        variant = dataclasses.replace(
            fn, name=pm.names[fn.name + "".join(f"_{r}d" for r in combo)], params=[],
            rank_variant=True)
        try:
            variant.params = classify_params(pm, variant, Specialization(
                variant.name, chosen)) + list(extra)
            out.append((chosen, variant, lower_function(mc, variant, variant.params)))
        except TranslationError as e:
            d = e.diagnostic
            if d.code == "T2T105" and "rank" in d.message:
                # (these ranks meet a use of another rank: no launch of them compiles)
                mc.helper_specs, mc.helper_order = before
                continue
            # a rank that some use cannot take (the ranks conflict outside compile-time
            # branches): the kernel's rank conflict is reported as it is
            mc.helper_specs, mc.helper_order = saved
            return None
    if not out or len(out) > (MAX_RANK_VARIANTS if len(out) == prod(
            len(r) for r in ranks.values()) else MAX_RANK_KEPT):
        mc.helper_specs, mc.helper_order = saved
        return None
    return out


def _add_variants(fn, variants, units, rank_variants) -> None:
    """Kernel `fn` as its variants (_rank_variants, _value_variants), which its launcher
    chooses among."""
    fn.params = variants[0][1].params
    for _, vfn, unit in variants:
        units[vfn.name] = (vfn, unit)
    rank_variants[fn.name] = [(chosen, vfn.name) for chosen, vfn, _ in variants]


# At most this many ct.Constant[bool] parameters are translated once per value
MAX_BOOL_VARIANTS = 3


def _value_variants(mc, fn: FunctionInfo, extra=()) -> Optional[list]:
    """A kernel that does not translate until its `ct.Constant[bool]` parameters are known
    (`keepdims=keepdims` of a reduction, `if keepdims:` storing a rank-2 `out` and else a
    rank-1 one) is translated once per combination of their values, as cuTile compiles one
    specialization per launch's constants: [(((param, value), ...), variant, unit)], the
    launcher choosing by the launch's values (emit.render_rank_dispatch). None when the
    kernel has no such parameter, too many, or some combination still does not translate."""
    pm = mc.pm
    bools = [p.name.value for p in fn.node.params.params if p.annotation is not None
             and pm.module.code_for_node(p.annotation.annotation).replace(" ", "").endswith(
                 "Constant[bool]")]
    if not bools or len(bools) > MAX_BOOL_VARIANTS:
        return None
    ranks = open_ranks(pm, fn) or {}
    if prod(len(r) for r in ranks.values()) * 2 ** len(bools) > 4 * MAX_RANK_VARIANTS:
        return None
    out = []
    saved = dict(mc.helper_specs), list(mc.helper_order)
    for combo in product((False, True), repeat=len(bools)):
        values = tuple(zip(bools, combo))
        found = False
        for rcombo in product(*ranks.values()):     # (the ranks those values leave)
            chosen = values + tuple(zip(ranks, rcombo))
            variant = dataclasses.replace(
                fn, name=pm.names[fn.name + "".join(f"_{n}_{int(v)}" for n, v in values)
                                  + "".join(f"_{r}d" for r in rcombo)],
                params=[], rank_variant=True)
            try:
                variant.params = classify_params(pm, variant, Specialization(
                    variant.name, ranks=tuple(zip(ranks, rcombo)), values=values)) \
                    + list(extra)
                unit = lower_function(mc, variant, variant.params)
            except TranslationError:
                continue            # ranks these values do not give
            out.append((chosen, variant, unit))
            found = True
        if not found:
            mc.helper_specs, mc.helper_order = saved
            return None
    return out


def _does_not_compile(output: str, path: str) -> Optional[Diagnostic]:
    """A T2T900 when the translated module is not valid Python: a translator bug (a generated
    name or indentation that clashes with the input), reported instead of written."""
    try:
        try:
            compile(output, path, "exec", dont_inherit=True)
        except UnicodeEncodeError:  # a lone surrogate (a file name that is not UTF-8): the
            # writer reports what the file's encoding cannot hold; here only the syntax counts
            compile(output.encode("utf-8", "replace").decode("utf-8"), path, "exec",
                    dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        where = f" (line {e.lineno} of the translation: {e.text.strip()!r})" \
            if isinstance(e, SyntaxError) and e.lineno and e.text else ""
        return Diagnostic("T2T900", f"internal error: the translation does not compile: "
                          f"{getattr(e, 'msg', e)}{where}", path, 1, 1,
                          help="this is a tile2triton bug; please report it with this file")
    return None
