"""emit: cuTile names in host expressions, translated or refused.

Host code keeps a closed set of cuTile names: `ct.launch` (called with a known kernel: its
launcher; as a value: the run-time `_launch`), `ct.cdiv`, `ct.kernel`, `ct.ByTarget`,
`ct.compiler_timeout`, `ct.tune.*`, dtypes (Triton's), `.replace_hints`; a call of a tile
function that is plain Python math calls its `<name>_host` copy. Every other use is a located
T2T109 (HOST_HELP says what host code may use)."""
from __future__ import annotations

import libcst as cst

from ..model import DTYPES
from ..parse import ENUM_MEMBERS
from ..parse.cst_tools import walk
from ..parse.names import launcher_name

HOST_HELP = ("this is tile code: where it belongs to a kernel or a device helper, mark that "
              "function @ct.kernel or @ct.function (or call it from a kernel); host code itself "
              "may use ct.launch, ct.kernel, ct.cdiv, ct.ByTarget, ct.compiler_timeout, "
              "kernel.replace_hints, ct.tune.exhaustive_search and cuTile dtypes")
_RUNTIME_HELP = ("; to run the program as it is, without cuTile, use `tile2triton run -- python "
                 "PROGRAM` (docs/runtime.md)")


def host_message(name: str) -> str:
    """The message of a T2T109 on host code's use of `ct.<name>`."""
    if host_help(name) is HOST_HELP:        # a construct of kernels
        return f"host code uses ct.{name}, which has no translation outside kernels"
    return f"host code uses ct.{name}, which has no Triton translation"


def host_help(name: str) -> str:
    """The help of a T2T109 on host code's use of `ct.<name>`: what that name is, where it is
    not tile code (cuTile's private modules, ahead-of-time export, its exceptions)."""
    if name.startswith("_"):
        module = name.split(".")[0]
        return (f"`cuda.tile.{module}` is cuTile's internal module, which converted code cannot "
                "import; of its names only the host queries " + ", ".join(
                    sorted(f"`{n}`" for n in HOST_NAMES if n.startswith("_")))
                + " translate. Keep this code with cuTile" + _RUNTIME_HELP)
    if name.startswith("compilation."):
        return ("ahead-of-time export of cuTile kernels (`cuda.tile.compilation`) has no Triton "
                "counterpart: keep this code with cuTile" + _RUNTIME_HELP)
    if name.startswith("Tile") and name.endswith("Error"):
        return ("cuTile raises its exceptions while compiling a kernel, which converted code "
                "does not do (a Triton launch raises Triton's errors): keep code that expects "
                "them with cuTile" + _RUNTIME_HELP)
    return HOST_HELP


# What a host annotation naming a cuTile type names in the translated module: its kernels and
# device functions are Triton JITFunctions, its dtypes Triton's (host `ct.float16` becomes
# `tl.float16`), its arrays torch tensors, its enum members strings (`"PaddingMode.ZERO"`).
# cuTile's annotated types, as host code holds them: a translated kernel takes no annotations
# at launch (int64 indexing is its launcher's choice), so they are the plain types
HOST_TYPES = {"IndexedWithInt64": "torch.Tensor", "ScalarInt64": "int"}

ANNOTATION_TYPES = {
    **{f"cuda.tile.{name}": plain for name, plain in HOST_TYPES.items()},
    "cuda.tile.kernel": "triton.JITFunction",
    "cuda.tile.function": "triton.JITFunction",
    "cuda.tile.DType": "tl.dtype",
    "cuda.tile.Array": "torch.Tensor",
    "cuda.tile.Constant": "object",     # (bare: a constant of any type; Constant[T] is T)
    **{f"cuda.tile.{enum}": "str" for enum in ENUM_MEMBERS},
}


# host-side cuTile names and what they become in the translated module
HOST_NAMES = {"ByTarget": "_ByTarget", "tune.exhaustive_search": "_exhaustive_search",
              "tune.TuningResult": "_TuningResult", "tune.Measurement": "_Measurement",
              "cdiv": "triton.cdiv",
              # host queries of cuTile's private modules that programs make (the GPU's
              # compute capability, the TileIR bytecode version): answered for Triton
              "_cext.get_compute_capability": "_get_compute_capability",
              "_cext.dev_features_enabled": "_dev_features_enabled",
              "_compile._get_max_supported_bytecode_version":
                  "_get_max_supported_bytecode_version",
              "_bytecode.version.BytecodeVersion": "_BytecodeVersion"}
# host names whose attributes are read (`BytecodeVersion.V_13_3`)
HOST_NAME_PREFIXES = ("_bytecode.version.BytecodeVersion.",)


class HostErrors(Exception):
    """Several host-code diagnostics of one module (translate.py reports each)."""

    def __init__(self, errors):
        super().__init__(errors[0].diagnostic.message)
        self.errors = errors


class HostReferences(cst.CSTTransformer):
    """The expression half of HostRewriter (host.py), whose __init__ sets the state read
    here: `pm`, `names`, `kernels`, `device_funcs`, `uncalled`, `kept`, `nested`, `errors`,
    `host_features`, `introduced`, `called`, `annotations`, `nested_refs`, `host_reads`."""

    def _host_runnable(self, name: str) -> bool:
        """Whether host code calls tile function `name` and it can run there: it reads no
        cuda.tile name and calls no other tile function (plain Python math on its arguments,
        which host code passes host values)."""
        if name not in self._host_reads() or name not in self.pm.functions:
            return False
        fdef = self.pm.functions[name]
        fdef = self.pm.origins.get(fdef, fdef)
        tile = set(self.device_funcs) | set(self.uncalled) | set(self.kernels)
        for sub in walk(fdef.body):
            if isinstance(sub, (cst.Name, cst.Attribute)) and (
                    self.pm.ct_name(sub) is not None or self.pm.qualname(sub) == "cuda.tile"):
                return False
            if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Name) \
                    and sub.func.value in tile:
                return False
        return not any(self.pm.ct_name(n) is not None for p in fdef.params.params
                       if p.annotation is not None for n in walk(p.annotation.annotation)
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
        for sub in walk(small.value):
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
        name = self._host_ct_name(original)
        if name is None:
            if self.pm.qualname(original) == "cuda.tile" and not self.annotations:
                self.errors.append(self.pm.error(
                    where, "T2T109", "host code uses the cuda.tile module as a value; the "
                    "translated module does not import cuda.tile",
                    help="refer to the cuTile names you need directly (ct.launch, ct.cdiv, "
                         "...), which convert translates"))
            return updated
        if name in HOST_NAMES:
            return self._host_name(name)
        for prefix in HOST_NAME_PREFIXES:
            if name.startswith(prefix) and name[len(prefix):].isidentifier():
                return cst.Attribute(self._host_name(prefix[:-1]), cst.Name(name[len(prefix):]))
        if self.annotations or id(original) in self.called:
            return updated
        if name == "launch":
            self.host_features.add("launch")
            self.introduced.add("_launch")
            return cst.Name(self.names["_launch"])
        dtype = DTYPES.get(name)
        if dtype is not None and dtype.triton is not None:
            return cst.parse_expression(dtype.triton)
        if name in HOST_TYPES:      # `make_kernel(tuple[ct.IndexedWithInt64, torch.Tensor])`
            return cst.parse_expression(HOST_TYPES[name])
        if f"cuda.tile.{name}" in self._choices():
            # a construct handed to a kernel factory as a value: its name, which the
            # kernel's translation chooses by (host_kernels.choice_candidates)
            return cst.SimpleString(f'"{name}"')
        self.errors.append(self.pm.error(
            where, "T2T109", host_message(name), help=host_help(name)))
        return updated

    def _host_ct_name(self, node):
        """pm.ct_name of `node` as host code reads it: a name the module binds only for the
        helpers it links from other modules (`to_dtype`, which util.py imports from
        cuda.tile) is no import of host code here, where it is a local or a parameter."""
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and root.value in self.pm.borrowed_imports:
            return None
        return self.pm.ct_name(node)

    def _choices(self) -> set:
        """The function values that kernels of host functions choose among."""
        return {c for k in self.nested.values() for cs in k.choices.values() for c in cs}

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
                if name in HOST_NAMES or name in ("launch", "kernel") \
                        or name.startswith("_") or f"cuda.tile.{name}" in self._choices():
                    return False        # (a construct handed to a kernel factory: its name)
                folded = True
                continue
            stack.extend(sub.children)
        return folded


    def _host_name(self, name: str):
        self.host_features.add(name)
        if name.startswith("tune."):   # (the tuning helpers come as one block)
            self.host_features.add("tune.exhaustive_search")
        target = HOST_NAMES[name]
        if "." in target:
            return cst.parse_expression(target)
        self.introduced.add(target)
        return cst.Name(self.names[target])

    def leave_Annotation(self, original, updated):
        """Host annotations naming cuTile types (`k: ct.kernel`, `dt: "ct.DType"`,
        `n: ct.Constant[int]`) name what the translated module holds there instead
        (ANNOTATION_TYPES): a string stays a string, an expression an expression, and no
        annotation is left naming a `ct` the module no longer imports. One naming another
        cuTile type becomes a string, documenting the type without importing cuda.tile."""
        self.annotations -= 1
        ann = original.annotation
        if isinstance(ann, cst.SimpleString) and isinstance(ann.evaluated_value, str):
            try:
                written = cst.parse_expression(ann.evaluated_value.strip())
            except cst.ParserSyntaxError:
                return updated
            mapped = self._annotation_type(written)
            if mapped is None or mapped is written:
                return updated
            code = cst.Module([]).code_for_node(mapped)
            quote = "'" if '"' in code else '"'
            return updated.with_changes(annotation=cst.SimpleString(f"{quote}{code}{quote}"))
        code = self.pm.module.code_for_node(ann)
        written = cst.parse_expression(code)
        mapped = self._annotation_type(written)
        if mapped is written:
            return updated
        if mapped is not None:
            return updated.with_changes(annotation=mapped)
        quote = "'" if '"' in code else '"'
        return updated.with_changes(annotation=cst.SimpleString(f"{quote}{code}{quote}"))

    def _annotation_type(self, expr: cst.BaseExpression):
        return annotation_type(self.pm, expr, HOST_NAMES, self._host_name)

    def leave_Attribute(self, original, updated):
        if original.attr.value == "_pyfunc":
            # a cuTile kernel's Python function (`kernel._pyfunc.__name__`): a JITFunction's
            # is its `.fn`
            return updated.with_changes(attr=cst.Name("fn"))
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
            return self._replace_hints_call(original, updated)
        attr = self._getattr_of_module(original)
        if attr is not None:    # getattr(ct, "launch") is ct.launch
            ref = cst.Attribute(original.args[0].value, cst.Name(attr))
            return self._host_reference(ref, ref, where=original)
        if isinstance(func, cst.Name) and func.value in self.device_funcs \
                and func.value not in self.kernels:
            return self._tile_function_call(original, updated)
        name = self._host_ct_name(func)
        if name is None or name in HOST_NAMES:
            return updated
        if name in ("ArrayAnnotation", "ListAnnotation"):
            # inside annotations (which become strings) and the module-level aliases of them
            # (`Rows = Annotated[list, ct.ListAnnotation(...)]`, dropped like other aliases)
            return updated
        if name == "kernel":
            kernel = self._kernel_call(original, updated)
            if kernel is not None:
                return kernel
        if name == "compiler_timeout":
            # Triton compiles without a time limit: a context manager that does nothing
            self.introduced.add("contextlib")
            return updated.with_changes(func=cst.parse_expression("contextlib.nullcontext"),
                                        args=[])
        if name == "launch":
            return self._launch_call(original, updated)
        self.errors.append(self.pm.error(
            original, "T2T109", host_message(name), help=host_help(name)))
        return updated

    def _replace_hints_call(self, original, updated):
        """`kernel.replace_hints(...)`: the kernel's launcher with other hints."""
        func = original.func
        self.host_features.add("replace_hints")
        self.introduced.add("_with_hints")
        if isinstance(func.value, cst.Name) and func.value.value in self.kept:
            return updated      # a kept cuTile kernel's own replace_hints
        known = isinstance(func.value, cst.Name) and func.value.value in self.kernels
        target = cst.Name(self.names[launcher_name(func.value.value)]) if known \
            else updated.func.value
        return updated.with_changes(func=cst.Name(self.names["_with_hints"]),
                                    args=[cst.Arg(target)] + list(updated.args))

    def _tile_function_call(self, original, updated):
        """A call of a tile function: its host copy where it is plain Python math, else
        T2T109."""
        func = original.func
        if self._host_runnable(func.value):
            # plain Python math: the host calls a copy of it without the cuTile decorator
            return updated.with_changes(func=cst.Name(self.names[f"{func.value}_host"]))
        self.errors.append(self.pm.error(
            original, "T2T109", f"host code calls `{func.value}`, a tile function: in "
            "the Triton module it is a @triton.jit function, which only kernels can call",
            help=f"`{func.value}` uses cuda.tile, so it cannot run on the host; call a "
                 "plain Python function from host code"))
        return updated

    def _kernel_call(self, original, updated):
        """`ct.kernel(fn, **options)` in host code: the Triton kernel or its launcher with
        hints; None where the call is not one of those."""
        if original.args and isinstance(original.args[0].value, cst.Name) \
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
        if len(updated.args) >= 1 and updated.args[0].keyword is None \
                and updated.args[0].star == "":
            # ct.kernel(fn) of a function given at run time (`def run(fn): ct.kernel(fn)`):
            # the functions handed to it are translated kernels, found through _LAUNCHERS;
            # ct.kernel(k._pyfunc), a new kernel of k's function, is k itself
            self.host_features.add("launch")
            opts = [a for a in updated.args[1:] if a.keyword is not None]
            first = original.args[0].value
            if isinstance(first, cst.Attribute) and first.attr.value == "_pyfunc":
                updated = updated.with_changes(args=[updated.args[0].with_changes(
                    value=updated.args[0].value.value)] + list(updated.args[1:]))
            if not opts:
                return updated.args[0].value
            self.host_features.add("replace_hints")
            self.introduced.add("_with_hints")
            return updated.with_changes(func=cst.Name(self.names["_with_hints"]),
                                        args=[updated.args[0].with_changes(
                                            comma=cst.MaybeSentinel.DEFAULT)] + opts)
        return None

    def _launch_call(self, original, updated):
        """`ct.launch(stream, grid, kernel, args)`: the kernel's launcher, `_launch` for a
        kernel chosen at run time, or a diagnostic."""
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


def annotation_type(pm, expr: cst.BaseExpression, host_names, host_name):
    """`expr` (an annotation, parsed on its own) with every cuTile type replaced by its
    ANNOTATION_TYPES counterpart (or the host name serving it: `host_name(short)` for a name
    of `host_names`) and `ct.Constant[T]` by `T`; `expr` itself when it names no cuTile type;
    None when it names one without a counterpart."""
    imports = pm.imports

    def qualname(node):
        parts = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name) or node.value not in imports:
            return None
        q = ".".join([imports[node.value], *reversed(parts)])
        return q if q == "cuda.tile" or q.startswith("cuda.tile.") else None

    class Types(cst.CSTTransformer):
        def leave_Subscript(self, original, updated):
            if qualname(original.value) == "cuda.tile.Constant" and len(updated.slice) == 1 \
                    and isinstance(updated.slice[0].slice, cst.Index):
                return updated.slice[0].slice.value
            return updated

        def leave_Attribute(self, original, updated):
            return self._type(original, updated)

        def leave_Name(self, original, updated):
            return self._type(original, updated)

        def _type(self, original, updated):
            q = qualname(original)
            if q is None:
                return updated
            if q in ANNOTATION_TYPES:
                return cst.parse_expression(ANNOTATION_TYPES[q])
            if q[len("cuda.tile."):] in host_names:   # (`ct.tune.TuningResult`)
                return host_name(q[len("cuda.tile."):])
            return updated      # (what is left unmapped is found below)

    class Aliases(cst.CSTTransformer):
        # `n: ConstInt` where `ConstInt = ct.Constant[int]` (an alias the module drops)
        def leave_Name(self, original, updated):
            if original.value in pm.globals and original.value not in imports:
                target = pm.unalias(original)
                if target is not original and any(
                        qualname(n) for n in walk(target)
                        if isinstance(n, (cst.Name, cst.Attribute))):
                    return cst.parse_expression(pm.module.code_for_node(target))
            return updated

    def names_cutile(tree) -> bool:
        return any(qualname(n) for n in walk(tree) if isinstance(n, (cst.Name, cst.Attribute)))

    unaliased = expr.visit(Aliases())
    if not names_cutile(unaliased):
        return expr
    mapped = unaliased.visit(Types())
    return None if names_cutile(mapped) else mapped
