"""Frozen dataclasses in kernels: each instance is its fields, one local per field.

cuTile lets kernels build instances of the module's frozen dataclasses (`fb = FooBar(2,
bar=7)`, defaults and base-class fields included), read their fields, make changed copies
(`dataclasses.replace`), carry them through loops, read module-level instances, and call their
methods, properties and dunders (`d(7)`, `d[i]`, `d[i] = v`, `__post_init__`, a method
entered with `with`). Triton has no records, so before recognition every function a kernel
reaches is rewritten (scalar replacement):

    fb = FooBar(2, bar=7)        ->   fb_foo = 2; fb_bar = 7; fb_baz = 5
    fb = replace(fb, foo=fb.foo + 1)  ->   fb_foo = fb_foo + 1
    fb.foo                       ->   fb_foo          (CFG.foo of a module-level instance: its
                                                       argument expression)
    fb.method(a)                 ->   FooBar_method(fb_foo, fb_bar, fb_baz, a)

A method (property, dunder) becomes a module-level helper `<Class>_<method>` whose `self` is
one parameter per field (`self_foo, self_bar, ...`), rewritten the same way; one helper per
kind of receiver (a field holding a nested instance is its own fields again). A helper called
with an instance gets the same treatment (`h(fb)` -> `h_fb(fb_foo, ...)`). Everything else
done with an instance (returning it, storing it in a tuple, assigning to its fields) is a
located diagnostic, and so is what cuTile itself refuses (non-frozen classes, a custom
`__init__` or `__new__`, `init=False` or `default_factory` fields, static_def methods).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..diagnostics import TranslationError
from ..parse.cst_tools import names_in, walk


@dataclass
class RecordClass:
    name: str
    node: cst.ClassDef
    fields: list = field(default_factory=list)       # [(name, default node or None)]
    methods: dict = field(default_factory=dict)      # name -> FunctionDef
    kinds: dict = field(default_factory=dict)        # method name -> "property" | "static"
    constants: dict = field(default_factory=dict)    # name -> value node
    problem: Optional[tuple] = None                  # (node, message) cuTile refuses

    def field_names(self) -> list:
        return [f for f, _ in self.fields]


@dataclass
class Rec:
    """An instance being rewritten: its class and, per field, an expression or a Rec."""
    cls: RecordClass
    values: dict


def shape_of(rec: Rec) -> tuple:
    return (rec.cls.name,) + tuple(
        (f, shape_of(v) if isinstance(v, Rec) else None) for f, v in rec.values.items())


def _deep(node):
    return node.deep_clone()


class _Errors:
    def __init__(self, pm):
        self.pm = pm

    def __call__(self, node, code, message, help=None):
        return self.pm.error(node, code, message, help)


def find_records(pm, stmts=None, known=None) -> dict:
    """The module's dataclasses (`@dataclass`/`@dataclasses.dataclass(...)` classes and
    classes deriving from them), by name; with `stmts`, those of these statements (the classes
    a host function defines), which may derive from the `known` ones."""
    out: dict = dict(known or {})
    for stmt in (pm.module.body if stmts is None else stmts):
        if not isinstance(stmt, cst.ClassDef):
            continue
        dec = next((d for d in stmt.decorators if _is_dataclass_decorator(pm, d.decorator)),
                   None)
        bases = [a.value.value for a in stmt.bases
                 if a.keyword is None and isinstance(a.value, cst.Name) and a.value.value in out]
        if dec is None and not bases:
            continue
        rc = RecordClass(stmt.name.value, stmt)
        for b in bases:
            base = out[b]
            rc.fields = [f for f in rc.fields if f[0] not in base.field_names()] + list(
                base.fields)
            rc.methods.update(base.methods)
            rc.kinds.update(base.kinds)
            rc.constants.update(base.constants)
            rc.problem = rc.problem or base.problem
        if dec is None:
            rc.problem = (stmt.name, "non-dataclass subclasses of a dataclass are not "
                          "supported in kernels")
        else:
            opts = {a.keyword.value: a.value for a in getattr(dec.decorator, "args", ())
                    if a.keyword is not None}
            if not _is_true(opts.get("frozen")):
                rc.problem = (dec, "only frozen dataclasses are supported in kernels "
                              "(`@dataclass(frozen=True)`)")
            elif _is_false(opts.get("init")):
                rc.problem = (dec, "dataclass instances can only be created in kernels "
                              "with the __init__() that @dataclass generates")
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
        for s in body:
            smalls = s.body if isinstance(s, cst.SimpleStatementLine) else [s]
            for small in smalls:
                _class_member(pm, rc, small)
        out[rc.name] = rc
    return out if not known else {n: c for n, c in out.items() if known.get(n) is not c}


def _class_member(pm, rc: RecordClass, small) -> None:
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        name = small.target.value
        ann = pm.module.code_for_node(small.annotation.annotation)
        if "ClassVar" in ann:
            if small.value is not None:
                rc.constants[name] = small.value
            return
        default = small.value
        if isinstance(default, cst.Call) and pm.qualname(default.func) == "dataclasses.field":
            kw = {a.keyword.value: a.value for a in default.args if a.keyword is not None}
            if "default_factory" in kw:
                rc.problem = rc.problem or (small, "dataclass fields with a default_factory "
                                            "are not supported in kernels")
            if _is_false(kw.get("init")):
                rc.problem = rc.problem or (small, "dataclass fields with init=False are not "
                                            "supported in kernels")
            default = kw.get("default")
        if name in rc.field_names():
            rc.fields = [(f, default if f == name else d) for f, d in rc.fields]
        else:
            rc.fields.append((name, default))
    elif isinstance(small, cst.Assign):
        for t in small.targets:
            if isinstance(t.target, cst.Name):
                rc.constants[t.target.value] = small.value
    elif isinstance(small, cst.FunctionDef):
        name = small.name.value
        kinds = {pm.module.code_for_node(d.decorator).split(".")[-1] for d in small.decorators}
        if name in ("__init__", "__new__"):
            rc.problem = rc.problem or (small.name, (
                "dataclasses with a custom __new__ are not supported in kernels"
                if name == "__new__" else "dataclass instances can only be created in kernels "
                "with the __init__() that @dataclass generates"))
        if "static_def" in kinds:
            rc.kinds[name] = "static_def"
        elif "property" in kinds:
            rc.kinds[name] = "property"
        elif "staticmethod" in kinds:
            rc.kinds[name] = "static"
        else:
            rc.kinds.pop(name, None)
        rc.methods[name] = small


def _is_dataclass_decorator(pm, expr) -> bool:
    if isinstance(expr, cst.Call):
        expr = expr.func
    return pm.qualname(expr) == "dataclasses.dataclass"


def _is_true(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _is_false(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


# ------------------------------------------------------------------------------------------
# The module pass

def rewrite_records(pm, roles) -> dict:
    """Rewrite the module's functions that kernels reach (`roles`: names of the kernels and
    @ct.function helpers) when the module has dataclasses; a no-op otherwise. Returns, for
    each of `roles` whose rewrite (or that of a function it reaches) failed, the error: that
    kernel fails, the others translate."""
    classes = find_records(pm)
    if not classes:
        return {}
    instances = {n: v for n, v in pm.globals.items() if isinstance(v, cst.Call)
                 and isinstance(v.func, cst.Name) and v.func.value in classes}
    _note_device_methods(pm, classes)
    mp = _ModulePass(pm, classes, instances)
    pm.records_pass = mp        # (rewrite_nested_kernel: kernels of host functions)
    seen: set = set()
    bad: dict = {}      # function -> the error of its rewrite
    failed: dict = {}
    pm.records_bad = bad
    for root in roles:
        todo = [root]
        while todo:
            name = todo.pop()
            if name in bad:
                failed[root] = bad[name]
                break
            if name in seen or name not in pm.functions:
                continue
            seen.add(name)
            fdef = pm.functions[name]
            if name not in mp.generated:        # (generated helpers are rewritten already)
                try:
                    new = _FunctionPass(mp, {}).function(fdef)
                except TranslationError as e:
                    bad[name] = failed[root] = e
                    break
                if new is not fdef:
                    mp.replace(name, fdef, new)
            todo.extend(_called_names(pm.functions[name]) - seen)
    for root in roles:      # (a kernel whose helper failed while another kernel reached it)
        reached = sorted(_reaches(pm, root, set(bad))) if root not in failed else []
        if reached:
            failed[root] = bad[reached[0]]
    return failed


def _note_device_methods(pm, classes) -> None:
    """Methods using cuda.tile are tile code, not host code (emit/host.py marks them)."""
    for c in classes.values():
        for m in _own_methods(c):
            if any(isinstance(n, (cst.Name, cst.Attribute)) and pm.ct_name(n) is not None
                   for n in walk(m)):
                pm.device_methods.setdefault(id(m), (c.name, []))


def is_record_call(pm, expr, local_classes=()) -> bool:
    """Whether `expr` makes an instance of one of the module's dataclasses or of the dataclasses
    among `local_classes` (ClassDefs of a host function): `FooBar(2, 7)`."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)):
        return False
    module = getattr(pm, "records_pass", None)
    classes = module.classes if module is not None else {}
    return expr.func.value in classes or expr.func.value in find_records(
        pm, list(local_classes), classes)


def rewrite_nested_kernel(pm, fdef, nk=None):
    """A kernel defined in a host function (host_kernels.py), rewritten as rewrite_records rewrites
    the module's kernels, with the module functions it reaches: the new definition (`fdef`
    itself when the module has no dataclasses or the kernel uses none). The dataclasses the
    host function defines (`nk.classes`) are known to it as the module's are, and instances the
    host function makes of them with constant fields (`fb = FooBar(2, 7)`, in `nk.folded`) as
    module-level instances. Raises the rewrite's TranslationError (the kernel then fails, the
    others translate)."""
    mp = getattr(pm, "records_pass", None)
    local = find_records(pm, list(nk.classes.values()), mp.classes if mp else {}) \
        if nk is not None and nk.classes else {}
    made = {n: v for n, v in (nk.folded if nk is not None else {}).items()
            if isinstance(v, cst.Call) and isinstance(v.func, cst.Name)}
    classes = {**(mp.classes if mp else {}), **local}
    made = {n: v for n, v in made.items() if v.func.value in classes}
    if local or made:       # (a pass of its own: the host function's classes and instances)
        _note_device_methods(pm, local)
        mp = _ModulePass(pm, classes, {**(mp.instances if mp else {}), **made})
    if mp is None:
        return fdef
    new = _FunctionPass(mp, {}).function(fdef)
    if new is not fdef:
        pm.positions     # noqa: B018 - positions of the user's nodes, before rewriting
        pm.origins[new] = fdef
    bad = pm.records_bad
    todo, seen = sorted(_called_names(new)), set()
    while todo:
        name = todo.pop()
        if name in bad:
            raise bad[name]
        if name in seen or name not in pm.functions:
            continue
        seen.add(name)
        f = pm.functions[name]
        if name not in mp.generated and f not in pm.origins:
            try:
                g = _FunctionPass(mp, {}).function(f)
            except TranslationError as e:
                bad[name] = e
                raise
            if g is not f:
                mp.replace(name, f, g)
        todo.extend(_called_names(pm.functions[name]) - seen)
    return new


def _reaches(pm, root: str, names: set) -> set:
    """Which of `names` function `root` calls, directly or through the module's functions."""
    out, todo, seen = set(), [root], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in pm.functions:
            continue
        seen.add(name)
        if name in names:
            out.add(name)
        todo.extend(_called_names(pm.functions[name]) - seen)
    return out


def _called_names(fdef) -> set:
    out = set()
    stack = [fdef.body]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            out.add(n.func.value)
        elif isinstance(n, cst.With):
            for it in n.items:
                if isinstance(it.item, cst.Call) and isinstance(it.item.func, cst.Name):
                    out.add(it.item.func.value)
        stack.extend(n.children)
    return out


class _ModulePass:
    def __init__(self, pm, classes, instances):
        self.pm = pm
        self.classes = classes
        self.instances = instances
        self.specs: dict = {}          # (function, receiver shapes) -> generated name
        self.kept: dict = {}           # generated name -> per field of its instances: read?
        self.generated: list = []

    def replace(self, name, old, new) -> None:
        self.pm.positions     # noqa: B018 - positions of the user's nodes, before rewriting
        self.pm.origins[new] = old
        self.pm.functions[name] = new
        body = [new if s is old else s for s in self.pm.module.body]
        self.pm.module = self.pm.module.with_changes(body=body)

    def passed(self, name: str, values: list) -> list:
        """The field values a call of generated helper `name` passes: those it reads."""
        kept = self.kept.get(name)
        return values if kept is None else [v for v, k in zip(values, kept) if k]

    def specialize(self, base: str, fdef: cst.FunctionDef, recs: dict, owner: str,
                   drop_decorators: bool) -> str:
        """The name of `fdef` rewritten for record arguments `recs` (parameter -> Rec): each
        such parameter becomes one parameter per field."""
        key = (id(fdef), tuple(sorted((p, shape_of(r)) for p, r in recs.items())))
        if key in self.specs:
            return self.specs[key]
        # the fields it reads, once its body is rewritten: a call passes only those
        name, k = self.pm.names[base], 1
        while name in self.pm.functions or name in self.pm.hoisted:
            k += 1
            name = self.pm.names[f"{base}_{k}"]
        self.specs[key] = name
        fp = _FunctionPass(self, {})
        for p in fdef.params.params:
            if p.name.value in recs:
                fp.env[p.name.value] = shape_of(recs[p.name.value])
        body = fp.block(fdef.body)
        read = names_in(body)
        params, kept = [], []
        for p in fdef.params.params:
            if p.name.value in recs:
                for n, _ in fp.leaves(p.name.value, fp.env[p.name.value]):
                    kept.append(n in read)
                    if n in read:
                        params.append(cst.Param(cst.Name(n)))
            else:
                params.append(p)
        self.kept[name] = kept
        decorators = [d for d in fdef.decorators if not drop_decorators or
                      self.pm.module.code_for_node(d.decorator).split(".")[-1]
                      == "contextmanager"]
        new = fdef.with_changes(name=cst.Name(name), decorators=decorators, body=body,
                                params=fdef.params.with_changes(params=params))
        self.pm.origins[new] = fdef
        self.pm.functions[name] = new
        self.pm.hoisted[name] = (owner, [])
        if id(fdef) in self.pm.device_methods:
            self.pm.device_methods[id(fdef)][1].append(name)
        self.generated.append(name)
        return name


class _InstanceCalls:
    """The calls of one function body that make or use instances: constructors (with their
    `__post_init__`), `dataclasses.replace`, method calls and helpers called with instances.
    A part of _FunctionPass, which sets the state these read (`mp`, `pm`, `env`, `pre`,
    `posted`, `defer`, `deferred`)."""

    def construct(self, call: cst.Call, module_scope=False) -> Rec:
        cls = self.mp.classes[call.func.value]
        if cls.problem is not None:
            node, message = cls.problem
            raise self.error(call, f"{message} (`{cls.name}`)", code="T2T105",
                             help="create the instance with the fields its class declares")
        fields = cls.field_names()
        values: dict = {}
        pos = [a for a in call.args if a.keyword is None]
        if any(a.star for a in call.args):
            raise self.error(call, "`*`/`**` arguments are not supported when creating a "
                             "dataclass instance", code="T2T102",
                             help="pass each field as its own argument")
        if len(pos) > len(fields):
            raise self.error(call, f"`{cls.name}` takes {len(fields)} fields, {len(pos)} "
                             "given", code="T2T102", help="pass one value per declared field")
        for f, a in zip(fields, pos):
            values[f] = a.value
        for a in call.args:
            if a.keyword is None:
                continue
            k = a.keyword.value
            if k not in fields:
                raise self.error(a, f"dataclass `{cls.name}` has no field `{k}`", code="T2T102",
                                 help="use one of the dataclass's declared fields")
            if k in values:
                raise self.error(a, f"two values for field `{k}` of `{cls.name}`",
                                 code="T2T102", help="give each field once")
            values[k] = a.value
        for f, default in cls.fields:
            if f not in values:
                if default is None:
                    raise self.error(call, f"missing field `{f}` of `{cls.name}`",
                                     code="T2T102",
                                     help="give the field a value, or a default in the class")
                values[f] = _deep(default)
        out = {}
        for f in fields:
            v = values[f]
            sub = self.rec(v)
            out[f] = sub if sub is not None else (v if module_scope else self.expr(v))
        rec = Rec(cls, out)
        if not module_scope:
            self.post_init(rec, call)
        return rec

    def post_init(self, rec: Rec, call) -> None:
        """Queue the __post_init__ call of an instance made by `call` (once): in front of the
        statement, or, for `name = <call>`, after the fields are bound (`bind`)."""
        if "__post_init__" not in rec.cls.methods or id(call) in self.posted:
            return
        self.posted.add(id(call))
        if call is self.defer:
            self.deferred = (rec, call)
            return
        self.pre.append(cst.Expr(self.method_call(rec, "__post_init__", call, [])))

    def replace(self, call: cst.Call) -> Rec:
        if not call.args or call.args[0].keyword is not None:
            raise self.error(call, "dataclasses.replace() takes the instance first",
                             help="call dataclasses.replace(instance, field=value, ...)")
        base = self.rec(call.args[0].value)
        if base is None:
            raise self.error(call.args[0], "dataclasses.replace() of something that is not a "
                             "dataclass instance", code="T2T105",
                             help="pass a dataclass instance created in the kernel or passed to "
                                  "it")
        values = dict(base.values)
        for a in call.args[1:]:
            if a.keyword is None:
                raise self.error(a, "dataclasses.replace() takes the new field values as "
                                 "keywords", code="T2T102",
                                 help="pass the new values as `field=value`")
            k = a.keyword.value
            if k not in values:
                raise self.error(a, f"dataclass `{base.cls.name}` has no field `{k}`",
                                 code="T2T105", help="use one of the dataclass's declared fields")
            sub = self.rec(a.value)
            values[k] = sub if sub is not None else self.expr(a.value)
        rec = Rec(base.cls, values)
        self.post_init(rec, call)
        return rec

    def method_call(self, rec: Rec, method: str, node, args: list, keywords=()) -> cst.Call:
        cls = rec.cls
        fdef = cls.methods.get(method)
        if fdef is None:
            what = {"__call__": "called", "__getitem__": "indexed",
                    "__setitem__": "assigned to by index"}.get(method)
            raise self.error(node, f"`{cls.name}` instances cannot be {what} (it defines no "
                             f"{method})" if what else f"`{cls.name}` has no method "
                             f"`{method}`", code="T2T105",
                             help="define the method on the dataclass, or compute the value with "
                                  "a helper function")
        kind = cls.kinds.get(method)
        if kind == "static_def":
            raise self.error(node, f"`{cls.name}.{method}` is a static_def (Python that cuTile "
                             "runs while compiling), which tile2triton does not translate",
                             help="write the method as ordinary kernel code")
        owner = next((c for c in self.mp.classes.values()
                      if any(m is fdef for m in _own_methods(c))), cls)
        base = f"{owner.name}_{method.strip('_')}"
        if kind == "static":
            name = self.mp.specialize(base, fdef, {}, owner.name, True)
            return cst.Call(cst.Name(name), [cst.Arg(a) for a in args] + list(keywords))
        params = fdef.params.params
        if not params:
            raise self.error(fdef, f"method `{cls.name}.{method}` takes no `self`",
                             help="give the method a `self` first parameter, or make it a "
                                  "@staticmethod")
        name = self.mp.specialize(base, fdef, {params[0].name.value: rec}, owner.name, True)
        call = cst.Call(cst.Name(name), [cst.Arg(v) for v in self.mp.passed(name, self.flat(rec))]
                        + [cst.Arg(a) for a in args] + list(keywords))
        self.pm.origins[call] = node
        return call

    def _index(self, sub: cst.Subscript):
        if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
            return self.expr(sub.slice[0].slice.value)
        return self.expr(cst.Tuple([cst.Element(e.slice.value) for e in sub.slice]))

    def helper_call(self, node: cst.Call) -> Optional[cst.Call]:
        """`h(fb, x)`: a module helper called with instances -> its specialization."""
        f = node.func
        if not (isinstance(f, cst.Name) and f.value in self.pm.functions):
            return None
        recs = [(i, a, self.rec(a.value)) for i, a in enumerate(node.args)]
        if all(r is None for _, _, r in recs):
            return None
        fdef = self.pm.functions[f.value]
        params = fdef.params.params
        by_param, args = {}, []
        for i, a, r in recs:
            if a.star:
                raise self.error(a, "`*` arguments holding dataclass instances are not "
                                 "supported", code="T2T102", help="pass the instances one by one")
            if a.keyword is not None:
                pname = a.keyword.value
            elif i < len(params):
                pname = params[i].name.value
            else:
                raise self.error(a, f"too many arguments to `{f.value}`", code="T2T102",
                                 help="pass at most as many arguments as the helper has "
                                      "parameters")
            if r is not None:
                by_param[pname] = r
        name = self.mp.specialize(f"{f.value}_{'_'.join(by_param)}", fdef, by_param,
                                  f.value, False)
        kept = iter(self.mp.kept.get(name, ()))
        for i, a, r in recs:
            if r is not None:
                if a.keyword is not None:
                    raise self.error(a, "pass dataclass instances to helpers positionally",
                                     code="T2T102", help="pass the instance by position")
                args += [cst.Arg(v) for v in self.flat(r) if next(kept, True)]
            else:
                args.append(a.with_changes(value=self.expr(a.value)))
        call = node.with_changes(func=cst.Name(name), args=args)
        self.pm.origins[call] = node
        return call


class _FunctionPass(_InstanceCalls):
    """One function's body: `env` maps a local name to the shape of the instance it holds."""

    def __init__(self, mp: _ModulePass, env: dict):
        self.mp = mp
        self.pm = mp.pm
        self.env = env
        self.pre: list = []          # statements to put before the current one
        self.posted: set = set()     # constructions whose __post_init__ call is queued
        self.defer = None            # the value of `name = <value>` being bound
        self.deferred = None         # (instance, call) whose __post_init__ waits for `bind`

    def error(self, node, message, code="T2T101", help=None):
        return self.pm.error(node, code, message, help)

    # ---------------------------------------------------------------------------- names
    def leaves(self, var: str, shape: tuple, path=()) -> list:
        """[(local name, path)] of the fields of `var` holding `shape`."""
        out = []
        for f, sub in shape[1:]:
            if sub is None:
                out.append((self.pm.names["_".join((var,) + path + (f,))], path + (f,)))
            else:
                out += self.leaves(var, sub, path + (f,))
        return out

    def var_rec(self, var: str, shape: tuple, path=()) -> Rec:
        cls = self.mp.classes[shape[0]]
        values = {}
        for f, sub in shape[1:]:
            if sub is None:
                values[f] = cst.Name(self.pm.names["_".join((var,) + path + (f,))])
            else:
                values[f] = self.var_rec(var, sub, path + (f,))
        return Rec(cls, values)

    @staticmethod
    def flat(rec: Rec) -> list:
        out = []
        for v in rec.values.values():
            out += _FunctionPass.flat(v) if isinstance(v, Rec) else [v]
        return out

    # ------------------------------------------------------------------------ statements
    def function(self, fdef: cst.FunctionDef) -> cst.FunctionDef:
        if not self._mentions(fdef):
            return fdef
        return fdef.with_changes(body=self.block(fdef.body))

    def _mentions(self, fdef) -> bool:
        names = set(self.mp.classes) | set(self.mp.instances) | set(self.env)
        stack = [fdef.body]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name) and n.value in names:
                return True
            stack.extend(n.children)
        return False

    def block(self, suite):
        if not isinstance(suite, cst.IndentedBlock):
            return suite
        out = []
        for s in suite.body:
            out += self.stmt(s)
        return suite.with_changes(body=out or [cst.SimpleStatementLine([cst.Pass()])])

    def stmt(self, s) -> list:
        self.pre = []
        if isinstance(s, cst.SimpleStatementLine):
            new = []
            for small in s.body:
                new += self.small(small)
            out = []
            for n in self.pre:
                out.append(self._line(n, s, leading=not out))
            smalls = [n for n in new]
            if smalls:
                line = s.with_changes(body=smalls)
                if out:
                    line = line.with_changes(leading_lines=[])
                self.pm.origins[line] = s
                out.append(line)
            if not out:
                return []
            return out
        if isinstance(s, cst.If):
            test = self.expr(s.test)
            pre, self.pre = self.pre, []
            orelse = s.orelse
            if isinstance(orelse, cst.If):
                inner = self.stmt(orelse)
                if len(inner) != 1:
                    raise self.error(orelse.test, "a dataclass construction with __post_init__ "
                                     "in an `elif` test is not supported",
                                     help="build the instance before the `if`/`elif` chain and "
                                          "test its field there")
                orelse = inner[0]
            elif isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=self.block(orelse.body))
            new = s.with_changes(test=test, body=self.block(s.body), orelse=orelse)
            self.pm.origins[new] = s
            return [self._line(n, s) for n in pre] + [new]
        if isinstance(s, cst.For):
            it = self.expr(s.iter)
            pre, self.pre = self.pre, []
            new = s.with_changes(iter=it, body=self.block(s.body))
            self.pm.origins[new] = s
            return [self._line(n, s) for n in pre] + [new]
        if isinstance(s, cst.While):
            test = self.expr(s.test)
            new = s.with_changes(test=test, body=self.block(s.body))
            self.pm.origins[new] = s
            return [new]
        if isinstance(s, cst.With):
            items = [it.with_changes(item=self.expr(it.item)) for it in s.items]
            pre, self.pre = self.pre, []
            new = s.with_changes(items=items, body=self.block(s.body))
            self.pm.origins[new] = s
            return [self._line(n, s) for n in pre] + [new]
        return [s]

    def _line(self, small, origin, leading=False):
        line = cst.SimpleStatementLine([small])
        if leading and isinstance(origin, cst.SimpleStatementLine):
            line = line.with_changes(leading_lines=origin.leading_lines)
        self.pm.origins[line] = origin
        return line

    def small(self, s) -> list:
        if isinstance(s, cst.Assign):
            if len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name):
                self.defer = s.value           # its __post_init__ runs on the bound fields
                rec = self.rec(s.value)
                self.defer = None
                if rec is not None:
                    return self.bind(s.targets[0].target, rec, s)
            for t in s.targets:
                tgt = t.target
                if isinstance(tgt, cst.Subscript) and self.rec(tgt.value) is not None:
                    if len(s.targets) != 1:
                        raise self.error(tgt, "chained assignment to an item of a dataclass "
                                         "instance is not supported",
                                         help="assign the field in its own statement")
                    rec = self.rec(tgt.value)
                    call = self.method_call(rec, "__setitem__", tgt,
                                            [self._index(tgt), self.expr(s.value)])
                    return [self._keep(cst.Expr(call), s)]
                if isinstance(tgt, cst.Attribute) and self.rec(tgt.value) is not None:
                    raise self.error(tgt, "the fields of a frozen dataclass instance cannot be "
                                     "assigned", code="T2T105",
                                     help="make a changed copy with dataclasses.replace()")
            new = s.with_changes(value=self.expr(s.value))
            return [self._keep(new, s)]
        if isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Attribute) \
                and self.rec(s.target.value) is not None:
            raise self.error(s.target, "the fields of a frozen dataclass instance cannot be "
                             "assigned", code="T2T105",
                             help="make a changed copy with dataclasses.replace()")
        if isinstance(s, cst.Expr):
            rec = self.rec(s.value)
            if rec is not None:
                return []          # built for its __post_init__ only (queued in self.pre)
            return [self._keep(s.with_changes(value=self.expr(s.value)), s)]
        if isinstance(s, (cst.AugAssign, cst.AnnAssign)) and s.value is not None:
            if isinstance(s, cst.AnnAssign) and isinstance(s.target, cst.Name):
                self.defer = s.value
                rec = self.rec(s.value)
                self.defer = None
                if rec is not None:
                    return self.bind(s.target, rec, s)
            return [self._keep(s.with_changes(value=self.expr(s.value)), s)]
        if isinstance(s, cst.Return) and s.value is not None:
            if self.rec(s.value) is not None:
                raise self.error(s.value, "returning a dataclass instance from a helper is not "
                                 "supported", help="return its fields (a tuple)")
            return [self._keep(s.with_changes(value=self.expr(s.value)), s)]
        if isinstance(s, cst.Assert):
            return [self._keep(s.with_changes(test=self.expr(s.test)), s)]
        return [s]

    def _keep(self, new, old):
        if new is not old:
            self.pm.origins[new] = old
        return new

    def bind(self, target: cst.Name, rec: Rec, origin) -> list:
        """`target = <instance>`: one assignment per field (one parallel assignment when a
        field's new value reads another field of `target`)."""
        var = target.value
        shape = shape_of(rec)
        old = self.env.get(var)
        if old is not None and old != shape:
            raise self.error(target, f"`{var}` is bound to dataclass instances of different "
                             "kinds (another class, or a field holding an instance in one and "
                             "a value in the other)", code="T2T105",
                             help="use one name per kind of instance")
        self.env[var] = shape
        pairs = [(n, v) for (n, _), v in zip(self.leaves(var, shape), self.flat(rec))
                 if not (isinstance(v, cst.Name) and v.value == n)]
        after = []
        if self.deferred is not None:
            _, call = self.deferred
            self.deferred = None
            after = [self._keep(cst.Expr(self.method_call(
                self.var_rec(var, shape), "__post_init__", call, [])), origin)]
        if not pairs:
            return after
        # one assignment per field, unless a value reads a field assigned before it
        earlier, clash = set(), False
        for n, v in pairs:
            clash = clash or bool(names_in(v) & earlier)
            earlier.add(n)
        if clash:
            new = cst.Assign([cst.AssignTarget(cst.Tuple([cst.Element(cst.Name(n))
                                                          for n, _ in pairs],
                                                         lpar=[], rpar=[]))],
                             cst.Tuple([cst.Element(v) for _, v in pairs], lpar=[], rpar=[]))
            return [self._keep(new, origin)] + after
        return [self._keep(cst.Assign([cst.AssignTarget(cst.Name(n))], v), origin)
                for n, v in pairs] + after

    # ----------------------------------------------------------------------- expressions
    def expr(self, node):
        return node.visit(_Exprs(self))

    def rec(self, node) -> Optional[Rec]:
        """The instance `node` evaluates to, or None when it is no instance."""
        if isinstance(node, cst.Name):
            if node.value in self.env:
                return self.var_rec(node.value, self.env[node.value])
            if node.value in self.mp.instances:
                return self.construct(self.mp.instances[node.value], module_scope=True)
            return None
        if isinstance(node, cst.Call):
            f = node.func
            if isinstance(f, cst.Name) and f.value in self.mp.classes and f.value not in self.env:
                return self.construct(node)
            q = self.pm.qualname(f)
            if q == "dataclasses.replace":
                return self.replace(node)
            if self.pm.ct_name(f) == "static_eval" and len(node.args) == 1:
                return self.rec(node.args[0].value)
            return None
        if isinstance(node, cst.Attribute):
            base = self.rec(node.value)
            if base is not None and isinstance(base.values.get(node.attr.value), Rec):
                return base.values[node.attr.value]
        return None


def _own_methods(c: RecordClass) -> list:
    body = c.node.body.body if isinstance(c.node.body, cst.IndentedBlock) else ()
    return [s for s in body if isinstance(s, cst.FunctionDef)]


class _Exprs(cst.CSTTransformer):
    """Expression rewriting: fields, constants, methods, properties and dunders of instances;
    any other use of an instance is refused."""

    def __init__(self, fp: _FunctionPass):
        self.fp = fp
        self.repl: dict = {}
        self.skip: set = set()       # attribute names and keywords: no names of values

    def _set(self, node, new):
        self.fp.pm.origins[new] = node
        self.repl[node] = new
        return False

    def visit_Attribute(self, node: cst.Attribute):
        fp = self.fp
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value in fp.mp.classes \
                and node.value.value not in fp.env:
            cls = fp.mp.classes[node.value.value]
            if attr in cls.constants:
                return self._set(node, _deep(cls.constants[attr]))
            raise fp.error(node, f"`{cls.name}.{attr}` is not a class constant of the "
                           "dataclass", help="kernels may read class constants of dataclasses "
                           "and call methods of their instances")
        rec = fp.rec(node.value)
        if rec is None:
            self.skip.add(id(node.attr))
            return True
        if attr in rec.values:
            v = rec.values[attr]
            if isinstance(v, Rec):
                raise fp.error(node, f"field `{attr}` holds a dataclass instance: use its "
                               "fields", help="read `obj.field.inner`, or bind it to a name")
            return self._set(node, _deep(v))
        if attr in rec.cls.constants:
            return self._set(node, _deep(rec.cls.constants[attr]))
        if rec.cls.kinds.get(attr) == "property":
            return self._set(node, fp.method_call(rec, attr, node, []))
        if attr in rec.cls.methods:
            raise fp.error(node, f"method `{rec.cls.name}.{attr}` must be called where it is "
                           "named", help="call it: `obj.method(...)`")
        raise fp.error(node, f"dataclass `{rec.cls.name}` has no field `{attr}`",
                       code="T2T105", help="use one of the dataclass's declared fields")

    def visit_Call(self, node: cst.Call):
        fp = self.fp
        f = node.func
        if isinstance(f, cst.Attribute):
            rec = fp.rec(f.value)
            if rec is not None and f.attr.value in rec.cls.methods \
                    and rec.cls.kinds.get(f.attr.value) != "property":
                args = [a for a in node.args if a.keyword is None]
                kws = [a.with_changes(value=fp.expr(a.value)) for a in node.args
                       if a.keyword is not None]
                if any(a.star for a in node.args):
                    raise fp.error(node, "`*`/`**` arguments to methods are not supported",
                                   code="T2T102", help="pass the method's arguments one by one")
                return self._set(node, fp.method_call(
                    rec, f.attr.value, node, [fp.expr(a.value) for a in args], kws))
        rec = fp.rec(f)
        if rec is not None:
            args = [fp.expr(a.value) for a in node.args if a.keyword is None]
            kws = [a.with_changes(value=fp.expr(a.value)) for a in node.args
                   if a.keyword is not None]
            return self._set(node, fp.method_call(rec, "__call__", node, args, kws))
        new = fp.helper_call(node)
        if new is not None:
            return self._set(node, new)
        if fp.rec(node) is not None:
            raise fp.error(node, "a dataclass instance can be bound to a name, passed to a "
                           "helper or read through its fields here, not used as a value",
                           help="bind it to a name first")
        return True

    def visit_Subscript(self, node: cst.Subscript):
        fp = self.fp
        rec = fp.rec(node.value)
        if rec is None:
            return True
        return self._set(node, fp.method_call(rec, "__getitem__", node, [fp._index(node)]))

    def visit_Arg(self, node: cst.Arg):
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def visit_Name(self, node: cst.Name):
        fp = self.fp
        if id(node) in self.skip:
            return True
        if node.value in fp.env or node.value in fp.mp.instances:
            raise fp.error(node, f"`{node.value}` is a dataclass instance; kernels may read its "
                           "fields, call its methods or pass it to a helper, not use it as a "
                           "value", help="read the fields you need")
        if node.value in fp.mp.classes:
            raise fp.error(node, f"dataclass `{node.value}` used as a value; kernels may "
                           "create instances of it and read its class constants",
                           help="create an instance (`Cls(...)`) or read a class constant "
                                "(`Cls.NAME`); pass other uses' values as arguments")
        return True

    def on_leave(self, original, updated):
        if original in self.repl:
            return self.repl[original]
        return super().on_leave(original, updated)


def rewrite_pass(unit) -> None:
    """Module pass (rewrite/__init__.py): the functions that `unit.roles` reach rewritten;
    the kernels whose rewrite failed in `unit.failures`."""
    unit.failures.update(rewrite_records(unit.pm, unit.roles))


def kernel_pass(unit) -> None:
    """Kernel pass (rewrite/__init__.py): a kernel defined in a host function rewritten as
    the module pass rewrote the module's kernels."""
    nk = unit.fn.nested
    if nk is not None:      # (as the kernel passes before it left it: tuple parameters split)
        unit.fn.node = rewrite_nested_kernel(unit.pm, unit.fn.node, nk)
