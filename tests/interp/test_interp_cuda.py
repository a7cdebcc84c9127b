"""The interpreter on CUDA tensors (skipped without a GPU): every corpus case on the device."""

import pytest
import torch

from test_interp_corpus import _params, _kernel_module, _poison, _tolerance

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.mark.parametrize("case_dir,index,case_mod", _params())
def test_corpus_case_on_interpreter_with_cuda_tensors(case_dir, index, case_mod):
    if case_mod is None:
        pytest.skip("case.py could not be imported")
    kmod = _kernel_module(case_dir)
    case = case_mod.CASES[index]
    args = case_mod.make_args(case, torch.Generator().manual_seed(0), "cuda")
    for name in case_mod.OUTPUTS:
        _poison(args[name])
    kmod.launch(None, **args)
    ref = case_mod.reference(args)
    for name in case_mod.OUTPUTS:
        got = args[name]
        assert got.is_cuda
        torch.testing.assert_close(got.double(), torch.as_tensor(ref[name]).double().to(got.device),
                                   **_tolerance(case_mod, got.dtype))
