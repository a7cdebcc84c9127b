"""emit: a tile's offsets or bounds mask that a block computes twice (a load and a store of the
same tile, two arrays read at one index) is computed once, as one would write it by hand. The
compiler merged the two copies already (pure arithmetic, common subexpressions): the TTGIR and
PTX are the same (tools/device_code.py)."""
from __future__ import annotations

import ast
import copy
import re
from collections import Counter

# the calls these lines make (load_store.inline_access): pure, so equal lines are equal values
_PURE_CALLS = {"tl.arange", "tl.cast", "tl.program_id"}
_PREFIXES = ("offs_", "mask_")
# what str.splitlines breaks at besides "\n"
_ODD_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def shared_offsets(body: str) -> str:
    """`body` (an indented function body) without each `offs_*` / `mask_*` assignment that
    repeats an earlier one of its block (the same expression, no name of it re-bound between);
    its uses read the earlier name. Both names must be bound once in the function."""
    if not any(p in body for p in _PREFIXES) or _ODD_BREAKS.search(body):
        return body     # (lines are counted at "\n": a form feed in a string is not a break)
    try:
        fdef = ast.parse("def _f():\n" + body).body[0]
    except SyntaxError:
        return body
    bound = Counter(n.id for n in ast.walk(fdef)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    starts = Counter(n.lineno for n in ast.walk(fdef) if isinstance(n, ast.stmt))
    dropped, renamed, values = [], {}, {}
    for suite in _suites(fdef):
        seen: dict = {}     # the expression -> (its name, the names it reads)
        for stmt in suite:
            key = _repeatable(stmt, bound, renamed)
            if key is not None and key[0] in seen and starts[stmt.lineno] == 1:
                dropped.append(stmt)
                renamed[stmt.targets[0].id] = seen[key[0]][0]
                continue
            stores = {n.id for n in ast.walk(stmt)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            seen = {k: v for k, v in seen.items() if not (v[1] | {v[0]}) & stores}
            if key is not None:
                seen[key[0]] = (stmt.targets[0].id, key[1])
                values[stmt.targets[0].id] = stmt.value
    if not dropped:
        return body
    lines = body.split("\n")
    if any(not lines[s.lineno - 2].lstrip().startswith(s.targets[0].id + " =") for s in dropped):
        return body     # (the lines are not where the parser saw them: left as they are)
    gone = {i for s in dropped for i in range(s.lineno - 2, s.end_lineno - 1)}
    lines = [line for i, line in enumerate(lines) if i not in gone]
    renamed.update(_neutral_names(renamed, values, set(re.findall(r"\w+", body))))
    names = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, renamed)) + r")\b")
    return names.sub(lambda m: renamed[m.group(1)], "\n".join(lines))


# `offs_<array><dim>` (`_<n>` when the name was taken): a tile's offsets along a dimension
_OFFSETS = re.compile(r"offs_(\w+?)(\d)(_\d+)?")


def _neutral_names(renamed: dict, values: dict, taken: set) -> dict:
    """Kept offsets that other arrays now read as well get a name of no array, so that
    `c_ptr + offs_pid * c_stride0` does not read as if it addressed `a`: `offs_<index>` for
    offsets at a tile index that is a plain name (`offs_k`, as in hand-written Triton), else
    `offs_<size>` for a whole tile from 0 (`offs_tm`), else `offs<dim>`."""
    shared = set()      # kept names that another array's offsets now read
    for gone, kept in renamed.items():
        g, k = _OFFSETS.fullmatch(gone), _OFFSETS.fullmatch(kept)
        if g and k and g.group(1) != k.group(1):
            shared.add(kept)
    out = {}
    for kept in sorted(shared):
        named = _offsets_name(values.get(kept))
        base = f"offs_{named}" if named else f"offs{_OFFSETS.fullmatch(kept).group(2)}"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        out[kept] = name
    # names dropped for a kept one that is renamed read the new name too
    return {**out, **{gone: out[kept] for gone, kept in renamed.items() if kept in out}}


def _suites(node):
    """Every block of statements in `node`."""
    for sub in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(sub, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _repeatable(stmt, bound: Counter, renamed: dict):
    """(the expression, the names it reads) of `offs_x = <pure expression>` where `offs_x` is
    bound once, else None; names already replaced are read as their replacements."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id.startswith(_PREFIXES) and bound[stmt.targets[0].id] == 1):
        return None
    value = copy.deepcopy(stmt.value)
    for n in ast.walk(value):
        if isinstance(n, ast.Call) and not (
                ast.unparse(n.func) in _PURE_CALLS
                or isinstance(n.func, ast.Attribute) and n.func.attr == "to"):
            return None
        if isinstance(n, ast.Name) and n.id in renamed:
            n.id = renamed[n.id]
    reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if any(bound[r] > 1 and r.startswith(_PREFIXES) for r in reads):
        return None
    return ast.dump(value), reads


def _offsets_name(value):
    """What names offsets: `k` of `tl.cast(k, OFFSET_DTYPE) * TK + tl.arange(0, TK)` (or of
    `k * TK + ...`, `k + tl.arange(0, 1)`), else the tile size of `tl.arange(0, TK)`, lowered
    (`tk`); else None."""
    index = None
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        index = value.left      # (a tile of one element: `tl.cast(row, ...) + tl.arange(0, 1)`)
        if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Mult):
            index = index.left
        if isinstance(index, ast.Call) and ast.unparse(index.func) == "tl.cast" and index.args:
            index = index.args[0]
    if isinstance(index, ast.Name):
        return index.id
    sizes = [n.args[1] for n in ast.walk(value) if isinstance(n, ast.Call)
             and ast.unparse(n.func) == "tl.arange" and len(n.args) == 2]
    if index is None and len(sizes) == 1 and isinstance(sizes[0], ast.Name):
        return sizes[0].id.lower()
    return None
