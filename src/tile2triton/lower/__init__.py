"""lower: turn one cuTile kernel (or helper) into the text of a Triton @jit function.

`Lowerer` has one method per supported syntax node, a closed set: statements (statements.py,
branches.py, loops.py, assignments.py) and expressions (expressions.py, operators.py, calls.py,
helper_calls.py) no method handles raise a located T2T101, and every `ct.*` call and operator
goes to the pattern that claims it (or T2T100). What is known statically about values lives in
values.py. `ModuleContext` (module.py) specializes the module functions kernels
call, once per module.
"""
from .lowerer import Lowerer
from .module import ModuleContext, lower_function
from .unit import UnitResult

__all__ = ["Lowerer", "ModuleContext", "UnitResult", "lower_function"]
