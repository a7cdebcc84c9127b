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

import ast
import re

import libcst as cst

# Suffixes of the per-array kernel parameters (model.ArrayInfo, model.ArrayListInfo).
_ABI_SUFFIX = re.compile(
    r"_(ptr|shape\d+|stride\d+|div|ptrs|shapes|strides|count|tables|DTYPE|UNIT|DIV)$")


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


def launcher_name(kernel: str) -> str:
    """The canonical name of kernel `kernel`'s host launcher: `launch_k`, and `_launch_k` for a
    private kernel `_k` (private as the user made the kernel, without a double underscore)."""
    private = kernel.startswith("_")
    return ("_launch_" if private else "launch_") + (kernel.lstrip("_") if private else kernel)


def comment_safe(text: str) -> str:
    """`text` (a file name, a path: anything the user chose) fit to sit inside a `#` comment of
    generated code. A line break would end the comment and make the rest a statement, so every
    character that is not printable (newlines, \\r, \\f, \\x1c-\\x1e, \\x85, U+2028/9, other
    controls, the surrogates of undecodable bytes) is written as its backslash escape."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace")
                   .decode("ascii") for c in text)


def source_identifiers(code) -> set[str]:
    """Every identifier of Python source (text or an `ast` tree): names, attributes,
    parameters, keyword arguments, definitions, imports. Python's own parser and `ast.walk`
    are far cheaper than a libcst traversal, and see the same identifiers."""
    tree = ast.parse(code) if isinstance(code, str) else code
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.update(node.name.split("."))
            if node.asname:
                out.add(node.asname)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.update(node.module.split("."))
        elif hasattr(ast, "MatchAs") and isinstance(node, (ast.MatchAs, ast.MatchStar)) \
                and node.name:
            out.add(node.name)
    return out


class _Collect(cst.CSTVisitor):
    def __init__(self, attributes: bool):
        self.nodes: list = []
        self.attributes = attributes

    def visit_Name(self, node: cst.Name) -> None:
        self.nodes.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.attributes:
            return True
        node.value.visit(self)  # the object, not the attribute name after the dot
        return False


def name_nodes(node: cst.CSTNode) -> list:
    """Every Name node that is an identifier (not the attribute after a dot), in order. (The
    nesting prescan bounds the depth of user code, so a recursive visit is safe.)"""
    c = _Collect(attributes=False)
    node.visit(c)
    return c.nodes


def identifiers(node: cst.CSTNode) -> set[str]:
    """Every identifier spelled anywhere under `node` (names, attributes, parameters, keyword
    arguments, import aliases)."""
    c = _Collect(attributes=True)
    node.visit(c)
    return {n.value for n in c.nodes}


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
