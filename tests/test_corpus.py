"""Every corpus kernel: its translation equals the committed golden file, and the translation
run under TRITON_INTERPRET on random, non-tile-multiple inputs matches the float64 reference.

T2T_REGEN=1 rewrites the golden files from the current translator.
"""
import os
from pathlib import Path

import pytest

from tile2triton import translate_source
from tile2triton.verify.corpus import compare, config_id, discover, load_module, \
    run_case_config

ROOT = Path(__file__).resolve().parents[1]
CASES = discover(ROOT / "corpus")
# One random draw per configuration here (seed 1): tests/check/test_check_corpus.py runs seed 0
# of every configuration of every case again, the translation against the original on the
# cuTile interpreter (docs/robustness.md, "CI time").
SEEDS = (1,)


def translate_case(case):
    result = translate_source(case.kernel_path.read_text(), str(case.kernel_path))
    assert result.ok, "\n\n".join(d.format() for d in result.diagnostics())
    return result.output


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case):
    out = translate_case(case)
    if os.environ.get("T2T_REGEN"):
        case.expected_path.write_text(out)
    assert case.expected_path.exists(), f"missing {case.expected_path}; run with T2T_REGEN=1"
    assert out == case.expected_path.read_text(), (
        f"translation of {case.name} differs from expected.py; if the change is intended, "
        "regenerate with T2T_REGEN=1 and review the diff")


def test_goldens_are_stable_under_ruff_format():
    """The translations read like hand-written, formatted Triton: `ruff format --line-length
    100` leaves every golden unchanged (the corpus kernels are ruff-formatted too, so any
    difference comes from the generated code; emit's layout.py lays it out)."""
    import subprocess
    import sys
    pytest.importorskip("ruff")  # the `test` extra has it (tests/test_packaging.py)
    files = [str(c.expected_path) for c in CASES] + [str(c.kernel_path) for c in CASES]
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
    module = load_module(translated, f"t2t_translated_{case.name}_{index}")
    for seed in SEEDS:
        results = run_case_config(module, spec, config, seed, "cpu")
        for name, (actual, expected, tol) in results.items():
            m = compare(actual, expected, **tol)
            assert m["ok"], f"{case.name} output {name!r} seed {seed}: {m}"
