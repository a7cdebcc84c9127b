"""recognize: find @ct.kernel / @ct.function definitions and classify their parameters.

A parameter is an *array* when the kernel uses it as one (first argument of ct.load / ct.store /
ct.num_tiles, or through `.shape` / `.strides` / `.dtype` / `.ndim`), a *constexpr* when annotated
`ct.Constant[...]` (directly or through a module alias), and a runtime *scalar* otherwise.
The rank of each array comes from how it is indexed.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .diagnostics import LocatedFailure, TranslationError
from .model import (ARRAY_ATTRIBUTES, ArrayInfo, ArrayListInfo, FunctionInfo, ParamInfo,
                    Specialization)
from .parse.source import ParsedModule
from .pattern_api import signature_of
from .registry import load_registry


def _array_methods() -> set:
    return {m.split(".", 1)[1] for m in load_registry().methods if m.startswith("Array.")}


def _bound(pattern, args, receiver: bool = False) -> dict:
    """Parameter name -> expression of a call bound to the pattern's signature (the receiver
    of a method call takes the first parameter)."""
    positional = [a.value for a in args if a.keyword is None and not a.star]
    if receiver:
        positional.insert(0, None)
    sig = signature_of(pattern)
    # a wrong call is reported when it is lowered; here it still tells the rank
    keywords = {a.keyword.value: a.value for a in args
                if a.keyword is not None and a.keyword.value in sig.parameters}
    try:
        return dict(sig.bind_partial(*positional, **keywords).arguments)
    except TypeError:
        return dict(zip(sig.parameters, positional))


def find_cutile_functions(pm: ParsedModule) -> list[FunctionInfo]:
    found = []
    for stmt in pm.module.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        for dec in stmt.decorators:
            role, options = pm.decorator_role(dec)
            if role:
                found.append(FunctionInfo(stmt.name.value, stmt, role, decorator_options=options))
                break
    # `ct.kernel(fn, **options)` called as a function in host code makes module-level `fn` a
    # kernel (options only when every such call agrees on them)
    named = {f.name for f in found}
    calls: dict = {}
    for node in _walk_calls(pm.module):
        if pm.ct_name(node.func) == "kernel" and node.args and node.args[0].keyword is None \
                and isinstance(node.args[0].value, cst.Name):
            fname = node.args[0].value.value
            if fname in pm.functions and fname not in named:
                opts = {a.keyword.value: a.value for a in node.args[1:] if a.keyword is not None}
                calls.setdefault(fname, []).append(opts)
    for fname, optss in calls.items():
        texts = {tuple(sorted((k, pm.module.code_for_node(v)) for k, v in o.items()))
                 for o in optss}
        found.append(FunctionInfo(fname, pm.functions[fname], "kernel",
                                  decorator_options=optss[0] if len(texts) == 1 else {}))
    found += _plain_tile_functions(pm, found)
    return found


# cuTile names host code may use: the host rewriter translates them (emit.py)
_HOST_CONSTRUCTS = {"cdiv"}


def tile_code_names(pm: ParsedModule, fdef: cst.FunctionDef) -> list:
    """The cuTile tile constructs (`load`, `bid`, ...) a function's own body uses, sorted.
    Functions and classes defined inside it are not its body: a test function that defines a
    kernel and launches it is host code (cuTile's own tests are written that way)."""
    constructs = load_registry().constructs
    names = set()
    stack = list(fdef.body.children)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(node.children)
        if isinstance(node, (cst.Attribute, cst.Name)):
            name = pm.ct_name(node)
            if name in constructs and name not in _HOST_CONSTRUCTS:
                names.add(name)
    return sorted(names)


def _plain_tile_functions(pm: ParsedModule, found: list) -> list:
    """Undecorated module functions whose body is tile code (uses ct.load, ct.bid, ...), by
    how the module's host code uses them: one handed on as a value (`run(fn, x)`, to a helper
    that calls `ct.kernel(fn)`; a list of kernels to test) can only be a kernel, since host
    code cannot call tile code (role "kernel"); one that nothing uses is tile code to leave
    out with a note (role "tile_code", emit.py); one that host code calls is left to host code,
    which reports it (T2T109). A function that kernels or helpers call is a helper, as before,
    whatever the host does."""
    named = {f.name for f in found}
    plain = {name: fdef for name, fdef in pm.functions.items()
             if name not in named and name not in pm.foreign and not any(
                 pm.decorator_role(d)[0] for d in fdef.decorators)}
    candidates = {name: fdef for name, fdef in plain.items() if tile_code_names(pm, fdef)}
    candidates.update((name, fdef) for name, fdef in _tile_callers(pm, plain, found).items()
                      if name not in candidates)
    if not candidates:
        return []
    device = named | set(candidates)
    # host references: passed to a call (`run(fn, x)`, `parametrize("k", [f, g])`), called,
    # or any other (a module-level table of functions that kernels index: left alone)
    value_refs, host_calls, host_other, device_refs = set(), set(), set(), set()
    containers = {"dict", "list", "tuple", "set", "frozenset"}

    def walk(node, in_device: bool, in_args: bool):
        if isinstance(node, cst.FunctionDef) and node in device_defs:
            in_device = True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                and node.func.value in candidates:
            (device_refs if in_device else host_calls).add(node.func.value)
        if isinstance(node, cst.Name) and node.value in candidates:
            (device_refs if in_device else value_refs if in_args else host_other).add(node.value)
        for child in node.children:
            if isinstance(node, cst.FunctionDef) and child is node.name:
                continue
            if isinstance(node, cst.Call) and child is node.func:
                if not (isinstance(child, cst.Name) and child.value in candidates):
                    walk(child, in_device, in_args)
                continue
            walk(child, in_device, in_args or isinstance(node, cst.Call) and not (
                isinstance(node.func, cst.Name) and node.func.value in containers))

    device_defs = {pm.functions[n] for n in device if n in pm.functions}
    walk(pm.module, False, False)
    out = []
    for name in sorted(candidates):
        if name in device_refs or name in host_calls or name in host_other:
            continue
        role = "kernel" if name in value_refs else "tile_code"
        out.append(FunctionInfo(name, candidates[name], role))
    return out


def _tile_callers(pm: ParsedModule, plain: dict, found: list) -> dict:
    """Plain functions that use no construct themselves but call, by name, a device helper
    (a function that kernels or @ct.function helpers call, transitively): a wrapper computing
    an index, then calling a tile helper. They are tile code too, classified like other tile
    code (one nothing calls is left out with a note, not a host call of a tile function,
    T2T109). A function that launches kernels is host code whatever it calls."""
    def called(fdef) -> set:
        return {c.func.value for c in _walk_calls(fdef.body) if isinstance(c.func, cst.Name)}

    device, todo = set(), [f.node for f in found if f.role in ("kernel", "function")]
    while todo:
        for name in called(todo.pop()):
            if name in plain and name not in device:
                device.add(name)
                todo.append(plain[name])
    out: dict = {}
    grew = True
    while grew:
        grew = False
        for name, fdef in plain.items():
            if name in device or name in out or not called(fdef) & (device | set(out)):
                continue
            if any(pm.ct_name(c.func) == "launch" for c in _walk_calls(fdef.body)):
                continue
            out[name] = fdef
            grew = True
    return out


def _walk_calls(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            yield n
        stack.extend(n.children)


def static_dims(pm: ParsedModule, ann: Optional[cst.Annotation]) -> tuple:
    """(static_shape_dims, static_stride_dims) of `Annotated[ct.Array, ct.ArrayAnnotation(
    ...)]` (through module aliases); ((), ()) for other annotations."""
    expr = pm.unalias(ann.annotation) if ann is not None else None
    out = {"static_shape_dims": (), "static_stride_dims": ()}
    if not isinstance(expr, cst.Subscript):
        return (), ()
    for el in expr.slice[1:]:
        meta = el.slice.value if isinstance(el.slice, cst.Index) else None
        if isinstance(meta, cst.Call) and pm.ct_name(meta.func) == "ArrayAnnotation":
            for arg in meta.args:
                key = arg.keyword.value if arg.keyword is not None else None
                if key in out and isinstance(arg.value, (cst.Tuple, cst.List)):
                    dims = tuple(int(e.value.value) for e in arg.value.elements
                                 if isinstance(e.value, cst.Integer))
                    if len(dims) == len(arg.value.elements):
                        out[key] = dims
    return out["static_shape_dims"], out["static_stride_dims"]


def annotation_kind(pm: ParsedModule, ann: Optional[cst.Annotation]) -> Optional[str]:
    """'constexpr' | 'array' | 'scalar' | 'list' | None (decide from use)."""
    if ann is None:
        return None
    expr = pm.unalias(ann.annotation)
    if isinstance(expr, cst.Subscript):
        base = pm.unalias(expr.value)
        name = pm.ct_name(base)
        if name == "Constant":
            return "constexpr"
        q = pm.qualname(base) or ""
        if q.endswith("Annotated") or (isinstance(base, cst.Name) and base.value == "Annotated"):
            first = expr.slice[0].slice
            if isinstance(first, cst.Index):
                inner = annotation_kind(pm, cst.Annotation(first.value))
                return inner
        if isinstance(base, cst.Name) and base.value in ("list", "List", "Sequence"):
            return "list"
        if name in ("IndexedWithInt64", "ScalarInt64"):
            return "array" if name == "IndexedWithInt64" else "scalar"
        return None
    name = pm.ct_name(expr)
    if name == "Constant":
        return "constexpr"
    if name in ("Array", "IndexedWithInt64"):
        return "array"
    if name in ("ScalarInt64", "Scalar"):
        return "scalar"
    if isinstance(expr, cst.Name) and expr.value in ("int", "float", "bool"):
        return "scalar"
    return None


class _UseScanner(cst.CSTVisitor):
    """Collects how each parameter name is used: as array (with rank evidence) or not."""

    def __init__(self, pm: ParsedModule, names: set[str], depth: int = 0):
        self.pm = pm
        self.names = names
        self.depth = depth
        self.array_uses: dict[str, list] = {}  # name -> [(rank or None, node)]
        self.raw_memory: set = set()  # arrays whose `.get_raw_memory()` is taken
        self.list_uses: dict[str, list] = {}  # name -> [(rank or None, node)] for `xs[i]`
        self.aliases: dict[str, str] = {}  # local name -> list parameter it is an element of
        self.array_aliases: dict[str, str] = {}  # local view name -> array parameter
        self.plain_aliases: dict[str, set] = {}  # `alias = x`: local name -> parameters
        self.tuple_aliases: dict[str, list] = {}  # `t = (x, y)`: name -> parameters per item
        self.local_tuples: dict[str, int] = {}  # `idx = (i, j)`: name -> length
        self.tuple_literals: dict = {}  # `idx = (i, j)`: name -> the tuple as written
        # `idx = ct.static_eval((0,) * len(shape))`: tuples of a length not known here
        self.opaque_tuples: set = set()
        self.shape_index: dict[str, int] = {}
        # local name -> what calling it may call (`f = ct.static_eval(TABLE[Op(k)])`)
        self.callees: dict[str, list] = {}
        self.helper_params: set = set()  # when scanning a helper: its parameters
        # when scanning a helper: parameter -> (the call's argument, the caller's scanner)
        self.param_args: dict = {}
        # functions defined in the scanned body (`def view_of(arr, n): ...`), called as helpers
        self.local_defs: dict = {}

    def on_visit(self, node) -> bool:
        try:
            return super().on_visit(node)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this node
            raise LocatedFailure(node, e) from e

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.local_defs[node.name.value] = node

    def _note(self, name, rank, node):
        self.array_uses.setdefault(name, []).append((rank, node))

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) \
                and f.value.value in self.names and f.attr.value in _array_methods():
            self._note_view(self.array_aliases.get(f.value.value, f.value.value),
                            f.attr.value, node)
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) \
                and f.value.value in self.array_aliases:
            self._note_view_index(f.value.value, f.attr.value, node)
        ct_name = self.pm.ct_name(node.func)
        args = self._spread(node.args)
        for kind, name in ([("ct", ct_name)] if ct_name is not None
                           else self._callees(node.func)):
            if kind == "helper" and self.depth < 8:
                self._scan_helper(node, name, args)
            elif kind == "ct":
                self._scan_construct(node, name, args)

    def _spread(self, args) -> list:
        """`f(*t)`: the items of `t` as arguments where its length is known here (a tuple
        written out, or a local name bound to one: `t[0]`, `t[1]`, ...)."""
        if not any(a.star == "*" for a in args):
            return list(args)
        out = []
        for a in args:
            v = a.value
            if a.star != "*":
                out.append(a)
            elif isinstance(v, cst.Tuple) and not any(
                    isinstance(e, cst.StarredElement) for e in v.elements):
                out += [cst.Arg(e.value) for e in v.elements]
            elif isinstance(v, cst.Name) and v.value in self.local_tuples:
                out += [cst.Arg(cst.Subscript(v, [cst.SubscriptElement(cst.Index(
                    cst.Integer(str(k))))])) for k in range(self.local_tuples[v.value])]
            else:
                out.append(a)
        return out

    def _callees(self, expr, depth: int = 0) -> list:
        """What calling `expr` may call: ("ct", construct) / ("helper", name) pairs, through
        module tables and aliases (`TABLE[key]`, `ct.static_eval(...)`, a local bound to one)."""
        if depth > 8:
            return []
        ct_name = self.pm.ct_name(expr)
        if ct_name is not None:
            return [("ct", ct_name)]
        if isinstance(expr, cst.Name):
            n = expr.value
            if n in self.callees:
                return self.callees[n]
            if n in self.local_defs or n in self.pm.functions:
                return [("helper", n)]
            if n in self.pm.globals:
                return self._callees(self.pm.globals[n], depth + 1)
            return []
        if isinstance(expr, cst.Call) and self.pm.ct_name(expr.func) == "static_eval" \
                and expr.args:
            return self._callees(expr.args[0].value, depth + 1)
        if isinstance(expr, cst.Subscript):          # an entry of a table: any of them
            return self._callees(expr.value, depth + 1)
        if isinstance(expr, cst.Dict):
            return [c for el in expr.elements if isinstance(el, cst.DictElement)
                    for c in self._callees(el.value, depth + 1)]
        if isinstance(expr, (cst.Tuple, cst.List)):
            return [c for el in expr.elements for c in self._callees(el.value, depth + 1)]
        return []

    def _scan_construct(self, node: cst.Call, ct_name: str, args=None) -> None:
        pattern = load_registry().array_access.get(ct_name)
        if pattern is None:
            return
        bound = _bound(pattern, node.args if args is None else args)
        first = bound.get(pattern.array_param)
        if isinstance(first, cst.Subscript) and isinstance(first.value, cst.Name) \
                and first.value.value in self.names:
            # `ct.load(As[g], ...)`: a list of arrays
            self.list_uses.setdefault(first.value.value, []).append(
                (self._rank_of(pattern, bound), node))
            return
        if isinstance(first, cst.Name) and first.value in self.names:
            self._note(first.value, self._rank_of(pattern, bound), node)
        # `ct.store(t[0], ...)` where `t = (x, y)`: a use of each array `t[0]` may be
        if isinstance(first, cst.Subscript) and isinstance(first.value, cst.Name) \
                and first.value.value in self.tuple_aliases and len(first.slice) == 1 \
                and isinstance(first.slice[0].slice, cst.Index) \
                and isinstance(first.slice[0].slice.value, cst.Integer):
            k = int(first.slice[0].slice.value.value)
            parts = self.tuple_aliases[first.value.value]
            if 0 <= k < len(parts):
                for base in sorted(parts[k]):
                    self._note(base, self._rank_of(pattern, bound), node)

    def _note_view(self, base, method, node: cst.Call) -> None:
        """`x.tiled_view(shape)`: a view with a tile shape tells the array's rank."""
        view = load_registry().get(f"Array.{method}")
        shape = _bound(view, node.args, receiver=True).get(view.shape_param) \
            if view is not None and view.shape_param else None
        if shape is None:
            return
        n = self._tuple_len(shape)
        if n is None and isinstance(shape, cst.Name) and shape.value in self.param_args:
            shape, scanner = self.param_args[shape.value]   # a helper's parameter: as passed
            n = scanner._tuple_len(shape)
        else:
            scanner = self
        if n is None and not (isinstance(shape, cst.Name)
                              and shape.value in scanner.helper_params):
            n = 1                          # one tile size: a 1-D view
        self._note(base, n or None, node)  # (tile shape (): any rank)

    def _note_closure(self, node: cst.Assign) -> None:
        """`c = make_closure(3)` of a closure factory: calls of `c` call the function it makes."""
        made = self._closure_made(node.value)
        if made is not None and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            self.callees[node.targets[0].target.value] = [("helper", made)]

    def _closure_made(self, value) -> Optional[str]:
        """`make_closure(3)` of a closure factory (a function returning a function it
        defines, rewrite/closure_factories.py): the key in `local_defs` of the function it
        makes, whose parameters calls of it bind (`c(x, i)` uses `x` as that function does)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        fac = self.local_defs.get(value.func.value) or self.pm.functions.get(value.func.value)
        body = fac.body.body if fac is not None and isinstance(fac.body, cst.IndentedBlock) \
            else ()
        last = body[-1] if body else None
        if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Return)
                and isinstance(last.body[0].value, cst.Name)):
            return None
        inner = next((s for s in body if isinstance(s, cst.FunctionDef)
                      and s.name.value == last.body[0].value.value), None)
        if inner is None:
            return None
        key = f"{value.func.value}.{inner.name.value}"
        self.local_defs[key] = inner
        return key

    def _note_view_index(self, view: str, method: str, node: cst.Call) -> None:
        """`tv.store(0, t)` of a tiled view: its index has an entry per axis of the array, the
        rank evidence where the view's tile shape gives none (`x.tiled_view(())`)."""
        pattern = load_registry().get(f"TiledView.{method}")
        if pattern is None or "index" not in signature_of(pattern).parameters:
            return
        rank = self._index_rank(_bound(pattern, node.args, receiver=True).get("index"))
        if rank is not None:
            self._note(view, rank, node)

    def _tuple_len(self, expr):
        if isinstance(expr, cst.Tuple):
            n = 0
            for el in expr.elements:       # `(*lead, i)`: a spliced tuple counts its items
                k = self._tuple_len(el.value) if isinstance(el, cst.StarredElement) else 1
                if k is None:
                    return None
                n += k
            return n
        if isinstance(expr, cst.Name) and expr.value in self.local_tuples:
            return self.local_tuples[expr.value]
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) \
                and expr.value.value in self.tuple_literals and len(expr.slice) == 1 \
                and isinstance(expr.slice[0].slice, cst.Index) \
                and isinstance(expr.slice[0].slice.value, cst.Integer):
            items = self.tuple_literals[expr.value.value].elements   # `args[1]` of a literal
            k = int(expr.slice[0].slice.value.value)
            if 0 <= k < len(items) and not any(isinstance(e, cst.StarredElement) for e in items):
                return self._tuple_len(items[k].value)
        if isinstance(expr, cst.Name) and expr.value not in self.helper_params:
            g = self.pm.unalias(expr)          # a module constant (a closure value, live)
            if isinstance(g, cst.Tuple):
                return len(g.elements)
        return None

    def _rank_of(self, pattern, bound):
        """Rank evidence from one call: the index tuple's length (a tuple literal or a local
        name bound to one), else the tile shape's, else 1 for a bare scalar index."""
        index = bound.get(pattern.index_param) if pattern.index_param else None
        if isinstance(index, cst.Name) and index.value in self.param_args:
            # a helper's parameter used as the index (`with holding(locks, g * nb + bn)`): what
            # the caller passed decides, by the caller's own rules
            arg, caller = self.param_args[index.value]
            rank = caller._index_rank(arg)
            if rank is not None:
                return rank
        rank = self._tuple_len(index)
        if rank is None and pattern.shape_param:
            rank = self._tuple_len(bound.get(pattern.shape_param))
            if rank == 0:
                rank = None  # shape=() is a 0-d tile of an array of any rank
        if rank is None:
            rank = self._bare_index_rank(index)
        return rank

    def _index_rank(self, index):
        """The rank an index expression written in this scope addresses, or None."""
        if isinstance(index, cst.Name) and index.value in self.param_args:
            arg, caller = self.param_args[index.value]
            return caller._index_rank(arg)
        rank = self._tuple_len(index)
        return rank if rank is not None else self._bare_index_rank(index)

    def _bare_index_rank(self, index):
        if index is not None and not isinstance(index, cst.Tuple) and not (
                isinstance(index, cst.Name) and (index.value in self.helper_params
                                                 or index.value in self.opaque_tuples)):
            return 1  # a bare index addresses a 1-D array (a helper's parameter may be a tuple)
        return None

    def _scan_helper(self, node: cst.Call, name: str, args=None) -> None:
        """A parameter passed to a helper that uses it as an array is an array, of the
        helper's rank."""
        fdef = self.local_defs.get(name) or self.pm.functions[name]
        hparams = list(fdef.params.params)
        passed = {}
        args = node.args if args is None else args
        for arg, hp in zip(args, hparams):
            if arg.keyword is None and isinstance(arg.value, cst.Name) \
                    and arg.value.value in self.names:
                passed[hp.name.value] = arg.value.value
        if not passed:
            return
        inner = _UseScanner(self.pm, set(passed), self.depth + 1)
        inner.helper_params = {hp.name.value for hp in hparams}
        inner.local_defs = dict(self.local_defs)
        inner.param_args = {hp.name.value: (arg.value, self) for arg, hp in zip(args, hparams)
                            if arg.keyword is None and arg.star == ""}
        fdef.body.visit(inner)
        # uses of a view the helper makes (`s = a.slice(...)`) count for the parameter it views
        for hname, uses in inner.array_uses.items():
            base = inner.array_aliases.get(hname, hname)
            if base not in passed:
                continue
            for rank, _ in uses:
                if rank is not None or base == hname:
                    self._note(passed[base], rank, node)
        for hname in inner.raw_memory:
            if hname in passed:
                self.raw_memory.add(passed[hname])
        for hname, n in inner.shape_index.items():
            k = passed.get(inner.array_aliases.get(hname, hname))
            if k is not None:
                self.shape_index[k] = max(self.shape_index.get(k, 0), n)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        v = node.value
        if isinstance(v, cst.Subscript) and isinstance(v.value, cst.Name) \
                and v.value.value in self.names and self._is_array_attr(node.attr.value):
            self.list_uses.setdefault(v.value.value, []).append((None, node))
            return
        if isinstance(node.value, cst.Name) and node.value.value in self.names \
                and self._is_array_attr(node.attr.value):
            self._note(node.value.value, None, node)
            if node.attr.value == "get_raw_memory":
                self.raw_memory.add(node.value.value)

    @staticmethod
    def _is_array_attr(attr: str) -> bool:
        return attr in ARRAY_ATTRIBUTES or attr in _array_methods()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        v = node.value
        if isinstance(v, cst.Attribute) and isinstance(v.value, cst.Name) \
                and v.value.value in self.names and v.attr.value in ("shape", "strides") \
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            idx = node.slice[0].slice.value
            if isinstance(idx, cst.Integer):
                n = v.value.value
                self.shape_index[n] = max(self.shape_index.get(n, 0), int(idx.value) + 1)

    def visit_Assign(self, node: cst.Assign) -> None:
        v = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and not (isinstance(v, cst.Call) and self.pm.ct_name(v.func) != "static_eval"):
            callees = self._callees(v)
            if callees:
                self.callees[node.targets[0].target.value] = callees
        self._note_closure(node)
        if isinstance(v, cst.Tuple) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            n = self._tuple_len(v)
            if n is not None:
                self.local_tuples[node.targets[0].target.value] = n
                self.tuple_literals[node.targets[0].target.value] = v
            else:
                self.opaque_tuples.add(node.targets[0].target.value)
        elif len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and _builds_tuple(v):
            self.opaque_tuples.add(node.targets[0].target.value)
        # `sub = x.slice(...)` / `tv = x.tiled_view(shape)`: uses of sub/tv are uses of x
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) \
                and isinstance(v.func.value, cst.Name) and v.func.value.value in self.names \
                and v.func.attr.value in _array_methods() and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            alias, base = node.targets[0].target.value, v.func.value.value
            base = self.array_aliases.get(base, base)  # a view of a view
            self.array_aliases[alias] = base
            self.names = self.names | {alias}
            return
        # `alias = x` (maybe bound to several arrays: `alias = y` in a loop or a branch):
        # uses of alias count for each of them
        if isinstance(v, cst.Name) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name) \
                and (v.value in self.names or v.value in self.plain_aliases) \
                and v.value not in self.aliases and v.value not in self.array_aliases:
            alias = node.targets[0].target.value
            bases = self.plain_aliases.get(v.value, {v.value})
            self.plain_aliases.setdefault(alias, set()).update(bases)
            self.names = self.names | {alias}
            return
        _note_tuple_aliases(self, node, v)
        # `A = As[g]`: A is an element of the list parameter As
        if isinstance(v, cst.Subscript) and isinstance(v.value, cst.Name) \
                and v.value.value in self.names and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            alias = node.targets[0].target.value
            self.aliases[alias] = v.value.value
            self.names = self.names | {alias}
            self.list_uses.setdefault(v.value.value, [])
            return
        # `M, N = x.shape` fixes the rank
        if isinstance(v, cst.Attribute) and isinstance(v.value, cst.Name) \
                and v.value.value in self.names and v.attr.value in ("shape", "strides"):
            for t in node.targets:
                if isinstance(t.target, (cst.Tuple, cst.List)):
                    self._note(v.value.value, len(t.target.elements), node)


def _note_tuple_aliases(scanner: "_UseScanner", node: cst.Assign, v) -> None:
    """Tuples of arrays: `t = (x, y)` (maybe bound to several), `a, b = (x, y)` and
    `a, b = t`, whose names alias the arrays of their items."""
    # `t = (x, y)`, `args = (x, (), 7)` (maybe bound to several tuples of arrays)
    if isinstance(v, cst.Tuple) and len(node.targets) == 1 \
            and isinstance(node.targets[0].target, cst.Name) and v.elements and any(
                isinstance(e.value, cst.Name) and (e.value.value in scanner.names or
                                                   e.value.value in scanner.plain_aliases)
                for e in v.elements) and not any(
                isinstance(e, cst.StarredElement) for e in v.elements):
        parts = scanner.tuple_aliases.setdefault(node.targets[0].target.value, [])
        for i, e in enumerate(v.elements):
            if i == len(parts):
                parts.append(set())
            if isinstance(e.value, cst.Name):
                bases = scanner.plain_aliases.get(e.value.value, {e.value.value})
                parts[i].update(b for b in bases if b in scanner.names)
    # `a, b = (x, y)`: each name an alias as above
    if isinstance(v, (cst.Tuple, cst.List)) and len(node.targets) == 1 \
            and isinstance(node.targets[0].target, (cst.Tuple, cst.List)) \
            and len(node.targets[0].target.elements) == len(v.elements):
        for t, e in zip(node.targets[0].target.elements, v.elements):
            if isinstance(t.value, cst.Name) and isinstance(e.value, cst.Name) and (
                    e.value.value in scanner.names or e.value.value in scanner.plain_aliases):
                bases = scanner.plain_aliases.get(e.value.value, {e.value.value})
                scanner.plain_aliases.setdefault(t.value.value, set()).update(bases)
                scanner.names = scanner.names | {t.value.value}
    # `a, b = t` of such a tuple: each name an alias of its item's arrays
    if isinstance(v, cst.Name) and v.value in scanner.tuple_aliases and len(node.targets) == 1 \
            and isinstance(node.targets[0].target, (cst.Tuple, cst.List)) \
            and len(node.targets[0].target.elements) == len(scanner.tuple_aliases[v.value]):
        for t, bases in zip(node.targets[0].target.elements, scanner.tuple_aliases[v.value]):
            if isinstance(t.value, cst.Name) and bases:
                scanner.plain_aliases.setdefault(t.value.value, set()).update(bases)
                scanner.names = scanner.names | {t.value.value}


def _scan_uses(pm: ParsedModule, fn: FunctionInfo, names: set) -> "_UseScanner":
    """How `fn` uses its parameters `names`, a use of an alias counting for what it names."""
    scanner = _UseScanner(pm, names)
    fn.node.body.visit(scanner)
    for alias, lst in scanner.aliases.items():  # uses of `A = As[g]` count for As
        scanner.list_uses[lst] += scanner.array_uses.pop(alias, [])
    for alias, bases in scanner.plain_aliases.items():  # uses of `alias = x` count for x
        uses = scanner.array_uses.pop(alias, [])
        for base in sorted(bases):
            if base in names:
                scanner.array_uses.setdefault(base, []).extend(uses)
    for alias, base in scanner.array_aliases.items():  # and uses of a view count for its array
        uses = [(r, n) for r, n in scanner.array_uses.pop(alias, []) if r is not None]
        scanner.array_uses.setdefault(base, []).extend(uses)
    return scanner


def open_ranks(pm: ParsedModule, fn: FunctionInfo) -> dict[str, list[int]]:
    """The array parameters `fn` indexes with more than one rank (in branches on constants or
    on the array's own rank, as `if len(x.shape) == 2:`), each with its ranks: the module
    alone does not say which rank a launch passes."""
    params = fn.node.params
    all_params = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    names = {p.name.value for p in all_params}
    scanner = _scan_uses(pm, fn, names)
    out = {}
    for p in all_params:
        name = p.name.value
        if name in scanner.list_uses or annotation_kind(pm, p.annotation) not in (None, "array"):
            continue
        ranks = sorted({r for r, _ in scanner.array_uses.get(name, []) if r is not None})
        if len(ranks) > 1:
            out[name] = ranks
    return out


def classify_params(pm: ParsedModule, fn: FunctionInfo,
                    spec: Optional[Specialization] = None) -> list[ParamInfo]:
    """`spec`: one launch's argument ranks and values (see model.Specialization)."""
    launch_ranks = dict(spec.ranks) if spec is not None else {}
    launch_values = dict(spec.values) if spec is not None else {}
    params = fn.node.params
    if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg is not None:
        node = params.star_kwarg or params.star_arg
        raise pm.error(node, "T2T108", "kernels with *args or **kwargs cannot be translated",
                       help="list every kernel parameter explicitly")
    all_params = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    names = {p.name.value for p in all_params}
    scanner = _scan_uses(pm, fn, names)
    out = []
    for p in all_params:
        name = p.name.value
        kind = annotation_kind(pm, p.annotation)
        if kind == "list" or (kind is None and name in scanner.list_uses):
            uses = [(r, n) for r, n in scanner.list_uses.get(name, []) if r is not None]
            ranks = {r for r, _ in uses}
            if len(ranks) != 1:
                first = {}
                for r, n in sorted(uses, key=lambda rn: (pm.positions[rn[1]].start.line,
                                                         pm.positions[rn[1]].start.column)):
                    first.setdefault(r, n)
                raise pm.error(p, "T2T104", f"cannot infer the rank of the arrays in list "
                               f"`{name}`" if not ranks else f"arrays of list `{name}` are "
                               f"indexed with different ranks {sorted(ranks)}",
                               help="load from `{0}[i]` with one index rank".format(name),
                               notes=[(n, f"indexed with rank {r} here")
                                      for r, n in first.items()])
            out.append(ParamInfo(name, "array_list", array_list=ArrayListInfo(
                name, ranks.pop(), abi_prefix=pm.names.array_prefix(name))))
            continue
        if kind is None:
            kind = "array" if name in scanner.array_uses else "scalar"
        info = None
        if kind == "array":
            info = ArrayInfo(name, abi_prefix=pm.names.array_prefix(name))
            info.static_shapes, info.static_strides = static_dims(pm, p.annotation)
            ranks = {(r, n) for r, n in scanner.array_uses.get(name, []) if r is not None}
            distinct = {r for r, _ in ranks}
            if len(distinct) > 1 and launch_ranks.get(name) in distinct:
                distinct = {launch_ranks[name]}    # this launch's rank (compile-time branches)
            if len(distinct) > 1:
                def where(rn):
                    pos = pm.positions[rn[1]].start
                    return pos.line, pos.column
                uses = sorted(ranks, key=where)
                rank, node = uses[-1]
                other_rank, other = next(u for u in uses if u[0] != rank)
                raise pm.error(node, "T2T105",
                               f"array `{name}` is indexed with different ranks {sorted(distinct)}",
                               help="every load/store of one array must use one index rank",
                               notes=[(other, f"`{name}` is indexed with rank {other_rank} "
                                               f"here (rank {rank} at line {where(uses[-1])[0]})")])
            if distinct:
                info.rank = distinct.pop()
            elif name in scanner.shape_index:
                info.rank = scanner.shape_index[name]
            elif fn.role != "kernel":
                info.rank = None  # decided by the caller's argument
            elif launch_ranks.get(name, 0) >= 1:
                info.rank = launch_ranks[name]
            elif name in scanner.raw_memory:
                # only addressed by element offsets from its base pointer: any rank will do,
                # and the launcher passes it as one flat dimension (model.ArrayInfo.flat)
                info.rank, info.flat = 1, True
            else:
                raise pm.error(p, "T2T104",
                               f"cannot infer the rank of array parameter `{name}`",
                               help="tile2triton infers ranks from ct.load/ct.store indices and "
                                    "`x.shape` unpacking; index the array in the kernel or "
                                    "unpack its shape (`M, N = x.shape`)")
        pinfo = ParamInfo(name, kind, info)
        if kind == "constexpr" and name in launch_values:
            pinfo.launch_value = (launch_values[name],)
        out.append(pinfo)
    return out


class _ReadScanner(cst.CSTVisitor):
    """Marks the mentions of a name that only read an array: the array of a ct.load or
    ct.num_tiles, or the object of `.shape` / `.strides` / `.dtype` / `.ndim`."""

    def __init__(self, pm: ParsedModule):
        self.pm = pm
        self.reads: set[int] = set()  # ids of Name nodes

    def visit_Call(self, node: cst.Call) -> None:
        if self.pm.ct_name(node.func) in ("load", "num_tiles") and node.args \
                and node.args[0].keyword is None and isinstance(node.args[0].value, cst.Name):
            self.reads.add(id(node.args[0].value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.attr.value in ("shape", "strides", "dtype",
                                                                    "ndim"):
            self.reads.add(id(node.value))


def read_only_arrays(pm: ParsedModule, fn: FunctionInfo, names) -> set[str]:
    """The parameters among `names` that `fn` only reads from (see _ReadScanner). Any other
    mention (a store, an atomic, a view, a helper call it is passed to, a rebinding, a nested
    function's parameter of that name) may write it or cannot be followed: the launcher may
    hand the kernel a copy of a read-only array (a K-major copy for a tf32 product's B
    operand), never of one that could be written."""
    from .parse.names import name_nodes
    scan = _ReadScanner(pm)
    fn.node.body.visit(scan)
    out = set(names)
    for n in name_nodes(fn.node.body):
        if n.value in out and id(n) not in scan.reads:
            out.discard(n.value)
    return out


def _builds_tuple(expr) -> bool:
    """`(0,) * n`, `t + (1,)`, `ct.static_eval(...)` of them: a tuple whose length the scan
    does not compute (the launch's argument tells the array's rank instead)."""
    if isinstance(expr, cst.Call) and len(expr.args) == 1:
        return _builds_tuple(expr.args[0].value)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add,
                                                                           cst.Multiply)):
        return any(isinstance(side, cst.Tuple) or _builds_tuple(side)
                   for side in (expr.left, expr.right))
    return False
