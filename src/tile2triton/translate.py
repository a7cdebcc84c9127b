"""The pipeline for one module: parse -> recognize -> lower -> emit.

`translate_source` never raises for user errors in a kernel: each kernel either translates or
carries diagnostics, and the module text is produced only when every kernel translated (a file
is never half-translated).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from . import emit
from .diagnostics import Diagnostic, TranslationError
from .lower import Lowerer, ModuleContext
from .model import ArrayInfo, ArrayV, ConstExprV, ConstV, FunctionInfo, ParamInfo, TileV, TupleV
from .parse import ParsedModule, parse_source
from .recognize import classify_params, find_cutile_functions
from .registry import load_patterns


@dataclass
class KernelReport:
    kernel: str
    status: str  # translated | failed
    diagnostics: list = field(default_factory=list)
    line: int = 0


@dataclass
class ModuleResult:
    path: str
    has_cutile: bool
    output: Optional[str]  # None when any kernel failed
    kernels: list = field(default_factory=list)
    module_diagnostics: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.output is not None and not self.module_diagnostics \
            and all(k.status == "translated" for k in self.kernels)

    def diagnostics(self) -> list[Diagnostic]:
        out = list(self.module_diagnostics)
        for k in self.kernels:
            out.extend(k.diagnostics)
        return out


def _internal(pm: ParsedModule, node, exc: Exception, what: str) -> Diagnostic:
    d = pm.diagnostic(node, "T2T900",
                      f"internal error while translating {what}: {type(exc).__name__}: {exc}",
                      help="this is a tile2triton bug; please report it with this file")
    return d


def lower_function(mc: ModuleContext, fn: FunctionInfo, params: list[ParamInfo]) -> tuple:
    lw = Lowerer(mc, fn, params)
    lines = lw.lower_body()
    lw.result.text = "\n".join(lines)
    return lw.result, lw


def lower_helper(mc: ModuleContext, name: str, call_node, args, caller: Lowerer):
    """Translate a helper for the argument kinds of this call (once per helper)."""
    pm = mc.pm
    fdef = pm.functions[name]
    fn_params = list(fdef.params.params)
    if len(fn_params) != len(args) or fdef.params.posonly_params or fdef.params.kwonly_params \
            or fdef.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT):
        raise pm.error(call_node, "T2T102",
                       f"helper `{name}` must be called with one positional argument per parameter")
    params, key = [], []
    for p, a in zip(fn_params, args):
        pname = p.name.value
        if isinstance(a.val, ArrayV):
            info = ArrayInfo(pname, rank=a.val.info.rank)
            params.append(ParamInfo(pname, "array", info))
            key.append(("array", info.rank))
        elif isinstance(a.val, (ConstV, ConstExprV)) or (
                isinstance(a.val, TupleV) and all(isinstance(i, (ConstV, ConstExprV))
                                                  for i in a.val.items)):
            params.append(ParamInfo(pname, "constexpr"))
            key.append(("constexpr",))
        else:
            params.append(ParamInfo(pname, "tile"))
            key.append(("tile",))
    key = tuple(key)
    if name in mc.helper_specs:
        old_key, unit, ret = mc.helper_specs[name]
        if old_key != key:
            raise pm.error(call_node, "T2T105",
                           f"helper `{name}` is called with different kinds of arguments "
                           "(arrays of other ranks, or tiles where constants were passed)",
                           help="tile2triton translates each helper once; make the calls agree")
        return unit, ret
    if name in getattr(mc, "_in_progress", set()):
        raise pm.error(call_node, "T2T101", f"recursive helper `{name}` cannot be translated")
    mc.__dict__.setdefault("_in_progress", set()).add(name)
    role = "helper"
    from .recognize import decorator_role
    for dec in fdef.decorators:
        r, _ = decorator_role(pm, dec)
        if r:
            role = r
    fn = FunctionInfo(name, fdef, role, params)
    lw = Lowerer(mc, fn, params)
    lw.return_val = None
    lines = lw.lower_body()
    unit = lw.result
    unit.text = "\n".join(lines)
    unit.uses_array_params = any(p.kind == "array" for p in params)
    unit.fn = fn
    ret = _helper_return_val(fdef, lw)
    mc.helper_specs[name] = (key, unit, ret)
    mc.helper_order.append(name)
    mc._in_progress.discard(name)
    return unit, ret


def _helper_return_val(fdef, lw: Lowerer):
    """The helper's return value kind: re-lower the last `return` expression in its env."""
    last = None
    for stmt in reversed(fdef.body.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            for s in stmt.body:
                if isinstance(s, cst.Return) and s.value is not None:
                    last = s.value
            if last is not None:
                break
    if last is None:
        return TileV()
    try:
        return lw.expr(last).val
    except TranslationError:
        return TileV()


def translate_source(text: str, path: str = "<input>") -> ModuleResult:
    try:
        pm = parse_source(text, path)
    except TranslationError as e:
        return ModuleResult(path, True, None, module_diagnostics=[e.diagnostic])
    if not pm.uses_cuda_tile():
        return ModuleResult(path, False, text)
    patterns = load_patterns()
    mc = ModuleContext(pm, patterns)
    functions = find_cutile_functions(pm)
    kernels = [f for f in functions if f.role == "kernel"]
    result = ModuleResult(path, True, None)
    units: dict[str, tuple] = {}
    for fn in kernels:
        report = KernelReport(fn.name, "translated", line=pm.def_line(fn.name))
        result.kernels.append(report)
        saved_specs = dict(mc.helper_specs)
        saved_order = list(mc.helper_order)
        try:
            fn.params = classify_params(pm, fn)
            unit, _ = lower_function(mc, fn, fn.params)
            units[fn.name] = (fn, unit)
        except TranslationError as e:
            report.status, report.diagnostics = "failed", [e.diagnostic]
            mc.helper_specs, mc.helper_order = saved_specs, saved_order
        except RecursionError as e:
            report.status = "failed"
            report.diagnostics = [_internal(pm, fn.node, e, f"kernel `{fn.name}`")]
        except Exception as e:  # noqa: BLE001 - reported as internal error with location
            report.status = "failed"
            report.diagnostics = [_internal(pm, fn.node, e, f"kernel `{fn.name}`")]
    if any(k.status == "failed" for k in result.kernels):
        return result
    try:
        result.output = emit.render_module(pm, mc, units, functions)
    except TranslationError as e:
        result.module_diagnostics.append(e.diagnostic)
    return result
