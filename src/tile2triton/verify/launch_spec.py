"""A kernel launch written on the command line, for `tile2triton inspect FILE --launch SPEC`:

    matmul[(8, 8)](a=float16[1024, 512], b=float16[512, 1024], c=float32[1024, 1024], TM=128)

Python call syntax, like a Triton launch: the kernel's name, the grid in brackets (an int or a
tuple of up to three), then its arguments by position or by name. An argument is a number or a
bool (a scalar or a ct.Constant), an array written `DTYPE[extent, ...]` (a contiguous torch
tensor of random values: inspect compiles and runs nothing, so values never matter, only
dtype, shape and alignment), or a list of arrays `[float16[64, 64], float16[128, 64]]`.

`--launch @FILE` reads one such spec per line of FILE (blank lines and `#` comments skipped).
Parsing needs no torch; making the arguments does.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import UsageError

# names a spec may use for a dtype -> torch attribute
DTYPES = {
    "bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
}

EXAMPLE = "kernel[(grid_x, grid_y)](x=float32[1024, 256], n=1024, TILE=128)"


@dataclass(frozen=True)
class ArraySpec:
    dtype: str      # torch dtype name
    shape: tuple


@dataclass
class LaunchSpec:
    text: str
    kernel: str
    grid: tuple
    args: list = field(default_factory=list)     # values in parameter order
    kwargs: dict = field(default_factory=dict)


def _refuse(spec: str, node, why: str) -> UsageError:
    col = getattr(node, "col_offset", 0)
    return UsageError(f"--launch {spec!r}: {why}\n  {spec}\n  {' ' * col}^\n"
                      f"help: write the launch as {EXAMPLE}")


def _value(spec: str, node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and \
            isinstance(node.operand.value, (int, float)) and \
            not isinstance(node.operand.value, bool):
        return -node.operand.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        dtype = DTYPES.get(node.value.id)
        if dtype is None:
            raise _refuse(spec, node.value, f"unknown dtype `{node.value.id}` (known: "
                          f"{', '.join(sorted(k for k in DTYPES if k == DTYPES[k]))})")
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = []
        for d in dims:
            if not (isinstance(d, ast.Constant) and type(d.value) is int and d.value >= 0):
                raise _refuse(spec, d, "an array's extents must be non-negative integers")
            shape.append(d.value)
        return ArraySpec(dtype, tuple(shape))
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(spec, e) for e in node.elts]
        if not items or not all(isinstance(i, ArraySpec) for i in items):
            raise _refuse(spec, node, "a list argument holds arrays (`[float16[64, 64], ...]`)")
        return items
    raise _refuse(spec, node, "an argument is a number, a bool, an array `DTYPE[extents]` or a "
                  "list of arrays")


def parse_launch(spec: str) -> LaunchSpec:
    """The launch a spec describes; UsageError (with a caret under the problem) otherwise."""
    try:
        tree = ast.parse(spec.strip(), mode="eval")
    except SyntaxError as e:
        raise UsageError(f"--launch {spec!r}: not a launch ({e.msg})\n"
                         f"help: write the launch as {EXAMPLE}") from None
    call = tree.body
    spec = spec.strip()
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Subscript)
            and isinstance(call.func.value, ast.Name)):
        raise _refuse(spec, call, "expected KERNEL[GRID](ARGUMENTS)")
    g = call.func.slice
    dims = g.elts if isinstance(g, ast.Tuple) else [g]
    if not 1 <= len(dims) <= 3 or not all(
            isinstance(d, ast.Constant) and type(d.value) is int and d.value >= 1 for d in dims):
        raise _refuse(spec, g, "the grid is a positive int or a tuple of one to three of them")
    out = LaunchSpec(spec, call.func.value.id, tuple(d.value for d in dims))
    for a in call.args:
        if isinstance(a, ast.Starred):
            raise _refuse(spec, a, "`*` arguments are not accepted")
        out.args.append(_value(spec, a))
    for k in call.keywords:
        if k.arg is None:
            raise _refuse(spec, k.value, "`**` arguments are not accepted")
        out.kwargs[k.arg] = _value(spec, k.value)
    return out


def read_launches(items: list[str]) -> list[LaunchSpec]:
    """Every --launch: a spec, or @FILE holding one spec per line."""
    specs = []
    for item in items:
        if item.startswith("@"):
            path = Path(item[1:])
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except OSError as e:
                raise UsageError(f"--launch {item}: cannot read {path}: {e.strerror or e}") \
                    from None
            before = len(specs)
            for n, line in enumerate(lines, 1):
                line = line.split("#", 1)[0].strip()
                if line:
                    try:
                        specs.append(parse_launch(line))
                    except UsageError as e:
                        raise UsageError(f"{path}:{n}: {e}") from None
            if len(specs) == before:
                raise UsageError(f"--launch {item}: {path} holds no launch")
        else:
            specs.append(parse_launch(item))
    return specs


def make_value(v, gen):
    """A spec's argument as the launcher takes it (random data, CPU tensors)."""
    import torch
    if isinstance(v, list):
        return [make_value(i, gen) for i in v]
    if not isinstance(v, ArraySpec):
        return v
    dtype = getattr(torch, v.dtype, None)
    if dtype is None:
        raise UsageError(f"this torch has no {v.dtype}")
    if dtype.is_floating_point:
        return torch.randn(v.shape, generator=gen, dtype=torch.float32).to(dtype)
    if dtype is torch.bool:
        return torch.randint(0, 2, v.shape, generator=gen).bool()
    return torch.randint(0, 8, v.shape, generator=gen).to(dtype)
