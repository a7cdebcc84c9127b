"""Every corpus kernel: its translation equals the committed golden file, and the translation
run under TRITON_INTERPRET on random, non-tile-multiple inputs matches the float64 reference.

The goldens are the shared-runtime form (docs/corpus-format.md): each expected.py holds the
case's kernels, device functions and launchers and imports its helpers from
corpus/_t2t_corpus_runtime.py, rendered once from what every case needs; both are compared.
T2T_REGEN=1 rewrites the golden files (and the runtime) from the current translator.
"""
import ast
import functools
import os
import sys
from pathlib import Path

import pytest

from tile2triton import translate_source
from tile2triton.verify.corpus import RUNTIME, compare, config_id, discover, \
    golden_translation, load_module, render_runtime, run_case_config, use_runtime

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
CASES = discover(CORPUS)
RUNTIME_PATH = CORPUS / f"{RUNTIME}.py"
# One random draw per configuration here (seed 1): tests/check/test_check_corpus.py runs seed 0
# of every configuration of every case again, the translation against the original on the
# cuTile interpreter (docs/robustness.md, "CI time").
SEEDS = (1,)


_GOLDEN: dict = {}


def _golden(case):
    if case.name not in _GOLDEN:
        result = golden_translation(case.kernel_path)
        assert result.ok, "\n\n".join(d.format() for d in result.diagnostics())
        _GOLDEN[case.name] = result
    return _GOLDEN[case.name]


def translate_case(case):
    """The golden form of the case's translation (imports the corpus runtime)."""
    return _golden(case).output


@functools.lru_cache(maxsize=None)
def runtime_text():
    return render_runtime(_golden(c) for c in CASES)


def _write(path: Path, text: str) -> None:
    # atomically: test workers regenerating at once write the same text
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case):
    out = translate_case(case)
    if os.environ.get("T2T_REGEN"):
        _write(case.expected_path, out)
        # the runtime too, so that `T2T_REGEN=1 pytest -k NAME` leaves a consistent corpus
        if not RUNTIME_PATH.exists() or RUNTIME_PATH.read_text() != runtime_text():
            _write(RUNTIME_PATH, runtime_text())
    assert case.expected_path.exists(), f"missing {case.expected_path}; run with T2T_REGEN=1"
    assert out == case.expected_path.read_text(), (
        f"translation of {case.name} differs from expected.py; if the change is intended, "
        "regenerate with T2T_REGEN=1 and review the diff")


def test_golden_runtime():
    """The helpers of every golden, pinned once."""
    if os.environ.get("T2T_REGEN"):
        _write(RUNTIME_PATH, runtime_text())
    assert RUNTIME_PATH.exists(), f"missing {RUNTIME_PATH}; run with T2T_REGEN=1"
    assert runtime_text() == RUNTIME_PATH.read_text(), (
        f"{RUNTIME_PATH.name} differs from the helpers the corpus translations need; if the "
        "change is intended, regenerate with T2T_REGEN=1 and review the diff")


def _top_level(text: str) -> set:
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _runtime_imports(text: str) -> set:
    return {a.asname or a.name for node in ast.parse(text).body
            if isinstance(node, ast.ImportFrom) and node.module == RUNTIME for a in node.names}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_standalone_translation_is_complete(case):
    """What `convert` prints by default: a module that defines every helper the golden imports
    from the runtime, and imports nothing from it."""
    result = translate_source(case.kernel_path.read_text(), str(case.kernel_path))
    assert result.ok and not result.runtime
    text = result.output
    compile(text, str(case.kernel_path), "exec")
    assert RUNTIME not in text
    imported = _runtime_imports(translate_case(case))
    assert imported, "the golden imports no helper from the runtime"
    assert imported <= _top_level(text), sorted(imported - _top_level(text))


def test_standalone_translation_runs(tmp_path, monkeypatch):
    """A standalone translation runs with no corpus runtime anywhere on sys.path."""
    case = next(c for c in CASES if c.name == "softmax_rows")
    result = translate_source(case.kernel_path.read_text(), str(case.kernel_path))
    path = tmp_path / "standalone_softmax.py"
    path.write_text(result.output)
    monkeypatch.setattr("sys.path", [p for p in sys.path
                                     if Path(p).resolve() != CORPUS.resolve()])
    monkeypatch.delitem(sys.modules, RUNTIME, raising=False)
    module = load_module(path, "t2t_standalone_softmax")
    spec = case.spec()
    for name, (actual, expected, tol) in run_case_config(module, spec, spec.CASES[0], 1,
                                                         "cpu").items():
        m = compare(actual, expected, **tol)
        assert m["ok"], f"standalone softmax_rows output {name!r}: {m}"


def test_goldens_are_stable_under_ruff_format():
    """The translations read like hand-written, formatted Triton: `ruff format --line-length
    100` leaves every golden unchanged (the corpus kernels are ruff-formatted too, so any
    difference comes from the generated code; emit's layout.py lays it out)."""
    import subprocess
    import sys
    pytest.importorskip("ruff")  # the `test` extra has it (tests/test_packaging.py)
    files = [str(c.expected_path) for c in CASES] + [str(c.kernel_path) for c in CASES] + [
        str(RUNTIME_PATH)]
    p = subprocess.run([sys.executable, "-m", "ruff", "format", "--no-cache", "--check",
                        "--diff", "--line-length", "100", *files],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]


def _configs():
    for case in CASES:
        spec = case.spec()
        for i, config in enumerate(spec.CASES):
            marks = [pytest.mark.skip("not run on CPU (bf16 or too large)")] \
                if config.get("cpu", True) is False else []
            yield pytest.param(case, i, id=f"{case.name}[{config_id(config)}]", marks=marks)


@pytest.mark.parametrize("case,index", list(_configs()))
def test_translation_matches_reference(case, index, tmp_path):
    spec = case.spec()
    config = spec.CASES[index]
    translated = tmp_path / f"{case.name}_triton.py"
    translated.write_text(translate_case(case))
    use_runtime(CORPUS)  # the golden form imports the corpus runtime
    module = load_module(translated, f"t2t_translated_{case.name}_{index}")
    for seed in SEEDS:
        results = run_case_config(module, spec, config, seed, "cpu")
        for name, (actual, expected, tol) in results.items():
            m = compare(actual, expected, **tol)
            assert m["ok"], f"{case.name} output {name!r} seed {seed}: {m}"
