"""Idioms of cuTile's own test suite (conformance, issue 11): each is translated, run on the
reference interpreter and on the translation with identical random inputs of ragged shapes, and
compared with a float64 reference where one exists."""
import importlib.util
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport math\nimport numpy as np\nimport torch\n"


def translate(src: str) -> str:
    res = translate_source(HEADER + textwrap.dedent(src), "<upstream-idioms>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    return res.output


def run_both(tmp_path, src, kernel, grid, args, name="mod"):
    """Launch `kernel` on the interpreter and on the translation with copies of `args`;
    returns (interpreter args, translation args) after the launches."""
    orig_path = tmp_path / f"{name}_cutile.py"
    orig_path.write_text(HEADER + textwrap.dedent(src))
    orig = interp.load_module_with_interpreter(str(orig_path))
    path = tmp_path / f"{name}_triton.py"
    path.write_text(translate(src))
    spec = importlib.util.spec_from_file_location(f"t2t_upstream_{name}", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# ------------------------------------------------ numpy / torch constants (attention's -np.inf)
MASKED_MAX_SRC = """
@ct.kernel
def masked_row_max(x, out, n_cols: int, TM: ct.Constant[int], TN: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.arange(TN, dtype=np.int32)[None, :]
    fill = ct.where(cols < n_cols, 0.0, -np.inf)      # a row mask, as attention builds it
    m = ct.max(t * torch.pi + fill, axis=-1, keepdims=True) - np.pi + torch.e - np.e
    ct.store(out, index=(b, 0), tile=m)
"""


def test_numpy_and_torch_constants_fold():
    body = translate(MASKED_MAX_SRC).split("def masked_row_max(")[1]
    assert "np." not in body and "torch." not in body
    assert 'float("-inf")' in body


@pytest.mark.parametrize("rows,cols", [(37, 21), (5, 30)])
def test_numpy_and_torch_constants_run(tmp_path, rows, cols):
    x = torch.randn(rows, cols, generator=gen(rows))
    out = torch.full((rows, 1), float("nan"))
    a1, a2 = run_both(tmp_path, MASKED_MAX_SRC, "masked_row_max", (-(-rows // 8),),
                      [x, out, cols, 8, 32])
    import math
    ref = (x.double() * math.pi).amax(dim=1, keepdim=True) - math.pi
    torch.testing.assert_close(a1[1].double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a2[1], a1[1], atol=1e-5, rtol=1e-5)
