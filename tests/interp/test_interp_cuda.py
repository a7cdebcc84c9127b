"""The interpreter on CUDA tensors (skipped without a GPU): every corpus case on the device."""

import pytest
import torch

from test_interp_corpus import _params, _kernel_module
from tile2triton.verify.corpus import compare, run_case_config

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.mark.parametrize("case_dir,index,case_mod", _params())
def test_corpus_case_on_interpreter_with_cuda_tensors(case_dir, index, case_mod):
    if case_mod is None:
        pytest.skip("case.py could not be imported")
    kmod = _kernel_module(case_dir)
    results = run_case_config(kmod, case_mod, case_mod.CASES[index], 0, "cuda")
    for name, (got, exp, tol) in results.items():
        assert got.is_cuda
        m = compare(got, exp, **tol)
        assert m["ok"], f"{case_dir.name} case {index} output {name!r}: {m}"
