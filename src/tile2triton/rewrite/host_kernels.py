"""recognize: kernels defined inside host functions (a test function, a kernel factory).

    def make_kernel(block):
        zero = ct.PaddingMode.ZERO
        @ct.kernel
        def scale(x, out):
            ... ct.load(x, ..., shape=(block,), padding_mode=zero) ...
        return scale

The kernel is hoisted to module level as a `@triton.jit` kernel with its launcher. Names it
takes from the enclosing function are either folded (locals assigned once from a literal or a
cuTile constant, like `zero`) or become constexpr parameters of the Triton kernel and keyword
parameters of its launcher (`block`). Inside the host function the definition becomes
`scale = functools.partial(launch_scale, block=block)`, which `ct.launch` (→ `_launch`) calls.

Only one level of nesting is translated statically; anything deeper is translated at run time
by `tile2triton.translate_kernel`.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..parse.cst_tools import single_return
from ..parse.source import ParsedModule
from .frozen_dataclasses import is_record_call


@dataclass
class NestedKernel:
    outer: cst.CSTNode              # the module-level host function (or class)
    node: cst.FunctionDef           # the kernel definition inside it
    name: str                       # the kernel's name inside the host function
    hoisted: str                    # its name at module level
    options: dict
    folded: dict = field(default_factory=dict)     # name -> expression folded as a constant
    closure: list = field(default_factory=list)    # names that become constexpr parameters
    outer_kind: str = "function"    # or "class": a kernel of a module-level class's body
    owner: Optional[cst.ClassDef] = None    # `outer` is a method of this module-level class
    # functions of the host function the kernel calls, hoisted as helpers:
    # local name -> (module-level name, definition with the hoisted names)
    helpers: dict = field(default_factory=dict)
    lowered: Optional[cst.FunctionDef] = None   # `node` calling them by those names
    # closure names the kernel calls: the functions they may be (choice_candidates)
    choices: dict = field(default_factory=dict)
    # closure names passed as a shape whose length the host decides (`traversal_steps=steps`:
    # None or a tuple per launch): constexprs the lowering indexes per axis
    open_shapes: set = field(default_factory=set)
    # closure names passed as a construct's `dtype` (`ct.astype(t, to_dtype)` of a factory's
    # parameter): constexprs holding the Triton dtype the launcher makes of the launch's dtype
    dtypes: set = field(default_factory=set)
    # classes the host function defines that the kernel uses (its dataclasses, rewritten with
    # the kernel as the module's are: frozen_dataclasses.rewrite_nested_kernel): name -> ClassDef
    classes: dict = field(default_factory=dict)

    @property
    def outer_name(self) -> str:
        """The host function's (or class's) qualified name: `make`, `TestX.test_y`, `K`."""
        own = self.outer.name.value
        return own if self.owner is None else f"{self.owner.name.value}.{own}"


class _Assigns(cst.CSTVisitor):
    """Names the host function binds, how often, and the value of single assignments; nested
    function bodies are not entered."""

    def __init__(self):
        self.count: dict = {}
        self.value: dict = {}
        self.defs: set = set()
        self.kernels: list = []
        self.classes: dict = {}
        self.depth = 0

    def visit_FunctionDef(self, node):
        self.depth += 1
        if self.depth > 1:
            self.defs.add(node.name.value)
            self.count[node.name.value] = self.count.get(node.name.value, 0) + 1
            self.kernels.append(node)
            return False
        return True

    def leave_FunctionDef(self, node):
        self.depth -= 1

    def visit_ClassDef(self, node):
        self.count[node.name.value] = self.count.get(node.name.value, 0) + 1
        self.classes[node.name.value] = node
        return False

    def visit_Lambda(self, node):
        return False

    def _bind(self, target, value):
        if isinstance(target, cst.Name):
            self.count[target.value] = self.count.get(target.value, 0) + 1
            self.value[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind(e.value, None)

    def visit_Assign(self, node):
        for t in node.targets:
            self._bind(t.target, node.value)

    def visit_AnnAssign(self, node):
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node):
        self._bind(node.target, None)
        self._bind(node.target, None)

    def visit_For(self, node):
        self._bind(node.target, None)
        self._bind(node.target, None)

    def visit_WithItem(self, node):
        if node.asname is not None:
            self._bind(node.asname.name, None)
            self._bind(node.asname.name, None)

    def visit_NamedExpr(self, node):
        self._bind(node.target, None)
        self._bind(node.target, None)


def _names_used(node) -> set:
    """Names read in `node` (attribute names and keyword names are not names)."""
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)
        elif isinstance(n, cst.Arg):
            stack.append(n.value)
        else:
            stack.extend(n.children)
    return out


def _foldable(pm: ParsedModule, expr) -> bool:
    """A literal, or an expression of literals and cuTile names (`ct.PaddingMode.ZERO`)."""
    if expr is None:
        return False
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute):
            if pm.ct_name(n) is None and not _foldable(pm, n.value):
                return False
            continue
        if isinstance(n, cst.Name):
            if pm.ct_name(n) is None and pm.imports.get(n.value) is None \
                    and n.value not in pm.globals and n.value not in ("True", "False", "None"):
                return False
            continue
        if isinstance(n, (cst.Call, cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.Await)):
            return False
        stack.extend(n.children)
    return True


def find_nested_kernels(pm: ParsedModule, taken: set) -> list[NestedKernel]:
    out = []
    for stmt in pm.module.body:
        if isinstance(stmt, cst.ClassDef):
            out += _class_kernels(pm, stmt, taken)
            if isinstance(stmt.body, cst.IndentedBlock):
                for method in stmt.body.body:   # kernels defined in a method (a test class)
                    if isinstance(method, cst.FunctionDef):
                        out += _function_kernels(pm, method, taken, stmt)
            continue
        if isinstance(stmt, cst.FunctionDef):
            out += _function_kernels(pm, stmt, taken, None)
    return out


def _function_kernels(pm: ParsedModule, stmt: cst.FunctionDef, taken: set,
                      owner: Optional[cst.ClassDef]) -> list[NestedKernel]:
    """The kernels defined in host function `stmt` (module level, or a method of class
    `owner`: the kernels then go before the class)."""
    out = []
    if any(pm.decorator_role(d)[0] for d in stmt.decorators):
        return out
    scan = _Assigns()
    stmt.visit(scan)
    params = {p.name.value for p in list(stmt.params.params) + list(stmt.params.kwonly_params)
              + list(stmt.params.posonly_params)}
    if stmt.params.star_arg is not None and isinstance(stmt.params.star_arg, cst.Param):
        params.add(stmt.params.star_arg.name.value)
    if stmt.params.star_kwarg is not None:
        params.add(stmt.params.star_kwarg.name.value)
    handed = _handed_to_kernel(pm, stmt)
    helpers_of: dict = {}       # (shared by the host function's kernels)
    prefix = stmt.name.value if owner is None else f"{owner.name.value}_{stmt.name.value}"
    for node in scan.kernels:
        role, options = None, {}
        for d in node.decorators:
            r, o = pm.decorator_role(d)
            if r == "kernel":
                role, options = r, o
        if role is None and node.name.value in handed and scan.count.get(
                node.name.value) == 1 and not any(
                    pm.decorator_role(d)[0] for d in node.decorators):
            # `ct.kernel(f, **options)` in the host function makes its nested `f` a kernel
            role, options = "kernel", handed[node.name.value]
        if role is None:
            continue
        name = node.name.value
        hoisted = name if name not in taken else f"{prefix}_{name}"
        i = 1
        while hoisted in taken:
            i += 1
            hoisted = f"{prefix}_{name}_{i}"
        taken.add(hoisted)
        nk = NestedKernel(stmt, node, name, hoisted, options, owner=owner)
        inner_local = _local_names(node)
        typed = _annotation_only(node, params | set(scan.count))
        for n in sorted(_names_used(node) - inner_local - typed):
            if n in scan.defs:
                # a function of the host function that reads none of its locals: a helper,
                # hoisted with the kernel (with those it calls); else unknown in the kernel
                local_defs = _hoistable_defs(pm, scan, params, prefix, taken, helpers_of)
                for h in _reached_defs(n, local_defs):
                    nk.helpers.setdefault(h, local_defs[h])
                continue
            if n in scan.classes and scan.count.get(n) == 1:
                # a class of the host function (its dataclasses, and the local classes they
                # derive from): known to the kernel as the module's classes are
                for c in _reached_classes(n, scan):
                    nk.classes.setdefault(c, scan.classes[c])
                continue
            if n in params or n in scan.count:
                value = scan.value.get(n)
                made = _constant_instance(pm, value, scan)
                if n not in params and scan.count.get(n) == 1 and (
                        _foldable(pm, value) or made):
                    # (an instance made of constants, `fb = FooBar(2, 7)`: its fields fold)
                    nk.folded[n] = value
                    for c in made or ():
                        for r in _reached_classes(c, scan):
                            nk.classes.setdefault(r, scan.classes[r])
                else:
                    nk.closure.append(n)
        # (in the order the host function defines them: a base before the classes deriving)
        nk.classes = {c: d for c, d in scan.classes.items() if c in nk.classes}
        _closure_kinds(pm, nk, node)
        nk.lowered = _as_lowered(pm, nk, node, typed)
        out.append(nk)
    return out


def _annotation_only(node: cst.FunctionDef, host: set) -> set:
    """Names of the host function (`host`) that kernel `node` reads only in its parameters'
    annotations (`def k(pair: annotation, out)` of `make_kernel(annotation)`): Python
    evaluates them when the host function defines the kernel, so they are no closure of it."""
    params = list(node.params.params) + list(node.params.kwonly_params) \
        + list(node.params.posonly_params)
    typed = set().union(*(_names_used(p.annotation) for p in params if p.annotation))
    rest = _names_used(node.body) | set().union(
        *(_names_used(p.default) for p in params if p.default is not None))
    return (typed & host) - rest


class _DropAnnotations(cst.CSTTransformer):
    """Parameters lose annotations that read `names`."""

    def __init__(self, names: set, origins: dict):
        self.names = names
        self.origins = origins

    def leave_Param(self, original, updated):
        if original.annotation is not None and _names_used(original.annotation) & self.names:
            new = updated.with_changes(annotation=None)
            self.origins[new] = original
            return new
        return updated


def _as_lowered(pm: ParsedModule, nk: NestedKernel, node: cst.FunctionDef, typed: set):
    """The kernel as lowered, where that differs from `node` (else None): it calls the
    helpers hoisted with it by their module-level names, and its parameters lose annotations
    the host function gives (`typed`): the translation has no launch-time annotations (the
    parameters are classified by their use; int64 indexing is the launcher's choice)."""
    lowered = node
    if typed:
        lowered = lowered.visit(_DropAnnotations(typed, pm.origins))
        pm.origins[lowered] = node
    renames = {h: hn for h, (hn, _) in nk.helpers.items() if h != hn}
    if renames:
        lowered = lowered.visit(_Rename(renames, pm.origins))
    return lowered if lowered is not node else None


def _member_reads(fdef) -> set:
    """Names whose `.name` or `.value` the kernel reads (enum members)."""
    return {n.value.value for n in _walk_nodes(fdef) if isinstance(n, cst.Attribute)
            and isinstance(n.value, cst.Name) and n.attr.value in ("name", "value")}


def _closure_kinds(pm: ParsedModule, nk: NestedKernel, node: cst.FunctionDef) -> None:
    """What kernel `node` does with each of its closure names, where that shapes its
    parameter: calls it (a function value), passes it as a cuTile enum member, a shape of
    the launch's choosing or a dtype."""
    called = {n.func.value for n in _walk_nodes(node) if isinstance(n, cst.Call)
              and isinstance(n.func, cst.Name)}
    enums = _enum_arguments(node)
    dtype_names = _dtype_arguments(pm, node)
    for c in nk.closure:
        if c in called:     # a function value the host function hands its kernel
            nk.choices[c] = choice_candidates(pm)
        elif c in enums:    # a cuTile enum member (`rounding_mode=rounding_mode`)
            nk.choices[c] = enum_candidates(enums[c])
        elif c in _member_reads(node) and 0 < sum(map(len, pm.enums.values())) <= 64:
            # a member of the module's enums (`enum_value.name` of a test's parameter)
            nk.choices[c] = tuple(f"enum:{cls}.{m}" for cls, members in pm.enums.items()
                                  for m in members)
        elif c in _keyword_names(node, OPEN_SHAPE_KEYWORDS):
            nk.open_shapes.add(c)
        elif c in dtype_names:
            nk.dtypes.add(c)


class _Rename(cst.CSTTransformer):
    """Respell names (not attribute names, not keyword names)."""

    def __init__(self, mapping: dict, origins: dict):
        self.mapping = mapping
        self.origins = origins      # each new node -> the user's node (diagnostics' positions)

    def on_leave(self, original, updated):
        new = super().on_leave(original, updated)
        if isinstance(new, cst.CSTNode) and new is not original:
            self.origins[new] = original
        return new

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original, updated):
        new = self.mapping.get(original.value)
        return updated.with_changes(value=new) if new else updated


def _hoistable_defs(pm, scan, params: set, prefix: str, taken: set, memo: dict) -> dict:
    """{local name: (hoisted name, definition)} of the functions a host function defines once
    that read none of its locals (parameters, assigned names) other than such functions."""
    if memo:
        return memo
    defs = {n.name.value: n for n in scan.kernels if scan.count.get(n.name.value) == 1}
    ok = dict(defs)
    changed = True
    while changed:
        changed = False
        for n, d in list(ok.items()):
            free = _names_used(d) - _local_names(d)
            bad = {x for x in free if (x in params or x in scan.count) and x not in ok}
            if bad:
                del ok[n]
                changed = True
    for n, d in ok.items():
        hoisted = n if n not in taken else f"{prefix}_{n}"
        i = 1
        while hoisted in taken:
            i += 1
            hoisted = f"{prefix}_{n}_{i}"
        memo[n] = (hoisted, d)
    if memo:        # names taken only once a kernel uses them (translate.py registers them)
        for hoisted, _ in memo.values():
            taken.add(hoisted)
    renames = {n: h for n, (h, _) in memo.items() if n != h}
    if renames:
        for n, (h, d) in list(memo.items()):
            memo[n] = (h, d.visit(_Rename(renames, pm.origins)))
    return memo


def _constant_instance(pm: ParsedModule, expr, scan) -> Optional[set]:
    """The classes of `expr` when it makes a dataclass instance (the module's or the host
    function's) of constants and such instances (`Gain(2.0, Span(-1.0))`), else None."""
    if not is_record_call(pm, expr, scan.classes.values()) \
            or any(a.star for a in expr.args):
        return None
    out = {expr.func.value}
    for a in expr.args:
        if _foldable(pm, a.value):
            continue
        inner = _constant_instance(pm, a.value, scan)
        if inner is None:
            return None
        out |= inner
    return out


def _reached_classes(name: str, scan) -> list:
    """Class `name` of a host function and the classes of it that its definition names (its
    bases), transitively: those defined there once."""
    out, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in out or n not in scan.classes or scan.count.get(n) != 1:
            continue
        out.append(n)
        todo.extend(_names_used(scan.classes[n]))
    return out


def _reached_defs(name: str, defs: dict) -> list:
    """`name` and the functions of `defs` it calls, transitively."""
    rev = {h: n for n, (h, _) in defs.items()}
    out, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in out or n not in defs:
            continue
        out.append(n)
        todo.extend(rev.get(x, x) for x in _names_used(defs[n][1]))
    return out


def _walk_nodes(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


# keywords of cuTile constructs that take a member of a cuTile enum
ENUM_KEYWORDS = {"rounding_mode": "RoundingMode", "padding_mode": "PaddingMode",
                 "memory_order": "MemoryOrder", "memory_scope": "MemoryScope"}


def _enum_arguments(fdef) -> dict:
    """Names the kernel passes as a keyword argument that takes a cuTile enum member
    (`ct.sum(t, rounding_mode=rm)`, `x.astype(T, rounding_mode=rm)`): name -> the enum."""
    out = {}
    for n in _walk_nodes(fdef):
        if isinstance(n, cst.Call):
            for a in n.args:
                if a.keyword is not None and a.keyword.value in ENUM_KEYWORDS \
                        and isinstance(a.value, cst.Name):
                    out.setdefault(a.value.value, ENUM_KEYWORDS[a.keyword.value])
    return out


def _dtype_arguments(pm: ParsedModule, fdef) -> set:
    """Names the kernel passes as the `dtype` of a cuTile construct, by its signature
    (`ct.astype(t, to_dtype)`, `t.astype(to_dtype)`, `ct.full(shape, 0, dtype=dt)`,
    `ct.bitcast(t, dt)`): a host function's value there is a dtype given at launch."""
    from ..registry import load_registry
    reg = load_registry()
    out = set()
    for n in _walk_nodes(fdef):
        if not isinstance(n, cst.Call) or any(a.star for a in n.args):
            continue
        positional = [a.value for a in n.args if a.keyword is None]
        name = pm.ct_name(n.func)
        if name is None and isinstance(n.func, cst.Attribute):
            # a method (`t.astype(dt)`): the receiver is the construct's first argument
            name = reg.method("Tile", n.func.attr.value)
            positional = [n.func.value] + positional
        sig = reg.signature(name) if name is not None else None
        if sig is None:
            continue
        try:
            bound = sig.bind(*positional, **{
                a.keyword.value: a.value for a in n.args if a.keyword is not None})
        except TypeError:
            continue
        dtype = bound.arguments.get("dtype")
        if name in ("zeros", "ones") and dtype is None:
            dtype = bound.arguments.get("fill_value")   # (their second positional: the dtype)
        if isinstance(dtype, cst.Name):
            out.add(dtype.value)
    return out


# keywords of cuTile constructs that take None or a shape, one entry per axis of the array
OPEN_SHAPE_KEYWORDS = ("traversal_steps",)


def _keyword_names(fdef, keywords) -> set:
    """Names the kernel passes as one of `keywords` (`traversal_steps=steps`)."""
    return {a.value.value for n in _walk_nodes(fdef) if isinstance(n, cst.Call)
            for a in n.args if a.keyword is not None and a.keyword.value in keywords
            and isinstance(a.value, cst.Name)}


def enum_candidates(enum: str) -> tuple:
    """What a cuTile enum member that a host function hands its kernel can be: None (the
    constructs' default) or any member of its enum ("cuda.tile.RoundingMode.RZ", ...; at most
    eight). The parameter holds the launched member's name ("RoundingMode.RZ") and each
    construct taking it is a choice Triton folds per specialization, as for function values
    (choice_candidates)."""
    from ..parse import ENUM_MEMBERS
    return ("None",) + tuple(f"cuda.tile.{enum}.{m}" for m in ENUM_MEMBERS[enum])


def choice_candidates(pm: ParsedModule) -> tuple:
    """What a function value that a kernel of a host function calls (`reduce_op(t, axis=1)`
    with `make_kernel(ct.sum)`) can be, as far as the module shows: the cuTile constructs
    and the module's @ct.function helpers that it names as values, not calls (in
    parametrize lists, tables, factory calls), and the `operator` module's functions named so:
    ("cuda.tile.sum", ..., "operator.add", ...) and helper names, sorted. The kernel is
    translated for each (a choice Triton folds per specialization)."""
    cached = getattr(pm, "_choice_candidates", None)
    if cached is not None:
        return cached
    from ..registry import load_registry
    constructs = load_registry().constructs
    helpers = {n for n, f in pm.functions.items()
               if any(pm.decorator_role(d)[0] == "function" for d in f.decorators)
               or _method_getter(pm, f)}
    callees, out = set(), set()
    for n in _walk_nodes(pm.module):
        if isinstance(n, cst.Call):
            callees.add(id(n.func))
        elif isinstance(n, cst.Attribute):
            callees.add(id(n.value))    # (the base of a longer reference)
        elif isinstance(n, (cst.Import, cst.ImportFrom, cst.FunctionDef)):
            callees |= {id(x) for x in _walk_nodes(n) if isinstance(x, cst.Name)} \
                if not isinstance(n, cst.FunctionDef) else {id(n.name)}
    for n in _walk_nodes(pm.module):
        if id(n) in callees or not isinstance(n, (cst.Name, cst.Attribute)):
            continue
        name = pm.ct_name(n)
        qual = pm.qualname(n) or ""
        if name is not None and name in constructs:
            out.add(f"cuda.tile.{name}")
        elif isinstance(n, cst.Name) and n.value in helpers:
            out.add(n.value)
        elif qual.startswith("operator.") and callable(getattr(operator, qual[9:], None)):
            # `parametrize("func", [operator.add, ...])` (the lowering takes those it can)
            out.add(qual)
    result = tuple(sorted(out))
    pm._choice_candidates = result
    return result


def _method_getter(pm: ParsedModule, fdef: cst.FunctionDef) -> bool:
    """A plain function of the module returning a method of its one parameter (`def
    add_method(tv): return tv.atomic_store_add`, as cuTile's test_tiled_view.py hands its
    factory): called in a kernel it is evaluated in place, giving the bound method
    (Lowerer.inline_handle_helper), so it can be a function value's candidate too."""
    if fdef.decorators or len(fdef.params.params) != 1:
        return False
    expr = single_return(fdef)
    return isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) \
        and expr.value.value == fdef.params.params[0].name.value


def node_of_local(nk: NestedKernel, local: str):
    """The user's definition of helper `local` of the host function of `nk`."""
    stack = [nk.outer.body]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.FunctionDef) and n.name.value == local:
            return n
        stack.extend(n.children)
    return nk.outer


def _class_kernels(pm: ParsedModule, cls: cst.ClassDef, taken: set) -> list[NestedKernel]:
    """Kernels defined in the body of a module-level class (`class K: @staticmethod
    @ct.kernel def negate(...)`), launched as `K.negate`. A function of a class body does not
    see the class's names, so such a kernel reads only module names: no closure. Hoisted like
    the kernels of host functions; in the class the definition becomes
    `negate = staticmethod(launch_negate)`. A kernel with a decorator other than cuTile's and
    `staticmethod` is left alone (reported where it is)."""
    out = []
    if not isinstance(cls.body, cst.IndentedBlock):
        return out
    for node in cls.body.body:
        if not isinstance(node, cst.FunctionDef):
            continue
        role, options, other = None, {}, False
        for d in node.decorators:
            r, o = pm.decorator_role(d)
            if r is not None:
                role, options = r, o
            elif not (isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"):
                other = True
        if role != "kernel" or other:
            continue
        name = node.name.value
        hoisted = name if name not in taken else f"{cls.name.value}_{name}"
        i = 1
        while hoisted in taken:
            i += 1
            hoisted = f"{cls.name.value}_{name}_{i}"
        taken.add(hoisted)
        out.append(NestedKernel(cls, node, name, hoisted, options, outer_kind="class"))
    return out


def _handed_to_kernel(pm: ParsedModule, outer: cst.FunctionDef) -> dict:
    """{name: options} of the names `ct.kernel(name, **options)` calls in host function
    `outer` make kernels (options only where every such call agrees on them)."""
    calls: dict = {}
    stack = [outer.body]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call) and pm.ct_name(n.func) == "kernel" and n.args \
                and n.args[0].keyword is None and isinstance(n.args[0].value, cst.Name):
            opts = {a.keyword.value: a.value for a in n.args[1:] if a.keyword is not None}
            calls.setdefault(n.args[0].value.value, []).append(opts)
        stack.extend(n.children)
    out = {}
    for name, optss in calls.items():
        texts = {tuple(sorted((k, pm.module.code_for_node(v)) for k, v in o.items()))
                 for o in optss}
        out[name] = optss[0] if len(texts) == 1 else {}
    return out


def _local_names(fdef: cst.FunctionDef) -> set:
    """Parameters and names assigned in the kernel (they shadow the host function's), and
    the parameters of the functions and lambdas defined in it (`def f(x, i, t=default)` of a
    closure factory: its `x` is no name of the host function)."""
    names = {p.name.value for p in list(fdef.params.params) + list(fdef.params.kwonly_params)
             + list(fdef.params.posonly_params)}
    stack = [fdef.body]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.AssignTarget) or isinstance(n, (cst.AnnAssign, cst.AugAssign)):
            names |= {x.value for x in _targets(n.target)}
        elif isinstance(n, cst.For):
            names |= {x.value for x in _targets(n.target)}
        elif isinstance(n, cst.FunctionDef):
            names.add(n.name.value)
        if isinstance(n, (cst.FunctionDef, cst.Lambda)):
            ps = n.params
            names |= {p.name.value for p in list(ps.params) + list(ps.kwonly_params)
                      + list(ps.posonly_params)}
            names |= {p.name.value for p in (ps.star_arg, ps.star_kwarg)
                      if isinstance(p, cst.Param)}
        stack.extend(n.children)
    return names


def _targets(t):
    if isinstance(t, cst.Name):
        yield t
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from _targets(e.value)


def rewrite_pass(unit) -> None:
    """Module pass (rewrite/__init__.py): the kernels defined inside host functions, in
    `unit.hoisted`, named apart from every module-level name."""
    pm = unit.pm
    unit.hoisted = find_nested_kernels(pm, set(pm.functions) | set(pm.globals) | set(pm.imports))
