"""parse: libcst module + positions + resolution of names that refer to cuda.tile.

We resolve names ourselves from the module's imports instead of running libcst's
QualifiedNameProvider: the only names that matter are those bound by `import cuda...` /
`from cuda.tile import ...` and module-level aliases of them, and a direct walk keeps converting
a 1,000-line module far under a second. Local shadowing inside kernels is handled by the lowering
environment, which looks up locals first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..diagnostics import Diagnostic, Note, SourceFile, TranslationError
from .names import Names, source_identifiers
from .prescan import MAX_DEPTH, too_deep

CUDA_TILE = "cuda.tile"

# cuTile's enums and their members, names the parse resolves like ct.* functions (cuda/tile/_stub.py, cuda-tile 1.7.0)
ENUM_MEMBERS = {
    "PaddingMode": ("UNDETERMINED", "ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF"),
    "RoundingMode": ("RN", "RZ", "RM", "RP", "RA", "FULL", "APPROX", "RZI"),
    "MemoryOrder": ("WEAK", "RELAXED", "ACQUIRE", "RELEASE", "ACQ_REL"),
    "MemoryScope": ("NONE", "BLOCK", "CLUSTER", "DEVICE", "SYS"),
}


def _public(qualname: str) -> str:
    """`cuda.tile._datatype.float16` (`from cuda.tile._datatype import float16`) is
    `cuda.tile.float16`, the dtype cuda.tile exports; other names as they are."""
    private = CUDA_TILE + "._datatype."
    if qualname.startswith(private):
        from ..model import DTYPES
        if qualname[len(private):] in DTYPES:
            return CUDA_TILE + "." + qualname[len(private):]
    return qualname


@dataclass(slots=True)  # slots: every field is declared here, none attached later
class ParsedModule:
    source: SourceFile
    module: cst.Module
    # local name -> qualified name, from imports ("ct" -> "cuda.tile", "load" -> "cuda.tile.load")
    imports: dict = field(default_factory=dict)
    # module-level `NAME = <expr>` assignments (aliases, constants), last one wins
    globals: dict = field(default_factory=dict)
    functions: dict = field(default_factory=dict)  # module-level FunctionDef by name
    # module-level enum classes (`class Op(enum.Enum): ADD = 1`): name -> {member: value node}
    enums: dict = field(default_factory=dict)
    enum_bases: dict = field(default_factory=dict)  # enum class name -> its base (`IntEnum`)
    # node made by a rewrite (control_flow) -> the user's node it stands for, for positions
    origins: dict = field(default_factory=dict)
    # records.py: the dataclass pass of the module (None without dataclasses) and the
    # functions whose rewrite failed, for kernels of host functions rewritten later
    records_pass: object = None
    _choice_candidates: Optional[tuple] = None     # host_kernels.choice_candidates, once computed
    records_bad: dict = field(default_factory=dict)
    # full names of the modules `import a.b.c` statements load ("cuda.tile", "cuda.bindings")
    imported_modules: set = field(default_factory=set)
    # a package converted as a unit (packages.py): helper name -> the ParsedModule it was linked
    # from, imported kernel's local name -> (module as written, kernel name), linked modules
    foreign: dict = field(default_factory=dict)
    foreign_kernels: dict = field(default_factory=dict)
    # --keep-unconverted: imported kernels their own module keeps as cuTile code (cuTile
    # launches them, launcher_links.py)
    kept_foreign: set = field(default_factory=set)
    # names pm.imports binds only for helpers linked from other modules (packages.py): the
    # module itself does not import them
    borrowed_imports: set = field(default_factory=set)
    linked: list = field(default_factory=list)
    # functions defined inside kernels and helpers (lower/nested_defs.py), hoisted to module
    # level: hoisted name -> (enclosing function, names it captures from there)
    hoisted: dict = field(default_factory=dict)
    # generator context managers that kernels enter with `with` (context_managers.py): inlined,
    # so their definitions leave the translated module
    context_managers: set = field(default_factory=set)
    # closure factories of the module that kernels call (closure_factories.py): inlined, so
    # never device code of their own; emit leaves a note in their place where they make tile
    # code (`def make(t): def f(x, i): ct.scatter(x, i, t)`)
    closure_factories: set = field(default_factory=set)
    # methods of dataclasses that kernels call (records.py): id(method def) -> (class name,
    # the device helpers translating it); the host module keeps the class without them
    device_methods: dict = field(default_factory=dict)

    _positions: Optional[dict] = None
    _names: Optional[Names] = None

    @property
    def names(self) -> Names:
        """Spellings of generated names that avoid every identifier of this module."""
        if self._names is None:
            self._names = Names(source_identifiers(self.source.text))
        return self._names

    @property
    def positions(self) -> dict:
        """Node positions, computed on first use: only diagnostics need them, and resolving
        them costs as much as the rest of a translation."""
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        return self._positions

    def def_line(self, name: str) -> int:
        """Line of `def name(` at module level (cheap, no metadata)."""
        for i, text in enumerate(self.source.lines, 1):
            if text.startswith(f"def {name}(") or text.startswith(f"async def {name}("):
                return i
        return 0

    def qualname(self, node: cst.BaseExpression) -> Optional[str]:
        """Dotted qualified name of a Name/Attribute chain, resolved through imports."""
        if isinstance(node, cst.Name):
            return self.imports.get(node.value)
        if isinstance(node, cst.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def ct_name(self, node: cst.BaseExpression) -> Optional[str]:
        """'load' for `ct.load` / `cuda.tile.load` / an imported `load`; None if not cuda.tile."""
        q = self.qualname(node)
        if q and q.startswith(CUDA_TILE + "."):
            return q[len(CUDA_TILE) + 1:]
        return None

    def decorator_role(self, dec: cst.Decorator) -> tuple[Optional[str], dict]:
        """('kernel' | 'function' | None, keyword options) for one decorator."""
        expr = dec.decorator
        options = {}
        if isinstance(expr, cst.Call):
            for arg in expr.args:
                if arg.keyword is not None:
                    options[arg.keyword.value] = arg.value
            expr = expr.func
        name = self.ct_name(expr)
        if name in ("kernel", "function"):
            return name, options
        return None, options

    def unalias(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """Follow module-level aliases like `ConstInt = ct.Constant[int]` (at most 10)."""
        depth = 0
        while isinstance(expr, cst.Name) and expr.value in self.globals and depth < 10 \
                and expr.value not in self.imports:
            expr = self.globals[expr.value]
            depth += 1
        return expr

    def uses_cuda_tile(self) -> bool:
        """True when the module imports cuda.tile. `import cuda.bindings` alone binds `cuda`
        too, but is not cuTile: a translated module that keeps such an import must not be
        translated again (convert --in-place would add its helpers a second time)."""
        return any(q == CUDA_TILE or q.startswith(CUDA_TILE + ".")
                   for q in self.imports.values()) or any(
            m == CUDA_TILE or m.startswith(CUDA_TILE + ".") for m in self.imported_modules)

    def locate(self, node: cst.CSTNode) -> tuple:
        """(path, line, col, end_col, source line) of a node, (path, 0, 0, None, None) when
        it has no position."""
        pos = self.positions.get(node)
        seen = 0
        while pos is None and node in self.origins and seen < 100:
            node, seen = self.origins[node], seen + 1
            pos = self.positions.get(node)
        if pos is None:          # a node of a helper linked from another module (packages.py)
            for other in self.linked:
                if other.positions.get(node) is not None:
                    return other.locate(node)
        line, col, end_col = 0, 0, None
        if pos is not None:
            line, col = pos.start.line, pos.start.column + 1
            if pos.end.line == pos.start.line:
                end_col = pos.end.column + 1
        return self.source.path, line, col, end_col, self.source.line_text(line)

    def diagnostic(self, node: cst.CSTNode, code: str, message: str,
                   help: str | None = None) -> Diagnostic:
        path, line, col, end_col, text = self.locate(node)
        return Diagnostic(code=code, message=message, path=path, line=line, col=col,
                          help=help, source_line=text, end_col=end_col)

    def error(self, node, code, message, help=None, notes=()) -> TranslationError:
        """`notes`: (node, message) of other locations involved, shown after the first."""
        d = self.diagnostic(node, code, message, help)
        for other, text in notes:
            path, line, col, end_col, source_line = self.locate(other)
            d.notes.append(Note(text, path, line, col, source_line, end_col))
        return TranslationError(d)


def dotted_name(node: cst.BaseExpression) -> str:
    """`cuda.tile` for the module name of `import cuda . tile` or `from cuda.\\\n tile import x`
    (Python allows whitespace around the dots; the text of the node keeps it)."""
    return _dotted(node)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    raise ValueError(node)


class _NFKCNames(cst.CSTTransformer):
    """Identifiers as Python reads them: NFKC-normalized (`ＵＳＥ_INT64` and `USE_INT64` are one
    name to Python, so they must be one to the translator too: its reserved-name checks and
    every lookup compare spellings)."""

    def leave_Name(self, original, updated):
        import unicodedata
        value = unicodedata.normalize("NFKC", updated.value)
        return updated if value == updated.value else updated.with_changes(value=value)


def _without_indent_formfeeds(text: str) -> str:
    """`text` with the form feeds of statement indentation dropped. Python's tokenizer resets
    the indentation column at a form feed, so `"\f    x"` is indented by four; libcst keeps
    the form feed inside the indentation string, and every line generated into that block
    would start `"\f    "`, and a block nested in it `"\f    \f    "` (indented by four,
    not eight). What follows the last form feed is the indentation Python sees, so keeping just
    that changes no statement's meaning. Form feeds elsewhere (in strings, between tokens) stay."""
    if "\f" not in text:
        return text
    import io
    import tokenize
    lines = text.split("\n")
    starts = []
    try:
        at_start = True
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                at_start = tok.type == tokenize.NEWLINE or at_start
                continue
            if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT,
                            tokenize.ENDMARKER):
                continue
            if at_start:
                starts.append(tok.start)
            at_start = False
    except (tokenize.TokenError, SyntaxError):
        return text  # not valid Python: the parser reports it
    for row, col in starts:
        if row > len(lines):  # (a token the tokenizer adds after the last line)
            continue
        line = lines[row - 1]
        indent = line[:col]
        if "\f" in indent:
            lines[row - 1] = indent.rsplit("\f", 1)[1] + line[col:]
    return "\n".join(lines)


# The largest file translated, in characters. Parsing takes about 300 bytes of memory and a
# third of a millisecond per character of source, so past this a file could exhaust memory or
# run for minutes (4 MB of host statements ended in SIGABRT under a 1 GB cap). cuTile's own
# largest source file (its stub module) is a quarter of it.
MAX_SOURCE_CHARS = 512 * 1024


def parse_source(text: str, path: str = "<input>") -> ParsedModule:
    source = SourceFile(path, text)
    if len(text) > MAX_SOURCE_CHARS:
        line = text.count("\n", 0, MAX_SOURCE_CHARS) + 1
        raise TranslationError(Diagnostic(
            "T2T002", f"file too large ({len(text):,} characters; tile2triton translates files "
            f"of up to {MAX_SOURCE_CHARS:,}, which this line passes)", path, line, 1,
            help="move the kernels into a module of their own",
            source_line=source.line_text(line)))
    deep = too_deep(text)
    if deep is not None:  # before libcst's parser, which can crash on deep nesting
        line, col, depth = deep
        raise TranslationError(Diagnostic(
            "T2T002", f"code nested too deeply (about {depth} levels here; tile2triton "
            f"translates up to {MAX_DEPTH})", path, line, col + 1,
            help="split the expression or the block into named steps or helper functions",
            source_line=source.line_text(line)))
    try:
        module = cst.parse_module(_without_indent_formfeeds(text))
    except cst.ParserSyntaxError as e:
        line = getattr(e, "raw_line", 0)
        col = getattr(e, "raw_column", 0) + 1
        raise TranslationError(Diagnostic(
            "T2T001", f"syntax error: {e.message}", path, line, col,
            help="fix the Python syntax; tile2triton only reads valid Python",
            source_line=source.line_text(line))) from None
    if not text.isascii():
        module = module.visit(_NFKCNames())
    pm = ParsedModule(source, module)
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        full = _dotted(alias.name)
                        if alias.asname is not None:
                            pm.imports[alias.asname.name.value] = full
                        else:
                            top = full.split(".")[0]
                            pm.imports[top] = top
                        pm.imported_modules.add(full)
                elif isinstance(small, cst.ImportFrom) and small.module is not None \
                        and not small.relative:
                    mod = _dotted(small.module)
                    if isinstance(small.names, cst.ImportStar):
                        continue
                    for alias in small.names:
                        name = alias.name.value
                        local = alias.asname.name.value if alias.asname else name
                        pm.imports[local] = _public(f"{mod}.{name}")
                elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = ([t.target for t in small.targets] if isinstance(small, cst.Assign)
                               else [small.target])
                    if small.value is None:
                        continue
                    for t in targets:
                        if isinstance(t, cst.Name):
                            pm.globals[t.value] = small.value
        elif isinstance(stmt, cst.FunctionDef):
            pm.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            members = _enum_members(stmt)
            if members is not None:
                pm.enums[stmt.name.value] = members
                pm.enum_bases[stmt.name.value] = next(
                    b for b in map(_base_name, stmt.bases) if b in _ENUM_BASES)
    return pm


_ENUM_BASES = ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")


def _base_name(arg: cst.Arg) -> Optional[str]:
    v = arg.value
    if arg.keyword is not None:
        return None
    return v.attr.value if isinstance(v, cst.Attribute) else \
        v.value if isinstance(v, cst.Name) else None


def _enum_members(cls: cst.ClassDef) -> Optional[dict]:
    """{member: value node} of a class deriving from an enum base (`enum.Enum`, `IntEnum`),
    None for other classes. Methods and nested definitions are not members."""
    if not any(_base_name(a) in _ENUM_BASES for a in cls.bases):
        return None
    members: dict = {}
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else cls.body.body
    for stmt in body:
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) \
                else (stmt,) if isinstance(stmt, cst.BaseSmallStatement) else ():
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name):
                name = small.targets[0].target.value
                if not name.startswith("_"):
                    members[name] = small.value
    return members
