"""rewrite: source-to-source passes on the parsed module, run before recognition and lowering.

Every pass has one signature, `pass_(unit: Unit) -> None`: it reads and rewrites the unit in
place (the module's libcst tree through `unit.pm`, one kernel's definition, or one function's
body) and leaves what later stages need on the unit. translate.py runs the lists in order:

1. MODULE_PASSES, once per module, before recognition: frozen_dataclasses.py (an instance of
   a frozen dataclass becomes one local per field; a kernel whose rewrite failed is in
   `unit.failures`), host_kernels.py (kernels defined inside host functions, in
   `unit.hoisted`).
2. KERNEL_PASSES, once per kernel, before its parameters are classified: tuple_params.py (a
   tuple parameter read through constant indices becomes its leaves), frozen_dataclasses.py
   (the dataclass instances of a kernel defined in a host function).
3. BODY_PASSES, once per function the lowering translates (lower/statements.py), on its body:
   exits.py's `indent_suites` (one-line suites are the blocks they stand for),
   closure_factories.py (closures made by factory functions inlined), context_managers.py
   (`with` over generator context managers inlined), exits.py's `rewrite_exits` (`break`,
   `continue` and early `return` become flags).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from . import closure_factories, context_managers, exits, frozen_dataclasses, host_kernels
from . import tuple_params


@dataclass(slots=True)
class Unit:
    """What a pass rewrites, and what it leaves for later stages."""
    pm: Any                              # the ParsedModule
    roles: tuple = ()                    # module passes: the kernels and @ct.function helpers
    fn: Any = None                       # kernel passes: the kernel's FunctionInfo
    body: Any = None                     # body passes: the function body being rewritten
    error: Optional[Callable] = None     # body passes: how a located error is made
    failures: dict = field(default_factory=dict)   # kernel -> its dataclass rewrite's error
    hoisted: list = field(default_factory=list)    # kernels defined inside host functions


MODULE_PASSES = (frozen_dataclasses.rewrite_pass, host_kernels.rewrite_pass)
KERNEL_PASSES = (tuple_params.rewrite_pass, frozen_dataclasses.kernel_pass)
BODY_PASSES = (exits.indent_pass, closure_factories.rewrite_pass, context_managers.rewrite_pass,
               exits.rewrite_pass)


def run(passes: tuple, unit: Unit) -> Unit:
    for rewrite in passes:
        rewrite(unit)
    return unit
