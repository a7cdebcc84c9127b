"""Block coarsening: one Triton program runs several consecutive cuTile blocks along axis 0.

Why: a kernel whose blocks each move one small tile (vector add with 128-wide tiles) is limited
by how many blocks the GPU keeps resident, not by memory: on the H200 such a kernel reaches 60 %
of copy bandwidth, in cuTile and in a one-to-one translation alike, and 103 % when each program
runs two blocks (GPU run 20, benchmarks/memory_bound_forms.py; docs/performance.md).

When it is safe: CUDA lets blocks run in any order, one after another included, so running
blocks 2p and 2p+1 in sequence inside program p is a schedule the original could have had,
unless a block waits for another (a spin on an atomic) or learns the grid's size. Taken only
for kernels whose generated code has no atomics, no loops, no early return, no dot, no
`tl.num_programs`, and whose helpers do not read the block id themselves; the launcher then
chooses how many blocks per program from the tile size (at least 256 elements of work per
program, at most 8 blocks) and passes the original grid size, below which every block runs.

The decisions (`coarsenable`, `persistable`) read the facts the lowering recorded on each
function (`UnitResult.facts`, lower/unit.py `BodyFacts`: atomics, loops, returns, barriers,
grid size, the block-id axes read, string statements, names bound, helpers called) and on
each device helper (`BodyFacts.of` its source), never the generated text. Applying a decision
still edits text, minimally: the body is indented under the new loop with `tl.program_id(k)`
replaced by the loop's block (`coarsened_body`, `persistent_body`), and a walked helper's
calls and definition gain the block as a last argument (`walked_calls`, `walked_helper`).
"""
from __future__ import annotations

import re
from typing import Optional

from ..lower.unit import BodyFacts
from .layout import after_docstring

BLOCK_ID = "tl.program_id(0)"
BLOCK_IDS = (BLOCK_ID, "tl.program_id(1)", "tl.program_id(2)")
# Elements of work per program the launcher aims for (the launcher template says the same)
MIN_WORK = 256


def _helper_blocks(f, block_ok: bool = False) -> bool:
    """Whether a helper with facts `f` keeps its callers one block per program (a helper with
    its own loop is fine, a spinning one is not); `block_ok`: reading tl.program_id(0) is."""
    axes = f.block_axes - {0} if block_ok else f.block_axes
    return f.atomics or f.grid_size or f.barriers or f.whiles or bool(axes)


def coarsenable(fn, unit, params: list, helpers: tuple = ()) -> bool:
    """Whether kernel `fn` (lowered to `unit`, with the Triton parameters `params`) may run
    several blocks per program. `helpers`: the module's translated helpers (their
    UnitResults); a device function that may return early (more than one `return`) keeps the
    module one block per program, since Triton fails to compile such a function called inside
    the coarsening loop's `if` (sm_90, PassManager::run failed)."""
    devices = [BodyFacts.of(src) for src in unit.helper_sources.values()]
    others = [h.facts for h in helpers] + devices
    if any(f.returns > 1 for f in others):
        return False
    f = unit.facts
    if unit.uses_dot or not unit.tile_elems or 0 not in f.block_axes:
        return False
    sizes = [_literal(e) for e in unit.tile_elems]
    if all(n is not None for n in sizes) and max(sizes) >= MIN_WORK:
        return False                # tiles known to be large enough: leave the kernel as is
    if any(p.kind == "array_list" for p in fn.params):
        return False                # lists of arrays launch through their own tables
    if f.atomics or f.grid_size or f.barriers or f.loops or f.returns or f.strings:
        return False
    if any(_helper_blocks(h) for h in others):
        return False                # (the module's own helpers too: one may call ct.bid)
    # a parameter the body assigns (`n = 100.0` after a use of `n`) would carry the first
    # block's value into the next one: every other name is bound afresh in each block
    names = {p.split(":")[0].strip() for p in params}
    return not (f.assigned & names)


def persistable(fn, unit, params: list, helpers: dict) -> Optional[tuple]:
    """Whether matrix kernel `fn` may run persistently: each program a loop over blocks pid,
    pid + programs, ... of the grid (numbered as the GPU starts them, axis 0 fastest), the
    launcher running at most one program per SM when the kernel's operands come through TMA
    descriptors. Why: Triton then pipelines across output tiles, as in a persistent kernel
    written so; the fp16 matmul at cuTile's 128x128x64 tile measured 1.04-1.07x cuTile against
    1.00-1.01x one block per program (GPU run 32, benchmarks/gemm_forms.py). Safe for the reason block coarsening is (module docstring): the
    same blockers, loops allowed (they are the point), a kernel already persistent left alone.

    `helpers`: the module's translated helpers, name -> UnitResult. Returns None, or the helpers
    the kernel calls that read the block id themselves (upstream's `swizzle_2d`: each gets a
    copy taking the block as an argument, `walked_helper`, called from the kernel instead) and
    how many grid axes the kernel reads (1 to 3; `ct.bid(1)` of a 2-D grid of tiles)."""
    if not (unit.uses_dot and unit.tma) or unit.persistent_dots or unit.flatten:
        return None
    if any(p.kind == "array_list" for p in fn.params):
        return None
    facts = {n: h.facts for n, h in helpers.items()}
    called = unit.facts.calls & facts.keys()
    reached, seen = set(called), set()
    while reached - seen:              # what the kernel's helpers call in turn
        name = (reached - seen).pop()
        seen.add(name)
        reached |= facts[name].calls & facts.keys()
    if any(facts[n].block_axes & {1, 2} for n in reached):
        return None                 # a helper reading another axis: its callers would need copies
    f = unit.facts
    axes = 3 if 2 in f.block_axes else 2 if 1 in f.block_axes else 1
    # (a helper returning early is fine here: no `if` around the body, unlike coarsening)
    if f.atomics or f.grid_size or f.barriers or f.returns or f.strings:
        return None
    reading = {n for n in reached if 0 in facts[n].block_axes}
    if reading - called or any(facts[n].calls & reading for n in reached):
        return None                 # read by a helper of a helper: its callers would need copies
    if 0 not in f.block_axes and not reading:
        return None
    devices = [BodyFacts.of(src) for src in unit.helper_sources.values()]
    if any(_helper_blocks(facts[n]) for n in reached - reading) or any(
            _helper_blocks(d) for d in devices) or any(
            _helper_blocks(facts[n], block_ok=True) for n in reading):
        return None
    names = {p.split(":")[0].strip() for p in params}
    return None if f.assigned & names else (reading, axes)


def coarsened_body(body: str, block: str, grid_x: str, per_program: str, step: str) -> str:
    """The kernel body run for `per_program` consecutive blocks, the block id read from
    `block` instead of tl.program_id(0); blocks at or past `grid_x` (the launch's own grid)
    do nothing."""
    lines = body.split("\n")
    at = after_docstring(lines)
    inner = ["        " + ln.replace(BLOCK_ID, block) if ln.strip() else ""
             for ln in lines[at:]]
    head = [
        f"    # each program runs {per_program} consecutive small blocks (chosen at launch)",
        f"    for {step} in tl.static_range({per_program}):",
        f"        {block} = {BLOCK_ID} * {per_program} + {step}",
        f"        if {block} < {grid_x}:",
    ]
    while inner and not inner[0]:
        inner.pop(0)
    return "\n".join(lines[:at] + head + inner)


def _call_of(name: str):
    """A call of `name` in generated text, for the edit that passes the block to it."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}\(")


def walked_calls(body: str, helper: str, walked: str, block: str) -> str:
    """`body` with each call `helper(...)` made `walked(..., block)`."""
    out, pos = [], 0
    for m in _call_of(helper).finditer(body):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(body[i], 0)
            i += 1
        args = body[m.end():i - 1]
        out += [body[pos:m.start()], f"{walked}({args}{', ' if args.strip() else ''}{block})"]
        pos = i
    return "".join(out) + body[pos:]


def walked_helper(text: str, name: str, walked: str, block: str) -> str:
    """The generated helper `text` (`def name(...)`) as `walked`, which reads the block id from
    its last parameter `block` instead of tl.program_id(0)."""
    head, sep, body = text.partition(f"def {name}(")
    params_end = body.index("):")
    params = body[:params_end].rstrip().rstrip(",")
    params = f"{params}, {block}" if params.strip() else block
    return head + f"def {walked}(" + params + body[params_end:].replace(BLOCK_ID, block)


def persistent_body(body: str, blocks: list, grid: list, flatten: str, walk: str) -> str:
    """The kernel body in a loop over the blocks of its grid (`grid`: the names of its extents
    along the axes the kernel reads), from the program's own id in steps of the number of
    programs; `blocks` names each axis' block id in the loop, `walk` (2 or 3 axes) the linear
    block number, axis 0 fastest. `flatten` (a constexpr the launcher sets when it built TMA
    descriptors) lets Triton pipeline across the loop's iterations."""
    lines = body.split("\n")
    at = after_docstring(lines)
    inner = []
    for ln in lines[at:]:
        for axis, block in enumerate(blocks):
            ln = ln.replace(BLOCK_IDS[axis], block)
        inner.append("    " + ln if ln.strip() else "")
    if len(grid) == 1:
        head = [
            "    # the blocks of axis 0 in a loop: with TMA operands the launcher runs one program",
            "    # per SM, pipelined across output tiles",
            f"    for {blocks[0]} in tl.range({BLOCK_ID}, {grid[0]}, tl.num_programs(0), "
            f"flatten={flatten}):",
        ]
    else:
        # blocks numbered as the GPU starts them (axis 0 fastest), so that the tiles the
        # programs work on at one time are the ones cuTile's blocks would share in L2
        head = [
            "    # the grid's blocks in a loop, in the order the GPU starts them: with TMA operands",
            "    # the launcher runs one program per SM, pipelined across output tiles",
            f"    for {walk} in tl.range({BLOCK_ID}, {' * '.join(grid)}, tl.num_programs(0), "
            f"flatten={flatten}):",
            f"        {blocks[0]} = {walk} % {grid[0]}",
        ]
        if len(grid) == 2:
            head.append(f"        {blocks[1]} = {walk} // {grid[0]}")
        else:
            head += [f"        {blocks[1]} = {walk} // {grid[0]} % {grid[1]}",
                     f"        {blocks[2]} = {walk} // ({grid[0]} * {grid[1]})"]
    while inner and not inner[0]:
        inner.pop(0)
    return "\n".join(lines[:at] + head + inner)


def _literal(expr: str):
    """The value of a tile size written with integer literals only (`128`, `16 * 32`)."""
    import ast
    import math
    try:
        node = ast.parse(str(expr), mode="eval").body
    except SyntaxError:
        return None
    factors = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        factors.append(node.right)
        node = node.left
    factors.append(node)
    if not all(isinstance(f, ast.Constant) and type(f.value) is int for f in factors):
        return None
    return math.prod(f.value for f in factors)
