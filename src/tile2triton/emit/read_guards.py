"""When a kernel reads each array parameter, as a condition the launcher can evaluate.

A cuTile kernel compiles only the compile-time branches its launch's constants select: an
array mentioned only under `if HAS_BIAS:` is not read when HAS_BIAS is False, and callers pass
any array there (a placeholder of another rank, often `torch.empty(1)`). cuTile accepts that
launch. The translated kernel keeps the branch as a `tl.constexpr` `if`, which Triton compiles
the same way, so the launcher only has to know when the array is read: then it checks the
array's rank as usual, otherwise any array will do (emit.render_launcher hands the kernel an
empty stand-in of the rank its parameters expect).

`read_guards` gives, per array parameter mentioned only inside such branches, the condition
under which the kernel reads it: a Python expression over the kernel's ct.Constant parameters
(which the launcher takes by the same names). A branch whose test reads anything else (a
runtime value, a global, a call) is assumed taken: its mentions count as reads under the
conditions around it only.
"""
from __future__ import annotations

import libcst as cst

_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
                cst.GreaterThanEqual, cst.Is, cst.IsNot)


class _Guards(cst.CSTVisitor):
    def __init__(self, arrays: set, constants: set):
        self.arrays = arrays
        self.constants = constants
        self.path: list = []                 # conditions of the enclosing branches
        self.reads: dict = {a: [] for a in arrays}   # array -> [conditions] per mention
        self.always: set = set()             # arrays mentioned outside any known branch

    def _evaluable(self, expr) -> bool:
        """Whether the launcher computes `expr` as the kernel does: constants, ct.Constant
        parameters, `not`/`and`/`or`, comparisons."""
        if isinstance(expr, cst.Name):
            return expr.value in self.constants or expr.value in ("True", "False", "None")
        if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, (cst.Not, cst.Minus)) \
                and self._evaluable(expr.expression)
        if isinstance(expr, cst.BooleanOperation):
            return self._evaluable(expr.left) and self._evaluable(expr.right)
        if isinstance(expr, cst.Comparison):
            return self._evaluable(expr.left) and all(
                isinstance(c.operator, _COMPARISONS) and self._evaluable(c.comparator)
                for c in expr.comparisons)
        return False

    def visit_If(self, node: cst.If) -> bool:
        test = cst.Module([]).code_for_node(node.test) if self._evaluable(node.test) else None
        node.test.visit(self)
        self.path.append(test)
        node.body.visit(self)
        self.path.pop()
        if node.orelse is not None:
            self.path.append(negation(test) if test else None)
            node.orelse.visit(self)
            self.path.pop()
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)          # `x.shape`: `shape` is no mention
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)          # `index=`: the keyword is no mention
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.arrays:
            return
        known = [c for c in self.path if c is not None]
        if not known:
            self.always.add(node.value)
        else:
            self.reads[node.value].append(" and ".join(_grouped(c) for c in known)
                                          if len(known) > 1 else known[0])


class _Assigned(cst.CSTVisitor):
    """Names the kernel body rebinds (a rebound constant is no longer the launch's value)."""

    def __init__(self):
        self.names: set = set()

    def _targets(self, target) -> None:
        for n in _names(target):
            self.names.add(n)

    def visit_AssignTarget(self, node) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node) -> None:
        self._targets(node.target)

    def visit_For(self, node) -> None:
        self._targets(node.target)

    def visit_NamedExpr(self, node) -> None:
        self._targets(node.target)


def _names(target):
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for e in target.elements:
            yield from _names(e.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names(target.value)


def read_guards(fn_node: cst.FunctionDef, arrays, constants) -> dict[str, str]:
    """{array: condition} for the arrays of `arrays` that `fn_node` mentions only inside
    branches on `constants` (see the module docstring); the others are always read."""
    assigned = _Assigned()
    fn_node.body.visit(assigned)
    scan = _Guards(set(arrays), set(constants) - assigned.names)
    fn_node.body.visit(scan)
    out: dict[str, str] = {}
    for name in arrays:
        conditions = scan.reads[name]
        if name in scan.always or not conditions:
            continue      # read unconditionally (or not at all: the rank check stays)
        unique = list(dict.fromkeys(conditions))
        out[name] = unique[0] if len(unique) == 1 else " or ".join(_grouped(c) for c in unique)
    return out


def _grouped(condition: str) -> str:
    return condition if condition.isidentifier() else f"({condition})"


def negation(condition: str) -> str:
    """`not condition`, parenthesized where it needs to be."""
    return f"not {_grouped(condition)}"

