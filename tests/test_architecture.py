"""The engine's shape: no import cycles (the reference interpreter, interp/, included), the
stages import only earlier stages, few top-level files, patterns talk to the engine only through
the contract (`pattern_api`, `model`), and helper results reach their callers one way."""
import ast
from pathlib import Path

from tile2triton import translate_source

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "tile2triton"
PATTERNS = ROOT / "patterns"


def _modules() -> dict:
    """Module name -> file, for the whole package (interp/ included) and the patterns."""
    mods = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        parts = ["tile2triton", *rel.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    for path in sorted(PATTERNS.glob("*.py")):
        name = "tile2triton.patterns" + ("" if path.stem == "__init__" else f".{path.stem}")
        mods[name] = path
    return mods


def _imports(name: str, path: Path, known: set) -> set:
    """Modules of the package `name` imports anywhere in its file (late imports included)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" for a in node.names] + [mod]
        for t in targets:
            if t in known and t != name:
                out.add(t)
                break  # `from .x import y`: y is a module only when x.y is one
    return out


def _graph() -> dict:
    mods = _modules()
    return {name: _imports(name, path, set(mods)) for name, path in mods.items()}


def _cycles(graph: dict) -> list:
    """The import cycles of `graph` (module -> modules it imports), each as a path."""
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycles():
    graph = _graph()
    assert "tile2triton.lower" in graph and "tile2triton.patterns.load_store" in graph
    assert "tile2triton.interp._tile" in graph and "tile2triton.interp._dtypes" in graph
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle(tmp_path):
    # interp/ as it was: _dtypes imported _tile inside DType.__call__, and _tile imported _dtypes
    (tmp_path / "_dtypes.py").write_text("def call():\n    from ._tile import astype\n")
    (tmp_path / "_tile.py").write_text("from . import _dtypes as D\n")
    names = {"tile2triton.interp._dtypes", "tile2triton.interp._tile"}
    graph = {n: _imports(n, tmp_path / f"{n.rpartition('.')[2]}.py", names) for n in names}
    assert graph == {"tile2triton.interp._dtypes": {"tile2triton.interp._tile"},
                     "tile2triton.interp._tile": {"tile2triton.interp._dtypes"}}
    (cycle,) = _cycles(graph)
    assert cycle[0] == cycle[-1] and set(cycle) == names


def test_the_cycle_check_sees_late_imports(tmp_path):
    # the checker must not be blind to imports inside functions (the old lower <-> translate
    # cycle was one)
    f = tmp_path / "m.py"
    f.write_text("def g():\n    from .emit import x\n")
    assert _imports("tile2triton.m", f, {"tile2triton.emit"}) == {"tile2triton.emit"}


# The translator's stages in the order data flows through them (docs/design.md): a module may
# import its own stage and earlier ones, never a later one. The vocabulary every stage shares
# comes first; the fronts (commands, the checker, the runtime) come last and may use anything.
STAGES = (
    ("shared", ("tile2triton.diagnostics", "tile2triton.version", "tile2triton.model",
                "tile2triton.pattern_api", "tile2triton.registry")),
    ("interp", ("tile2triton.interp",)),    # shares no code with the translator
    ("parse", ("tile2triton.parse",)),
    ("rewrite", ("tile2triton.rewrite",)),
    ("recognize", ("tile2triton.recognize",)),
    ("lower", ("tile2triton.lower", "tile2triton.patterns")),
    ("emit", ("tile2triton.emit",)),
    ("translate", ("tile2triton.translate", "tile2triton.live")),
    ("fronts", ("tile2triton.cli", "tile2triton.verify", "tile2triton.runtime",
                "tile2triton.cutile", "tile2triton.portability", "tile2triton.__main__",
                "tile2triton")),
)


def _stage(module: str) -> int:
    best, rank = "", None
    for i, (_, prefixes) in enumerate(STAGES):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best):
                best, rank = p, i
    assert rank is not None, f"{module} is on no stage: add it to STAGES"
    return rank


def test_stages_import_only_earlier_stages():
    wrong = []
    for name, deps in _graph().items():
        for d in deps:
            if _stage(d) > _stage(name):
                wrong.append(f"{name} ({STAGES[_stage(name)][0]}) imports {d} "
                             f"({STAGES[_stage(d)][0]})")
    assert not wrong, "imports from an earlier stage to a later one:\n" + "\n".join(sorted(wrong))


def test_the_stage_check_sees_a_backward_import():
    assert _stage("tile2triton.parse.source") < _stage("tile2triton.recognize") \
        < _stage("tile2triton.emit.module")
    assert _stage("tile2triton") == _stage("tile2triton.cli.convert") == len(STAGES) - 1


def test_rewrites_run_from_the_pass_lists_with_one_signature():
    import inspect

    from tile2triton import rewrite
    lists = (rewrite.MODULE_PASSES, rewrite.KERNEL_PASSES, rewrite.BODY_PASSES)
    assert all(lists) and len({p for passes in lists for p in passes}) == sum(map(len, lists))
    for passes in lists:
        for p in passes:
            assert list(inspect.signature(p).parameters) == ["unit"], p
            assert p.__module__.startswith("tile2triton.rewrite."), p
    # the stages run the passes through the lists only: nothing outside rewrite/ imports a
    # pass, or what a pass calls, from its module
    entry_points = {"rewrite_records", "rewrite_nested_kernel", "find_nested_kernels",
                    "split_tuple_params", "indent_suites", "ExitRewriter", "ContextInliner",
                    "ClosureInliner"} | {p.__name__ for passes in lists for p in passes}
    wrong = []
    for name, path in _modules().items():
        if name.startswith("tile2triton.rewrite"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and "rewrite." in "." * node.level + (
                    node.module or "") + "." and {a.name for a in node.names} & entry_points:
                wrong.append(f"{name}: from {node.module} import "
                             + ", ".join(a.name for a in node.names))
    assert not wrong, "\n".join(wrong)


def test_the_translator_imports_no_private_names_across_modules():
    # a name with a leading underscore belongs to its module: what another module needs is
    # public (the CST walker is parse/cst_tools.py's, for every stage)
    translator = {"shared", "parse", "rewrite", "recognize", "lower", "emit", "translate"}
    wrong = []
    for name, path in _modules().items():
        if STAGES[_stage(name)][0] not in translator:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                private = [a.name for a in node.names
                           if a.name.startswith("_") and not a.name.startswith("__")]
                if private:
                    wrong.append(f"{name}: from {'.' * node.level}{node.module or ''} import "
                                 + ", ".join(private))
    assert not wrong, "\n".join(wrong)


MAX_TOP_LEVEL = 20


def test_few_top_level_files():
    # every file lives in the folder of the stage it serves; the top level keeps the entry
    # points and the vocabulary the stages share
    top = sorted(p.name for p in SRC.iterdir()
                 if (p / "__init__.py").is_file() or p.suffix == ".py")
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} top-level files and folders: {top}"


# Arrows between the package's rooms (a top-level file, or a top-level folder counted as one;
# patterns/ is held to the contract above), as docs/design.md counts them with farm-studio:
# the issue-25 bound. A new arrow means a stage reaches further than before: say why, or cut one.
MAX_ROOM_ARROWS = 65


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_few_arrows_between_rooms():
    rooms = {m: _room(m) for m in _graph()}
    arrows = {(rooms[m], rooms[d]) for m, deps in _graph().items() for d in deps
              if "patterns" not in (rooms[m], rooms[d]) and rooms[m] != rooms[d]}
    assert len(arrows) <= MAX_ROOM_ARROWS, (
        f"{len(arrows)} arrows between rooms (bound {MAX_ROOM_ARROWS}):\n"
        + "\n".join(f"{a} -> {b}" for a, b in sorted(arrows)))


def test_patterns_import_only_the_contract():
    allowed = {"tile2triton.pattern_api", "tile2triton.model"}
    for name, deps in _graph().items():
        if name.startswith("tile2triton.patterns"):
            engine = {d for d in deps if not d.startswith("tile2triton.patterns")}
            assert engine <= allowed, f"{name} imports {sorted(engine - allowed)}"


def test_patterns_use_libcst_as_the_syntax_of_the_contract_and_nothing_else():
    # the syntax patterns read (call.syntax, call.node_of) is libcst's: a pattern may import
    # libcst, and no other package outside the standard library
    import sys
    seen = set()
    for path in sorted(PATTERNS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level else []
            for m in mods:
                top = m.split(".")[0]
                if top in ("tile2triton", "__future__") or top in sys.stdlib_module_names:
                    continue
                seen.add(top)
                assert top == "libcst", f"{path.name} imports {m}"
    assert seen == {"libcst"}     # (debug.py's format strings, scans.py's lambdas, ...)
    # ... because the contract hands them libcst nodes
    import inspect

    from tile2triton.pattern_api import BoundCall
    assert str(inspect.signature(BoundCall.node_of).return_annotation) == "cst.CSTNode"


# -- unit sizes -------------------------------------------------------------------------------
# No function longer than MAX_FUNCTION_LINES and no class longer than MAX_CLASS_LINES (from its
# `def`/`class` line to its last line, docstring and comments included) anywhere in the
# package. A unit that is longer on purpose says why in its docstring, in a
# sentence that starts with LONG_BECAUSE ("Long because the 30 cases share ..."): the split it
# would take is then a choice the reader can judge, not an accident.
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 400
LONG_BECAUSE = "Long because"
# the whole package: the translator's stages, the checker, the fronts (cli/, runtime/) and
# interp/
SIZED = ["diagnostics.py", "model.py", "pattern_api.py", "registry.py", "parse", "rewrite",
         "recognize.py", "lower", "emit", "translate.py", "live.py", "verify", "cli",
         "runtime", "interp", "portability.py", "cutile.py"]


def _sized_files() -> list:
    files = []
    for entry in SIZED:
        path = SRC / entry
        assert path.exists(), f"{path} is gone: update SIZED"
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files


def _oversized(path: Path) -> list:
    """(qualified name, kind, lines) of the units of `path` over the limits that do not say
    why in their docstring."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                lines = child.end_lineno - child.lineno + 1
                is_class = isinstance(child, ast.ClassDef)
                limit = MAX_CLASS_LINES if is_class else MAX_FUNCTION_LINES
                doc = ast.get_docstring(child) or ""
                if lines > limit and not _states_why(doc):
                    out.append((name, "class" if is_class else "function", lines))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text()), "")
    return out


def _states_why(doc: str) -> bool:
    """The docstring has a LONG_BECAUSE sentence with a reason in it (a few words at least)."""
    at = doc.find(LONG_BECAUSE)
    return at >= 0 and len(doc[at + len(LONG_BECAUSE):].split(".")[0].split()) >= 4


# Units over the limits that are not split yet (issue #25), each `file:qualified name`. The
# test fails when one of them is split (or says why), so that the list only shrinks.
NOT_YET_SPLIT: set = set()


def test_the_size_check_covers_the_whole_package():
    unsized = {p.name for p in SRC.iterdir() if p.name != "__pycache__"} - set(SIZED) - {
        "__init__.py", "__main__.py", "version.py"}
    assert not unsized, f"add to SIZED: {sorted(unsized)}"


def test_units_stay_small():
    found = {}
    for path in _sized_files():
        for name, kind, lines in _oversized(path):
            found[f"{path.relative_to(SRC)}:{name}"] = (kind, lines)
    new = {k: v for k, v in found.items() if k not in NOT_YET_SPLIT}
    assert not new, (
        f"over {MAX_FUNCTION_LINES} lines (functions) or {MAX_CLASS_LINES} lines (classes), "
        f"and the docstring does not say why (\"{LONG_BECAUSE} ...\"): split them by theme, "
        "or say why a split would hurt:\n" + "\n".join(
            f"  {k}: {kind} of {lines} lines" for k, (kind, lines) in sorted(new.items())))
    done = NOT_YET_SPLIT - set(found)
    assert not done, f"no longer over the limits, take them off NOT_YET_SPLIT: {sorted(done)}"


def test_the_size_check_finds_a_long_unit_and_reads_the_reason(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    f = tmp_path / "m.py"
    f.write_text(f"def long():\n{body}\n\ndef short():\n    pass\n")
    assert _oversized(f) == [("long", "function", MAX_FUNCTION_LINES + 1)]
    f.write_text(f"class C:\n    def long(self):\n{body.replace('    ', '        ')}")
    assert _oversized(f) == [("C.long", "function", MAX_FUNCTION_LINES + 1)]
    f.write_text(f'def long():\n    """{LONG_BECAUSE}."""\n{body}')
    assert _oversized(f) == [("long", "function", MAX_FUNCTION_LINES + 2)]   # no reason given
    f.write_text(f'def long():\n    """Does x.\n\n    {LONG_BECAUSE} each case reads the '
                 f'one before it."""\n{body}')
    assert _oversized(f) == []
    f.write_text("class Big:\n" + "".join(f"    a{i} = {i}\n" for i in range(MAX_CLASS_LINES)))
    assert _oversized(f) == [("Big", "class", MAX_CLASS_LINES + 1)]


HEADER = "import cuda.tile as ct\n"


def test_failed_helper_is_not_reported_as_recursive_in_the_next_kernel():
    src = HEADER + '''
def helper(t):
    return ct.no_such_construct(t)


@ct.kernel
def k1(x, T: ct.Constant[int]):
    ct.store(x, (0,), helper(ct.load(x, (0,), (T,))))


@ct.kernel
def k2(x, T: ct.Constant[int]):
    ct.store(x, (0,), helper(ct.load(x, (0,), (T,))))
'''
    result = translate_source(src, "m.py")
    assert [k.status for k in result.kernels] == ["failed", "failed"]
    for k in result.kernels:
        (d,) = k.diagnostics
        assert d.code == "T2T100" and "no_such_construct" in d.message, d.format()
        assert d.line == 4, d.format()


def _jit_line(output: str, fn: str) -> str:
    lines = output.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith(f"def {fn}("))
    return lines[i - 1]


def test_asserting_scan_combiner_turns_on_debug_like_a_direct_call():
    combiner = '''
def checked_add(a, b):
    ct.assert_(a + b >= 0, "negative partial sum")
    return a + b

'''
    via_scan = HEADER + combiner + '''
@ct.kernel
def k(x, T: ct.Constant[int]):
    a = ct.load(x, (0,), (T,))
    ct.store(x, (0,), ct.scan(a, 0, checked_add, 0))
'''
    direct = HEADER + combiner + '''
@ct.kernel
def k(x, T: ct.Constant[int]):
    a = ct.load(x, (0,), (T,))
    ct.store(x, (0,), checked_add(a, a))
'''
    for src in (via_scan, direct):
        out = translate_source(src, "m.py").output
        assert out is not None
        assert _jit_line(out, "k") == "@triton.jit(debug=True)", out
        assert _jit_line(out, "checked_add") == "@triton.jit(debug=True)", out


def test_engine_state_takes_only_declared_fields():
    # fields are declared on the dataclasses (slots), never attached later: an attribute set
    # anywhere else is an AttributeError, not a silent extra field another module must know of
    import dataclasses

    import pytest

    from tile2triton.lower.unit import UnitResult
    from tile2triton.model import FunctionInfo, Lowered, ParamInfo, TileV
    from tile2triton.parse.source import parse_source

    pm = parse_source(HEADER, "m.py")
    fn = FunctionInfo("k", None, "kernel")
    objects = [pm, fn, UnitResult("k", "", []), Lowered("x", TileV()), ParamInfo("x", "array")]
    for obj in objects:
        assert dataclasses.is_dataclass(obj) and not hasattr(obj, "__dict__"), type(obj)
        with pytest.raises(AttributeError):
            obj.attached_later = True
    assert pm.foreign == {} and pm.linked == [] and fn.nested is None  # declared, with defaults
