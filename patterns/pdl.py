"""Programmatic dependent launch: ct.grid_dependency_control_wait and
ct.grid_dependency_control_launch_dependents.

With PDL a kernel may start before the kernel ahead of it on the stream has finished; `wait`
blocks until that predecessor's memory is visible, and `launch_dependents` lets a successor
start early. The translation's launchers launch without PDL, so each kernel starts only after
its predecessor has finished: the wait is already satisfied and the early start never happens.
Both become `pass` with a comment saying so.
"""
from tile2triton.model import Lowered, NoneV
from tile2triton.pattern_api import Example, Pattern

_WHY = {
    "grid_dependency_control_wait": "no PDL, the predecessor has finished",
    "grid_dependency_control_launch_dependents": "no PDL, successors start later",
}


class GridDependencyControl(Pattern):
    constructs = tuple(_WHY)
    summary = "programmatic dependent launch controls (the launchers do not use PDL)"
    triton = "`pass` (stream-ordered launches satisfy the wait)"

    def signature():
        pass

    examples = [Example("""
@ct.kernel
def k(x, TILE: ct.Constant[int]):
    ct.grid_dependency_control_wait()
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(x, (ct.bid(0),), t + 1)
""", expect=["pass  # ct.grid_dependency_control_wait(): no PDL, the predecessor has finished",
             "pass  # ct.grid_dependency_control_launch_dependents(): no PDL, successors start "
             "later"])]

    def lower(self, call, cx):
        return Lowered(f"pass  # ct.{call.name}(): {_WHY[call.name]}", NoneV())
