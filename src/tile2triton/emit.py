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

import re
from functools import lru_cache

import jinja2
import libcst as cst

from .model import USE_INT64, FunctionInfo
from .parse import ParsedModule

PLACEHOLDER = "__tile2triton_block_{}__"

# name -> formula over X (fp32 or fp64), for helpers that route fp16/bf16 through fp32
MATH_FORMULAS = {
    "exp": "tl.exp(X)", "exp2": "tl.exp2(X)", "log": "tl.log(X)", "log2": "tl.log2(X)",
    "sqrt": "tl.sqrt(X)", "rsqrt": "tl.rsqrt(X)", "sin": "tl.sin(X)", "cos": "tl.cos(X)",
    "tan": "tl.sin(X) / tl.cos(X)", "floor": "tl.floor(X)", "ceil": "tl.ceil(X)",
    "erf": "tl.erf(X)", "tanh": "_tanh_f(X)",
    "sinh": "0.5 * (tl.exp(X) - tl.exp(-X))", "cosh": "0.5 * (tl.exp(X) + tl.exp(-X))",
}
KEEP_DTYPE_REDUCTIONS = ("sum",)


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("tile2triton", "templates"),
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def render_runtime(needed: set) -> str:
    def ranks(prefix):  # "load_tile_2d" -> 2
        return sorted(int(n[len(prefix):-1]) for n in needed if n.startswith(prefix))
    math = [(n, MATH_FORMULAS[n]) for n in sorted(MATH_FORMULAS) if n in needed]
    text = _env().get_template("runtime.py.j2").render(
        needed=needed, load_ranks=ranks("load_tile_"), store_ranks=ranks("store_tile_"),
        load_window_ranks=ranks("load_window_"), store_window_ranks=ranks("store_window_"),
        math_helpers=math,
        keep_dtype_reductions=[r for r in KEEP_DTYPE_REDUCTIONS if r in needed])
    return text.strip("\n")


def render_host_helpers(lists: bool, features: set) -> str:
    return _env().get_template("host.py.j2").render(lists=lists, features=features).strip("\n")


KNOWN_HINTS = ("num_ctas", "occupancy", "opt_level")


def kernel_hints(pm: ParsedModule, fn: FunctionInfo, features: set) -> dict:
    """@ct.kernel(...) options as host-side Python source (ct.ByTarget -> _ByTarget)."""
    out = {}
    for key, value in fn.decorator_options.items():
        if key not in KNOWN_HINTS:
            raise pm.error(value, "T2T108", f"unknown @ct.kernel option `{key}`",
                           help=f"cuTile kernel options are {', '.join(KNOWN_HINTS)}")
        rw = _HostRewriter(pm, {}, {}, [])
        out[key] = pm.module.code_for_node(value.visit(rw))
        features |= rw.host_features
    return out


def _function_text(pm: ParsedModule, fn: FunctionInfo, params: list[str], body: str,
                   debug: bool = False) -> str:
    # device asserts are compiled only in Triton's debug mode
    lines = ["@triton.jit(debug=True)" if debug else "@triton.jit"]
    head = f"def {fn.name}("
    sig = ", ".join(params)
    if len(head) + len(sig) + 2 <= 100:
        lines.append(f"{head}{sig}):")
    else:  # wrap long signatures the way black would
        lines.append(head)
        lines.extend(f"    {p}," for p in params)
        lines.append("):")
    return "\n".join(lines) + "\n" + body


def kernel_params(params) -> list[str]:
    out = []
    for p in params:
        if p.kind == "array":
            out.extend(p.array.abi())
        elif p.kind == "array_list":
            out.extend(p.array_list.abi())
        elif p.kind == "constexpr":
            out.append(f"{p.name}: tl.constexpr")
        else:
            out.append(p.name)
    return out


def render_launcher(fn: FunctionInfo, unit, hints: dict) -> str:
    arrays = [p.name for p in fn.params if p.kind == "array"]
    ranks = {p.name: p.array.rank for p in fn.params if p.kind == "array"}
    lists = [(p.name, p.array_list) for p in fn.params if p.kind == "array_list"]
    call_args = []
    for p in fn.params:
        if p.kind == "array":
            call_args.append(f"{p.name}, *{p.name}.shape, *{p.name}.stride()")
        elif p.kind == "array_list":
            call_args.append(f"*{p.name}_tables, _triton_dtype({p.name}[0].dtype)")
        else:  # constexprs too: positional, in the kernel's parameter order
            call_args.append(p.name)
    constexprs = {p.name for p in fn.params if p.kind == "constexpr"}
    elems = []
    for e in unit.tile_elems:  # only sizes the launcher can evaluate (constants and constexprs)
        names = set(re.findall(r"[A-Za-z_]\w*", e))
        if names <= constexprs and e not in elems:
            elems.append(e)
    return _env().get_template("launcher.py.j2").render(
        kernel=fn.name, params=[p.name for p in fn.params], arrays=arrays, ranks=ranks,
        call_args=call_args, tile_elems=elems, uses_dot=unit.uses_dot,
        lists=[(n, L.rank) for n, L in lists],
        int64_args=arrays + [f"*{n}" for n, _ in lists], hints=hints).rstrip("\n")


class _HostRewriter(cst.CSTTransformer):
    """Rewrites the module around the kernels; kernels become placeholders filled later."""

    def __init__(self, pm: ParsedModule, kernels: dict, device_funcs: dict, blocks: list):
        self.pm = pm
        self.kernels = kernels  # kernel name -> its rendered text (kernel + launcher)
        self.device_funcs = device_funcs  # helper name -> its rendered @triton.jit text
        self.blocks = blocks  # texts for placeholders, index = placeholder number
        self.import_done = False
        self.depth = 0
        self.errors = []
        self.host_features: set = set()

    def _placeholder(self, text: str, leading=()) -> cst.SimpleStatementLine:
        self.blocks.append(text)
        return cst.SimpleStatementLine(
            [cst.Expr(cst.Name(PLACEHOLDER.format(len(self.blocks) - 1)))],
            leading_lines=leading)

    def visit_FunctionDef(self, node):
        self.depth += 1
        return node.name.value not in self.kernels and node.name.value not in self.device_funcs

    def leave_FunctionDef(self, original, updated):
        self.depth -= 1
        name = original.name.value
        if self.depth == 0 and (name in self.kernels or name in self.device_funcs):
            return self._placeholder(self.kernels.get(name) or self.device_funcs[name],
                                     original.leading_lines)
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        keep = []
        replaced = False
        for small in updated.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and self._is_cuda_tile_import(small):
                replaced = True
                continue
            if self.depth == 0 and isinstance(small, (cst.Assign, cst.AnnAssign)) \
                    and small.value is not None and self._is_cutile_value(small.value):
                replaced = True
                continue
            keep.append(small)
        if not replaced:
            return updated
        if not keep:
            if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in original.body) \
                    and not self.import_done:
                self.import_done = True
                return self._placeholder("__IMPORTS__", original.leading_lines)
            return cst.RemovalSentinel.REMOVE
        return updated.with_changes(body=keep)

    def _is_cuda_tile_import(self, node) -> bool:
        if isinstance(node, cst.Import):
            names = [self.pm.module.code_for_node(a.name) for a in node.names]
            return all(n == "cuda" or n.startswith("cuda.tile") for n in names)
        mod = self.pm.module.code_for_node(node.module) if node.module else ""
        return mod == "cuda.tile" or mod.startswith("cuda.tile.") or (
            mod == "cuda" and not isinstance(node.names, cst.ImportStar)
            and all(a.name.value == "tile" for a in node.names))

    def _is_cutile_value(self, expr) -> bool:
        for sub in _walk(expr):
            if isinstance(sub, (cst.Name, cst.Attribute)) and self.pm.ct_name(sub) is not None:
                return not isinstance(expr, cst.Call) or self.pm.ct_name(expr.func) not in (
                    "cdiv", "launch")
        return False

    # host-side cuTile names and what they become in the translated module
    HOST_NAMES = {"ByTarget": "_ByTarget", "tune.exhaustive_search": "_exhaustive_search",
                  "tune.TuningResult": "_TuningResult", "tune.Measurement": "_Measurement",
                  "cdiv": "triton.cdiv"}

    def leave_Attribute(self, original, updated):
        name = self.pm.ct_name(original)
        if name in self.HOST_NAMES:
            self.host_features.add(name)
            return cst.parse_expression(self.HOST_NAMES[name])
        return updated

    def leave_Name(self, original, updated):
        name = self.pm.ct_name(original)  # `from cuda.tile import ByTarget`
        if name in self.HOST_NAMES:
            self.host_features.add(name)
            return cst.parse_expression(self.HOST_NAMES[name])
        return updated

    def leave_Call(self, original, updated):
        func = original.func
        # kernel.replace_hints(...): the kernel's launcher with other hints
        if isinstance(func, cst.Attribute) and func.attr.value == "replace_hints" \
                and isinstance(func.value, cst.Name) and func.value.value in self.kernels:
            self.host_features.add("replace_hints")
            return updated.with_changes(
                func=cst.Name("_with_hints"),
                args=[cst.Arg(cst.Name(f"launch_{func.value.value}"))] + list(updated.args))
        name = self.pm.ct_name(func)
        if name is None or name in self.HOST_NAMES:
            return updated
        if name == "launch":
            args = list(updated.args)
            if len(args) != 4 or any(a.keyword is not None for a in args):
                self.errors.append(self.pm.error(
                    original, "T2T109", "ct.launch must be called as "
                    "ct.launch(stream, grid, kernel, args)",
                    help="pass the four arguments positionally"))
                return updated
            kernel = args[2].value
            if not (isinstance(kernel, cst.Name) and kernel.value in self.kernels):
                # a kernel chosen at run time (a variable, replace_hints, a tuning result)
                self.host_features.add("launch")
                return updated.with_changes(func=cst.Name("_launch"))
            kargs = args[3].value
            new_args = [args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT),
                        args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
            if isinstance(kargs, cst.Tuple):
                new_args += [e.value for e in kargs.elements]
                new_args = [a if isinstance(a, cst.Arg) else cst.Arg(a) for a in new_args]
            else:
                new_args.append(cst.Arg(kargs, star="*"))
            new_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in new_args]
            return cst.Call(func=cst.Name(f"launch_{kernel.value}"), args=new_args)
        self.errors.append(self.pm.error(
            original, "T2T109", f"host code uses ct.{name}, which has no translation outside "
            "kernels", help="host code may use ct.launch, ct.cdiv, ct.ByTarget, "
                            "kernel.replace_hints and ct.tune.exhaustive_search; use torch for "
                            "the rest"))
        return updated


def _insert_after_imports(module: cst.Module, text: str, blocks: list) -> cst.Module:
    """Put the helper block after the module's last top-level import (docstring first)."""
    body = list(module.body)
    last = -1
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine):
            if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
                last = i
            elif any(isinstance(s, cst.Expr) and isinstance(s.value, cst.Name)
                     and s.value.value.startswith("__tile2triton_block_")
                     and blocks[int(s.value.value.split("_")[-3])] == "__IMPORTS__"
                     for s in stmt.body):
                last = i
    blocks.append(text)
    placeholder = cst.SimpleStatementLine(
        [cst.Expr(cst.Name(PLACEHOLDER.format(len(blocks) - 1)))])
    body.insert(last + 1, placeholder)
    return module.with_changes(body=body)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def render_module(pm: ParsedModule, mc, units: dict, functions: list) -> str:
    needed = set()
    sources = {}
    kernel_texts = {}
    features: set = set()
    for name, (fn, unit) in units.items():
        needed |= unit.runtime_helpers
        sources.update(unit.helper_sources)
        params = kernel_params(fn.params) + [f"{USE_INT64}: tl.constexpr"]
        hints = kernel_hints(pm, fn, features)
        kernel_texts[name] = (_function_text(pm, fn, params, unit.text, unit.debug) + "\n"
                              + render_launcher(fn, unit, hints))
    device_texts = {}
    for name in mc.helper_order:
        _, unit, _ = mc.helper_specs[name]
        needed |= unit.runtime_helpers
        sources.update(unit.helper_sources)
        params = kernel_params(unit.fn.params)
        if unit.uses_array_params:
            params.append(f"{USE_INT64}: tl.constexpr")
        device_texts[name] = _function_text(pm, unit.fn, params, unit.text, unit.debug)
    # @ct.function definitions never called from a kernel are still device code: keep them out
    # of the host module but say so, rather than silently dropping them.
    for fn in functions:
        if fn.role == "function" and fn.name not in device_texts:
            device_texts[fn.name] = (f"# `{fn.name}` (@ct.function) is not called by any kernel "
                                     "in this module, so it was not translated.")
    blocks: list[str] = []
    rewriter = _HostRewriter(pm, kernel_texts, device_texts, blocks)
    new_module = pm.module.visit(rewriter)
    if rewriter.errors:
        raise rewriter.errors[0]
    features |= rewriter.host_features
    if features & {"launch", "replace_hints", "tune.exhaustive_search"}:
        # kernels chosen at run time are found through this table
        for name, text in kernel_texts.items():
            i = blocks.index(text)
            blocks[i] = text.rstrip("\n") + f"\n\n\n_LAUNCHERS[{name}] = launch_{name}\n"
    new_module = _insert_after_imports(new_module, "__HELPERS__", blocks)
    code = new_module.code
    has_torch = re.search(r"^(import torch\b|from torch\b)", code, re.M) is not None
    stdlib = ["contextlib"]
    if features & {"launch", "replace_hints", "tune.exhaustive_search"}:
        stdlib.append("functools")
    if "tune.exhaustive_search" in features:
        stdlib += ["dataclasses", "time"]
    imports = [f"import {m}" for m in sorted(stdlib)] + [""] + (
        [] if has_torch else ["import torch"]) + ["import triton", "import triton.language as tl"]
    runtime = render_runtime(needed)
    extra = "\n\n\n".join(sources[k] for k in sorted(sources))
    if extra:
        runtime = (runtime + "\n\n\n" + extra) if runtime else extra
    helpers = ((runtime + "\n\n\n") if runtime else "") + render_host_helpers(
        any(p.kind == "array_list" for fn, _ in units.values() for p in fn.params), features)
    if "__IMPORTS__" not in blocks:  # `import cuda.tile` shared a line with other imports
        code = "\n".join(imports) + "\n" + code
    for i, text in enumerate(blocks):
        if text == "__IMPORTS__":
            text = "\n".join(imports)
        elif text == "__HELPERS__":
            text = "\n\n" + helpers + "\n\n"
        code = code.replace(PLACEHOLDER.format(i), text.rstrip("\n"), 1)
    code = re.sub(r"\n{4,}", "\n\n\n", code)
    return with_header(code.rstrip("\n") + "\n", pm.source.path)


def with_header(code: str, path: str) -> str:
    """The module opens with a comment naming its source and the tile2triton version, after a
    `#!` line and a PEP 263 coding line, which must stay on the first two lines."""
    from pathlib import PurePath
    import tokenize

    from .version import __version__
    name = PurePath(path).name if not path.startswith("<") else path
    header = f"# Translated from {name} (cuTile) to Triton by tile2triton {__version__}.\n"
    lines = code.splitlines(True)
    keep = 0
    for i, line in enumerate(lines[:2]):
        if (i == 0 and line.startswith("#!")) or tokenize.cookie_re.match(line):
            keep = i + 1
        else:
            break
    return "".join(lines[:keep]) + header + "".join(lines[keep:])
