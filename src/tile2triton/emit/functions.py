"""emit: the text of each @triton.jit function: its signature (the array ABI's parameters),
the divisibility restatements of its arrays' extents and strides, and its offset dtype."""
from __future__ import annotations

import re

from ..model import OFFSET_DTYPE, USE_INT64, FunctionInfo
from ..parse.source import ParsedModule
from .layout import after_docstring


def function_text(pm: ParsedModule, fn: FunctionInfo, params: list[str], body: str,
                   debug: bool = False, no_specialize: tuple = ()) -> str:
    # device asserts are compiled only in Triton's debug mode; a long signature is wrapped
    # by layout.py with the rest of the generated code. `no_specialize`: integer arguments
    # whose value changes from launch to launch (a grid size) and must not recompile
    options = (["debug=True"] if debug else []) + (
        ["do_not_specialize=[" + ", ".join(f'"{n}"' for n in no_specialize) + "]"]
        if no_specialize else [])
    lines = [f"@triton.jit({', '.join(options)})" if options else "@triton.jit",
             f"def {fn.name}({', '.join(params)}):"]
    if not any(line.strip() and not line.strip().startswith("#") for line in body.splitlines()):
        # (a rank variant whose ranks take none of the kernel's branches does nothing)
        body = body + "    pass\n"
    return "\n".join(lines) + "\n" + body


def kernel_params(params, unread: frozenset = frozenset()) -> list[str]:
    """The kernel's parameters; `unread`: extents and strides it leaves out (unread_extents)."""
    out = []
    for p in params:
        if p.kind == "array":
            a = p.array
            static = {a.shape(i) for i in a.static_shapes} | {a.stride(i) for i in a.static_strides}
            out.extend(f"{n}: tl.constexpr" if n in static else n for n in a.abi()
                       if n not in unread)
        elif p.kind == "array_list":
            out.extend(p.array_list.abi())
        elif p.kind == "constexpr":
            out.append(f"{p.name}: tl.constexpr")
        else:
            out.append(p.name)
    return out


def multiples_name(array) -> str:
    return f"{array.abi_prefix}_div"


def unread_extents(params, body: str) -> frozenset:
    """The extents and strides of the kernel's arrays that its body never names: the kernel
    does not take them (an argument it does not read compiles to nothing either way)."""
    named = set(re.findall(r"\w+", body))
    return frozenset(n for p in params if p.kind == "array" and p.array.rank
                     for n in p.array.abi()[1:] if n not in named)


def _restatements(a, unread: frozenset) -> list:
    d = multiples_name(a)
    lines = [f"    {a.stride(i)} = {a.stride(i)} // {d}[{i}] * {d}[{i}]" for i in range(a.rank)
             if i not in a.static_strides and a.stride(i) not in unread]
    return lines + [f"    {a.shape(i)} = {a.shape(i)} // {d}[{a.rank + i}] * {d}[{a.rank + i}]"
                    for i in range(a.rank)
                    if i not in a.static_shapes and a.shape(i) not in unread]


def restated(a, unread: frozenset) -> bool:
    """Whether the kernel reads `a`'s multiples (its `*_div` argument)."""
    return bool(_restatements(a, unread))


def with_multiples(body: str, arrays: list, unread: frozenset = frozenset()) -> str:
    """The kernel body with divisibility the launcher checked made visible to Triton.

    Triton specializes an integer argument on being a multiple of 16, nothing less; a row
    stride or row length that is a multiple of 8 but not 16 (K = 4088) leaves every row start
    unproven 16-byte aligned and every load scalar (7.4x slower on the H200). The launcher
    passes, per array, the largest of 16, 8, 4, 2, 1 dividing each stride, then each extent of
    a contiguous dimension (`x_div`; 1 for the other extents); `v // d * d` is v itself, and
    carries the multiple into the kernel (tl.multiple_of on an argument has no effect). Both
    layouts count: a column-major array (a K-major matmul operand) is contiguous along its
    first dimension, whose extent then bounds the vector loads."""
    # (a compile-time extent or stride is known exactly; one the kernel does not take, unread)
    lines = [line for a in arrays for line in _restatements(a, unread)]
    if not lines:
        return body
    text = body.split("\n")
    at = after_docstring(text)
    note = ["    # strides and row lengths are multiples the launcher checked (its *_div arguments)"]
    return "\n".join(text[:at] + note + lines + text[at:])


def with_module_constants(body: str, unit) -> str:
    """The function body with the module's number constants it reads (lowerer.module_global)
    defined at its top as constexprs: Triton reads a module global only when it is a
    `tl.constexpr` object, and the user's module keeps its plain number for host code."""
    if not unit.module_constants:
        return body
    # only those the body reads, or a kept one's value names (a constant read only to fold
    # another's value, `TILE2 = TILE * 2`, would be an unused line)
    kept, used = [], set(re.findall(r"[A-Za-z_]\w*", body))
    for name, code in reversed(unit.module_constants.items()):
        if name in used:
            kept.insert(0, (name, code))
            used |= set(re.findall(r"[A-Za-z_]\w*", code))
    text = body.split("\n")
    at = after_docstring(text)
    lines = [f"    {name}: tl.constexpr = {code}" for name, code in kept]
    return "\n".join(text[:at] + lines + text[at:])


def with_offset_dtype(body: str, unit, names) -> str:
    """The function body with its offset dtype (lowerer.offset_dtype) defined at its top, where
    its inline tile accesses use one: the launcher's USE_INT64 choice, made once."""
    if not unit.offset_dtype:
        return body
    text = body.split("\n")
    at = after_docstring(text)
    line = f"    {names[OFFSET_DTYPE]}: tl.constexpr = tl.int64 if {USE_INT64} else tl.int32"
    return "\n".join(text[:at] + [line] + text[at:])
