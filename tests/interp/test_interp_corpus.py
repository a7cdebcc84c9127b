"""Every corpus case, run on the cuTile interpreter, against its float64 reference.

For each corpus/<name>/ (kernel.py or a package, + case.py) and each configuration whose "cpu" is not False:
load kernel.py through the interpreter, build args on the CPU, poison the outputs with NaN,
call ``launch(None, **args)`` and compare every output with ``reference(args)`` in float64
with the tolerances of docs/corpus-format.md.
"""

import importlib.util
import pathlib

import pytest

from tile2triton.verify.case_layout import is_case
from tile2triton.verify.corpus import CorpusCase, compare, run_case_config

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"

# seed 1 only: seed 0 of every configuration runs on this interpreter again in
# tests/check/test_check_corpus.py (as the original the translation is compared with)
SEEDS = (1,)


def _load_case(case_dir):
    spec = importlib.util.spec_from_file_location(f"_t2t_case_{case_dir.name}",
                                                  case_dir / "case.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _params():
    out = []
    if not CORPUS.is_dir():
        return out
    for d in sorted(CORPUS.iterdir()):
        if not is_case(d):
            continue
        try:
            case_mod = _load_case(d)
        except Exception as e:  # a broken case.py is reported as a failing test
            out.append(pytest.param(d, None, None, id=f"{d.name}-load-error",
                                    marks=pytest.mark.xfail(reason=str(e), strict=False)))
            continue
        for i, case in enumerate(case_mod.CASES):
            if case.get("cpu", True) is False:
                continue
            dt = case.get("dtype")
            tag = str(dt).replace("torch.", "") if dt is not None else ""
            out.append(pytest.param(d, i, case_mod, id=f"{d.name}-{i}-{tag}"))
    return out


_MODULES = {}


def _kernel_module(case_dir):
    if case_dir not in _MODULES:
        # kernel.py, or a package case's package (docs/corpus-format.md)
        _MODULES[case_dir] = CorpusCase(case_dir.name, case_dir).load_original(
            f"_t2t_interp_corpus_{case_dir.name}", interpreter=True)
    return _MODULES[case_dir]


@pytest.mark.parametrize("case_dir,index,case_mod", _params())
def test_corpus_case_on_interpreter(case_dir, index, case_mod):
    if case_mod is None:
        pytest.fail("case.py could not be imported")
    kmod = _kernel_module(case_dir)
    case = case_mod.CASES[index]
    for seed in SEEDS:
        # the same poisoning, reference and tolerances as the translation's tests (torch only)
        results = run_case_config(kmod, case_mod, case, seed, "cpu")
        for name, (got, exp, tol) in results.items():
            m = compare(got, exp, **tol)
            assert m["ok"], f"{case_dir.name} case {index} seed {seed} output {name!r}: {m}"
