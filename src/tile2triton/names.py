"""Spellings of the names tile2triton generates, chosen so they never meet the user's names.

The translated module mixes the user's code with generated names: per-array ABI names
(`a_ptr`, `a_shape0`, `a_stride0`), loop flags (`_broke_0`), device and host helpers
(`_load_tile_1d`, `_grid`, `_as_tensor`), launchers (`launch_k`) and their locals
(`tile_elems`). A user identifier spelled like one of them would be silently shadowed or
overwritten. So every identifier of the user's module is collected once, and each generated
name is given its usual spelling only when the user's module never uses it; otherwise the
first free `NAME_1`, `NAME_2`, ... (an array's ABI prefix: `a_1_ptr`, `a_1_shape0`, ...).
Allocation is per module and deterministic: one canonical name always gets one spelling.
"""
from __future__ import annotations

import re

import libcst as cst

# Suffixes of the per-array kernel parameters (model.ArrayInfo, model.ArrayListInfo).
_ABI_SUFFIX = re.compile(r"_(ptr|shape\d+|stride\d+|ptrs|shapes|strides|count|tables|DTYPE)$")


# Names the generated code needs with their usual meaning and cannot respell: the kernels'
# `USE_INT64` constexpr (a keyword of every launch), the modules the generated code refers to,
# and the launchers' `hints` keyword (kernel.replace_hints passes it).
RESERVED = {"USE_INT64": "the 64-bit offsets switch of every translated kernel",
            "tl": "triton.language in the translated module",
            "triton": "the triton module in the translated module",
            "torch": "the torch module in the translated module"}
# Keywords Triton's kernel launch takes itself (JITFunction.run and the backend options): a
# kernel parameter spelled like one would be taken as a launch option.
TRITON_LAUNCH_KEYWORDS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "grid",
                          "warmup", "enable_fp_fusion", "instrumentation_mode",
                          "launch_cooperative_grid", "launch_pdl")
RESERVED_IMPORTS = {"tl": "triton.language", "triton": "triton", "torch": "torch"}


def name_nodes(node: cst.CSTNode):
    """Every Name node that is an identifier (not the attribute after a dot), iteratively."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(reversed(node.children))


def identifiers(module: cst.CSTNode) -> set[str]:
    """Every identifier spelled anywhere in the module (names, attributes, parameters, keyword
    arguments, import aliases); an iterative walk, so deep trees cannot exhaust the stack."""
    out: set[str] = set()
    stack = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        stack.extend(node.children)
    return out


class Names:
    def __init__(self, used: set[str]):
        self.used = set(used)
        self._spelling: dict[str, str] = {}
        self._taken: set[str] = set()  # spellings handed out
        self._prefix: dict[str, str] = {}
        self._prefixes: set[str] = set()
        self._user_prefixes = set()
        for u in self.used:  # `x` for `x_shape0`; `xs` for `XS_DTYPE` (list dtypes are upper)
            m = _ABI_SUFFIX.search(u)
            if m:
                self._user_prefixes |= {u[:m.start()], u[:m.start()].lower()}

    def __getitem__(self, canonical: str) -> str:
        """The spelling of a generated module-level or kernel-level name."""
        got = self._spelling.get(canonical)
        if got is None:
            got = canonical
            k = 0
            while got in self.used or got in self._taken:
                k += 1
                got = f"{canonical}_{k}"
            self._spelling[canonical] = got
            self._taken.add(got)
        return got

    def renamed(self) -> dict[str, str]:
        """Generated names whose spelling differs from the usual one."""
        return {c: s for c, s in self._spelling.items() if c != s}

    def array_prefix(self, name: str) -> str:
        """The prefix of an array's ABI names: the array's own name unless the user's module
        spells one of `name_ptr`, `name_shape<i>`, `name_stride<i>`, ... itself."""
        got = self._prefix.get(name)
        if got is None:
            got, k = name, 0
            while got in self._user_prefixes or got in self._prefixes:
                k += 1
                got = f"{name}_{k}"
            self._prefix[name] = got
            self._prefixes.add(got)
        return got


class Renamer(cst.CSTTransformer):
    """Renames identifiers of *generated* code (helper blocks hold no user names, so this is
    exact); attribute names after a dot are left alone."""

    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        return updated.with_changes(attr=original.attr)

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        new = self.mapping.get(original.value)
        return updated.with_changes(value=new) if new else updated


def rename_code(code: str, mapping: dict[str, str]) -> str:
    """`code` (generated Python source) with the names of `mapping` respelled, on the CST."""
    if not mapping or not code.strip():
        return code
    return cst.parse_module(code).visit(Renamer(mapping)).code
