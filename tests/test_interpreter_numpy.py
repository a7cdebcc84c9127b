"""The checker's interpreter runs work under every numpy the `[run]` extra allows: Triton 3.6's
interpreter turns a scalar into an int with int() of a one-element array, which numpy 2.3 and
later refuse (1.25 to 2.2 warn). verify/interpreter_compat.py makes that conversion go through
.item(); here numpy's warning is made an error, which is what numpy 2.3 does."""
import warnings

import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module
from tile2triton.verify.interpreter_compat import enable

SRC = '''import cuda.tile as ct


@ct.kernel
def col_sums(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    acc = ct.zeros((1, TN), dtype=ct.float32)
    for i in range(ct.num_tiles(x, axis=0, shape=(TM, TN))):
        acc += ct.sum(ct.load(x, (i, ct.bid(0)), (TM, TN), padding_mode=ct.PaddingMode.ZERO),
                      axis=0, keepdims=True)
    ct.store(out, (0, ct.bid(0)), acc)
'''


def test_range_over_a_scalar_argument_runs_when_numpy_refuses_int_of_an_array(tmp_path):
    path = tmp_path / "col_sums_triton.py"
    res = translate_source(SRC, "col_sums.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "for i in range(tl.cdiv(" in res.output
    path.write_text(res.output)
    mod = load_module(path, "col_sums_triton")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(70, 37, generator=g)
    out = torch.full((1, 37), float("nan"))
    assert enable()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)   # numpy >= 2.3 raises here
        mod.launch_col_sums(None, (3,), x, out, 16, 16)
    assert torch.allclose(out.double(), x.double().sum(0, keepdim=True), rtol=1e-5, atol=1e-5)
