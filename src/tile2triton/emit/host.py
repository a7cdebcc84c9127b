"""emit: the user's module around the kernels, rewritten statement by statement: each kernel
becomes its generated statements, tile functions their @triton.jit ones (or a comment where
nothing calls them), cuTile imports an anchor where the imports go, cuTile aliases leave, and
`--keep-unconverted` keeps what failed as cuTile code under notes. Host expressions are
host_references.py's."""
from __future__ import annotations

import ast
import re

import libcst as cst

from ..diagnostics import LocatedFailure, TranslationError
from ..parse.names import launcher_name
from ..parse.source import ParsedModule, dotted_name
from . import keep_unconverted as keep_mod
from .host_references import HostReferences
from .imports import from_import_text
from .layout import layout_simple


class HostRewriter(HostReferences):
    """Rewrites the module around the kernels: each kernel becomes its generated statements,
    the first cuda.tile import an anchor where the imports go (render_module)."""

    def __init__(self, pm: ParsedModule, kernels: dict, device_funcs: dict, uncalled: dict):
        self.pm = pm
        self.names = pm.names
        self.kernels = kernels  # kernel name -> its generated statements (kernel + launcher)
        self.device_funcs = device_funcs  # helper name -> its generated @triton.jit statements
        self.uncalled = uncalled  # @ct.function name -> comment saying it was not translated
        self.uncalled_markers: dict = {}  # marker statement -> that comment
        self.method_markers: dict = {}  # the same, for a dataclass method (leave_ClassDef)
        self.import_anchor = None
        self.depth = 0
        self.class_depth = 0    # inside a class body: a method is not a module-level kernel
        self.errors = []
        self.host_features: set = set()
        self.introduced: set = set()  # generated names the rewritten host code refers to
        self.linked_helpers: set = set()   # helpers linked from other modules (packages.py)
        self.constexpr_functions: set = set()  # run at compile time: @triton.constexpr_function
        self.nested: dict = {}     # id(kernel def inside a host function) -> NestedKernel
        self.hoisted_defs: dict = {}   # id(tile helper def in a host function) -> its helper
        self.columns = [0]  # where the current block's statements start
        self.called: set = set()       # id() of the callee of each call in host code
        self.annotations = 0           # inside an annotation (which becomes a string)
        self.nested_refs: set = set()  # id() of ct-resolving bases of longer ct references
        # --keep-unconverted (keep.py): failed kernels, the tile functions kept with them, and
        # the diagnostics of host lines kept as cuTile code
        self.keeping = False
        self.kept: dict = {}
        self.kept_functions: set = set()
        self.kept_nodes: set = set()
        self.notes: list = []
        self.statement_errors: list = []   # len(self.errors) where each open statement began
        self.host_reads = None     # names host code reads (_host_reads)

    def keep(self, kept: dict, tile_functions: set, nodes: set) -> None:
        self.kept, self.kept_functions, self.kept_nodes = kept, tile_functions, nodes
        self.keeping = True

    def _kept_statement(self, original, updated):
        """In keep mode, a statement whose translation failed stays as written, under a
        note per diagnostic; otherwise `updated`."""
        start = self.statement_errors.pop()
        if not self.keeping or len(self.errors) == start:
            return updated
        new, self.errors = self.errors[start:], self.errors[:start]
        self.notes += [e.diagnostic for e in new]
        return keep_mod.with_notes(original, [e.diagnostic for e in new])

    def visit_IndentedBlock(self, node):
        self.columns.append(self.columns[-1] + len(node.indent if node.indent is not None
                                                  else "    "))

    def leave_IndentedBlock(self, original, updated):
        self.columns.pop()
        return updated

    def on_leave(self, original, updated):
        try:
            return super().on_leave(original, updated)
        except (TranslationError, LocatedFailure):
            raise
        except Exception as e:  # noqa: BLE001 - a translator bug, located at this node
            raise LocatedFailure(original, e) from e

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.statement_errors.append(len(self.errors))
        if id(node) in self.kept_nodes or (self.depth == 1 and (
                node.name.value in self.kept_functions and node.name.value not in
                self.device_funcs)) or (self.keeping and self.depth > 1 and any(
                    keep_mod.is_cutile_decorator(self.pm, d) for d in node.decorators)
                    and id(node) not in self.nested):
            return False        # cuTile code kept as it is (--keep-unconverted)
        if id(node) in self.pm.device_methods:
            return False        # a dataclass method kernels call: device code (records.py)
        if id(node) in self.hoisted_defs:
            return False        # a tile helper of hoisted kernels: module level now
        if (self.depth > 1 or self.class_depth) and id(node) not in self.nested:
            from ..recognize import tile_code_names
            role = next((r for r in (self.pm.decorator_role(d)[0] for d in node.decorators)
                         if r), None)
            if role is None and self.class_depth and self.depth == 1 \
                    and tile_code_names(self.pm, node):
                role = "function"   # tile code in a class body (handed to ct.kernel later)
            if role is not None:
                # tile code that convert cannot hoist (deeper nesting, in a class, a nested
                # @ct.function): one diagnostic at its definition, not one per ct.* call
                self.errors.append(self.pm.error(
                    node.name, "T2T109", f"{'kernel' if role == 'kernel' else 'tile function'} "
                    f"`{node.name.value}` is defined where convert cannot translate it",
                    help="convert translates kernels and helpers at module level and kernels "
                         "defined directly in a module-level function; move it there, or "
                         "translate it at run time with tile2triton.translate_kernel"))
                return False
        name = node.name.value
        return name not in self.kernels and name not in self.device_funcs \
            and name not in self.uncalled and id(node) not in self.nested

    def _nested_kernel(self, original, nk):
        """A kernel defined in a host function becomes its (hoisted) launcher there, with the
        host function's values of the kernel's closure names bound (see rewrite/host_kernels.py)."""
        self.host_features.add("launch")
        launcher = cst.Name(self.names[launcher_name(nk.hoisted)])
        value = launcher
        if nk.outer_kind == "class":    # `K.negate` and `self.negate` are the launcher
            value = cst.Call(cst.Name("staticmethod"), [cst.Arg(launcher)])
        if nk.closure:
            self.introduced.add("functools")
            def bound(c):     # a function value the kernel calls: passed by its name
                if not nk.choices.get(c):
                    return cst.Name(c)
                self.host_features.add("choice")
                self.introduced.add("_choice_name")
                return cst.Call(cst.Name(self.names["_choice_name"]), [cst.Arg(cst.Name(c))])
            value = cst.Call(cst.parse_expression("functools.partial"), [cst.Arg(launcher)] + [
                cst.Arg(bound(c), keyword=cst.Name(c), equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))) for c in nk.closure])
        return cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(nk.name))], value)],
            leading_lines=original.leading_lines)

    def visit_ClassDef(self, node):
        self.statement_errors.append(len(self.errors))
        self.class_depth += 1

    def leave_ClassDef(self, original, updated):
        """A dataclass whose methods kernels call keeps its fields and other methods; each
        translated method leaves a comment naming its device helpers (records.py). In keep
        mode a class whose own line failed (`class K(ct._cext.TileDispatcher)`) keeps that
        line as written (its body is translated statement by statement). Kernels of the
        class's body (rewrite/host_kernels.py) go before it, hoisted."""
        self.class_depth -= 1
        cls = self._class_body(original, updated)
        hoisted = [k for k in self.nested.values() if k.outer is original
                   or k.owner is original]       # (its body's kernels, its methods' kernels)
        if not hoisted or self.depth or self.class_depth:
            return cls
        blank = [cst.EmptyLine(), cst.EmptyLine()]
        out = []
        for k in hoisted:
            stmts = self.kernels[k.hoisted]
            out += [stmts[0].with_changes(leading_lines=blank)] + list(stmts[1:])
        return cst.FlattenSentinel(
            out + [cls.with_changes(leading_lines=list(cls.leading_lines) or blank)])

    def _class_body(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is not None:
            updated = updated.with_changes(
                leading_lines=kept.leading_lines, bases=original.bases,
                keywords=original.keywords, decorators=original.decorators)
        if not self.method_markers or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body, carry = [], []
        for stmt in updated.body.body:
            comment = self.method_markers.pop(stmt, None)
            if comment is not None:
                carry += [cst.EmptyLine(comment=cst.Comment(comment))]
                continue
            if carry:
                stmt = stmt.with_changes(leading_lines=list(stmt.leading_lines) + carry)
                carry = []
            body.append(stmt)
        if not body:
            body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carry))
            carry = []
        return updated.with_changes(body=updated.body.with_changes(
            body=body, footer=carry + list(updated.body.footer)))

    def leave_FunctionDef(self, original, updated):
        self.depth -= 1
        if id(original) in self.kept_nodes:
            self.statement_errors.pop()
            return keep_mod.kept_kernel(original, self.kept.get(original.name.value, []))
        kept_line = False
        if self.keeping:   # a host function's own line (decorators, defaults) failed
            kept = self._kept_statement(original, None)
            if kept is not None:    # (kernels hoisted from it still go before it)
                updated, kept_line = kept.with_changes(body=updated.body), True
        else:
            self.statement_errors.pop()
        if id(original) in self.pm.device_methods:
            cls, helpers = self.pm.device_methods[id(original)]
            marker = cst.SimpleStatementLine([cst.Pass()])
            names = ", ".join(f"`{h}`" for h in helpers)
            what = f"`{cls}.{original.name.value}`"
            self.method_markers[marker] = (
                f"# {what} is tile code that no kernel here calls: not translated"
                if not helpers else
                f"# {what} is a context manager, inlined where kernels enter it with `with`"
                if all(h in self.pm.context_managers for h in helpers) else
                f"# {what} runs in kernels: translated as {names}")
            return marker
        nk = self.nested.get(id(original))
        if nk is not None:
            return self._nested_kernel(original, nk)
        if id(original) in self.hoisted_defs:
            return cst.SimpleStatementLine([cst.Pass()], leading_lines=list(
                original.leading_lines) + [cst.EmptyLine(comment=cst.Comment(
                    f"# `{original.name.value}`: tile code of the kernels defined here, "
                    "translated with them at module level"))])
        hoisted = [k for k in self.nested.values() if k.outer is original and k.owner is None]
        if self.depth == 0 and hoisted:
            blank = [cst.EmptyLine(), cst.EmptyLine()]
            out = []
            for k in hoisted:       # the hoisted kernel and its launcher, before the function
                stmts = self.kernels[k.hoisted]
                out += [stmts[0].with_changes(leading_lines=blank)] + list(stmts[1:])
            return cst.FlattenSentinel(
                out + [updated.with_changes(leading_lines=list(updated.leading_lines) or blank)])
        name = original.name.value
        if self.depth or kept_line:
            return updated
        stmts = self.kernels.get(name) or self.device_funcs.get(name)
        if stmts:
            first = stmts[0].with_changes(leading_lines=[*original.leading_lines,
                                                         *backend_note(original.decorators)])
            if isinstance(first, cst.FunctionDef) and name in self.kernels:
                first = first.with_changes(
                    decorators=self._user_decorators(original) + list(first.decorators))
            elif isinstance(first, cst.FunctionDef) and (user := self._user_decorators(original)):
                # a kernel calls its device helpers directly: a decorator wrapping one would
                # make the Triton kernel call a Python wrapper, which Triton cannot compile
                dropped = ", ".join(f"`@{self.pm.module.code_for_node(d.decorator)}`"
                                    for d in user)
                first = first.with_changes(leading_lines=list(first.leading_lines) + [
                    cst.EmptyLine(comment=cst.Comment(f"# tile2triton: {dropped} is left out: "
                                                      "Triton kernels call their helpers directly"))])
            copy = []
            if name in self.device_funcs and name not in self.kernels \
                    and self._host_runnable(name):
                copy = [self._host_copy(updated, self.names[f"{name}_host"]).with_changes(
                    leading_lines=[cst.EmptyLine(), cst.EmptyLine(), cst.EmptyLine(
                        comment=cst.Comment(f"# `{name}` as host code calls it (plain Python)"))])]
            return cst.FlattenSentinel([first] + list(stmts[1:]) + copy)
        if name in self.uncalled and self._host_runnable(name):
            # no kernel calls it, host code does: it stays, as plain Python
            return self._host_copy(updated, name)
        if name in self.uncalled:
            marker = cst.SimpleStatementLine([cst.Pass()], leading_lines=original.leading_lines)
            self.uncalled_markers[marker] = self.uncalled[name]
            return marker
        if name in self.constexpr_functions:
            # plain Python that kernels call on compile-time values: Triton runs it while
            # compiling; host code calls it as before
            return updated.with_changes(decorators=[cst.Decorator(
                cst.parse_expression("triton.constexpr_function"))] + list(updated.decorators))
        note = backend_note(original.decorators) if self.depth == 0 else []
        return updated.with_changes(leading_lines=[*updated.leading_lines, *note])

    def _user_decorators(self, fdef) -> list:
        """The decorators of a kernel or tile function that are not cuTile's, kept above
        `@triton.jit` (a registration decorator then registers the Triton kernel). One below
        the cuTile decorator has changed the function cuTile compiled: refused."""
        kept, below = [], False
        for d in fdef.decorators:
            if self.pm.decorator_role(d)[0] is not None:
                below = True
            elif below:
                self.errors.append(self.pm.error(
                    d, "T2T109", "a decorator below the cuTile decorator changes the function "
                    "that cuTile compiles, which has no Triton translation",
                    help="put the decorator above the cuTile decorator (it then applies to the "
                         "kernel), or remove it"))
            else:
                kept.append(d)
        return kept

    # --keep-unconverted: a compound statement whose header failed keeps the header as
    # written (its body is translated statement by statement)
    _HEADERS = {"If": ("test",), "While": ("test",), "For": ("target", "iter"),
                "With": ("items",)}

    def _visit_compound(self, node):
        self.statement_errors.append(len(self.errors))

    def _leave_compound(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is None:
            return updated
        fields = self._HEADERS[type(original).__name__]
        return updated.with_changes(leading_lines=kept.leading_lines,
                                    **{f: getattr(original, f) for f in fields})

    visit_If = visit_While = visit_For = visit_With = _visit_compound
    leave_If = leave_While = leave_For = leave_With = _leave_compound

    def visit_SimpleStatementLine(self, node):
        self.statement_errors.append(len(self.errors))

    def leave_SimpleStatementLine(self, original, updated):
        kept = self._kept_statement(original, None)
        if kept is not None:
            return kept
        keep = []
        replaced = False
        for small in updated.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and self._is_cuda_tile_import(
                    small) and not self.keeping:      # (kept code needs cuda.tile)
                replaced = True
                continue
            if isinstance(small, cst.ImportFrom) and self.depth == 0:
                linked = self._link_imports(small)
                if linked is not small:
                    replaced = True
                    if linked is None:
                        continue
                    small = linked
            if self._dropped(small):
                replaced = True
                continue
            keep.append(small)
        if not replaced:
            if updated is not original and not updated.deep_equals(original):
                # host code the translation rewrote (`ct.launch(...)` -> `launch_k(...)`):
                # laid out like generated code; the user's other lines stay as written
                return layout_simple(updated, self.columns[-1])
            return updated
        if not keep:
            if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in original.body) \
                    and self.import_anchor is None and self.depth == 0:
                self.import_anchor = cst.SimpleStatementLine(
                    [cst.Pass()], leading_lines=original.leading_lines)
                return self.import_anchor
            return cst.RemovalSentinel.REMOVE
        return updated.with_changes(body=keep)

    def _dropped(self, small) -> bool:
        """A module-level cuTile alias the translator folds into the kernels (`ConstInt =
        ct.Constant[int]`), or a host function's cuTile constant folded into a kernel hoisted
        from it: the translated module has no line for it."""
        if self.keeping:
            return False        # (kept code reads them)
        if self.depth == 0 and isinstance(small, (cst.Assign, cst.AnnAssign)) \
                and small.value is not None and self._is_cutile_value(small.value):
            return not self._host_dtype_alias(small)
        return self.depth == 1 and isinstance(small, cst.Assign) and len(small.targets) == 1 \
            and isinstance(small.targets[0].target, cst.Name) \
            and self._is_cutile_value(small.value) and any(
                small.targets[0].target.value in k.folded for k in self.nested.values())

    def visit_Assign(self, node):
        if self._dropped(node) or (self.keeping and self.depth == 0 and
                                   self._is_cutile_value(node.value)):
            return False        # (its cuTile names are not host code)
        self._refuse_ct_targets([t.target for t in node.targets])
        return True

    def visit_AnnAssign(self, node):
        if self._dropped(node) or (self.keeping and self.depth == 0 and node.value is not None
                                   and self._is_cutile_value(node.value)):
            return False
        self._refuse_ct_targets([node.target])
        return True

    def _link_imports(self, node: cst.ImportFrom):
        """`from mypkg.tiles import helper`: the helper is now a local @triton.jit function, so
        its name leaves the import; `from mypkg.kern import kernel` also imports the kernel's
        launcher (packages.py). Returns the statement, or None when no name is left."""
        if isinstance(node.names, cst.ImportStar):
            return node
        foreign, fkernels = self.pm.foreign, self.pm.foreign_kernels
        names = []
        for a in node.names:
            local = a.asname.name.value if a.asname else a.name.value
            if local in foreign and local in self.linked_helpers:
                continue
            names.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            if local in fkernels and local not in self.pm.kept_foreign:
                kname = fkernels[local][1]
                alias = None if local == kname else cst.AsName(cst.Name(launcher_name(local)))
                names.append(cst.ImportAlias(cst.Name(launcher_name(kname)), asname=alias))
        if not names:
            return None
        if len(names) == len(node.names) and all(
                n.deep_equals(a.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                for n, a in zip(names, node.names)):
            return node     # nothing linked: as written (a comment between names stays)
        head = cst.Module([]).code_for_node(node.with_changes(
            names=[names[0]], lpar=None, rpar=None)).split(" import ")[0] + " import"
        return cst.parse_statement(from_import_text(head, names) + "\n").body[0]

    def _is_cuda_tile_import(self, node) -> bool:
        if isinstance(node, cst.Import):
            names = [dotted_name(a.name) for a in node.names]
            return all(n == "cuda" or n.startswith("cuda.tile") for n in names)
        mod = dotted_name(node.module) if node.module else ""
        return mod == "cuda.tile" or mod.startswith("cuda.tile.") or (
            mod == "cuda" and not isinstance(node.names, cst.ImportStar)
            and all(a.name.value == "tile" for a in node.names))


def backend_note(decorators) -> list:
    """A `# tile2triton:` line above a function whose decorator names cuTile in a string (a
    registration under a "cutile" backend): what it registers now runs Triton, and only the
    user can say under which name."""
    for d in decorators:
        try:
            tree = ast.parse(cst.Module([]).code_for_node(d.decorator).strip(), mode="eval")
        except SyntaxError:
            continue
        named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                 and isinstance(n.value, str) and "cutile" in re.sub(r"[\W_]", "", n.value.lower())]
        if named:
            return [cst.EmptyLine(comment=cst.Comment(
                f"# tile2triton: this decorator names cuTile ({named[0]!r}); the function now "
                "runs Triton"))]
    return []
