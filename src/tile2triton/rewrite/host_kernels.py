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

from dataclasses import dataclass, field

import libcst as cst

from ..parse.source import ParsedModule


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


class _Assigns(cst.CSTVisitor):
    """Names the host function binds, how often, and the value of single assignments; nested
    function bodies are not entered."""

    def __init__(self):
        self.count: dict = {}
        self.value: dict = {}
        self.defs: set = set()
        self.kernels: list = []
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
            continue
        if not isinstance(stmt, cst.FunctionDef):
            continue
        if any(pm.decorator_role(d)[0] for d in stmt.decorators):
            continue
        scan = _Assigns()
        stmt.visit(scan)
        params = {p.name.value for p in list(stmt.params.params) + list(stmt.params.kwonly_params)
                  + list(stmt.params.posonly_params)}
        handed = _handed_to_kernel(pm, stmt)
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
            hoisted = name if name not in taken else f"{stmt.name.value}_{name}"
            i = 1
            while hoisted in taken:
                i += 1
                hoisted = f"{stmt.name.value}_{name}_{i}"
            taken.add(hoisted)
            nk = NestedKernel(stmt, node, name, hoisted, options)
            inner_local = _local_names(node)
            for n in sorted(_names_used(node) - inner_local):
                if n in scan.defs:
                    continue        # a function of the host function: unknown in the kernel
                if n in params or n in scan.count:
                    if n not in params and scan.count.get(n) == 1 \
                            and _foldable(pm, scan.value.get(n)):
                        nk.folded[n] = scan.value[n]
                    else:
                        nk.closure.append(n)
            out.append(nk)
    return out


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
    """Parameters and names assigned in the kernel (they shadow the host function's)."""
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
        stack.extend(n.children)
    return names


def _targets(t):
    if isinstance(t, cst.Name):
        yield t
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from _targets(e.value)
