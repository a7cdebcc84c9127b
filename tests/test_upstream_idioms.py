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


# ------------------------------------------------------------- ct.static_iter and tuple(...)
STATIC_ITER_SRC = """
@ct.kernel
def mix_rows(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    rows = tuple(ct.load(x, (k, b), (1, T), padding_mode=ct.PaddingMode.ZERO)
                 for k in ct.static_iter(range(3)))
    pairs = tuple((rows[k], rows[(k + 1) % 3]) for k in ct.static_iter(range(3)) if k != 1)
    for k, (u, v) in ct.static_iter(enumerate(pairs)):
        ct.store(y, (k, b), u * (k + 2) - v)
    for w, r in ct.static_iter(zip((0.5, -1.5), tuple(rows))):
        acc = r * w
        ct.store(y, (2, b), acc + rows[2])
"""


def test_static_iter_unrolls():
    body = translate(STATIC_ITER_SRC).split("def mix_rows(")[1]
    assert "static_iter" not in body.replace("# ct.static_iter", "")
    kernel_body = body.split("USE_INT64: tl.constexpr")[1].split("\ndef launch_")[0]
    # (the one loop left is the launcher's block coarsening, coarsen.py)
    kernel_body = kernel_body.replace("for _blk in tl.static_range(BLOCKS_PER_PROGRAM):", "")
    assert "for " not in kernel_body.replace("# ct.static_iter", "")


@pytest.mark.parametrize("cols", [50, 7])
def test_static_iter_runs(tmp_path, cols):
    x = torch.randn(3, cols, generator=gen(cols))
    y = torch.full((3, cols), float("nan"))
    a1, a2 = run_both(tmp_path, STATIC_ITER_SRC, "mix_rows", (-(-cols // 16),),
                      [x, y, 16], name=f"si{cols}")
    xd = x.double()
    ref = torch.stack([xd[0] * 2 - xd[1], xd[2] * 3 - xd[0], xd[1] * -1.5 + xd[2]])
    torch.testing.assert_close(a1[1].double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a2[1], a1[1], atol=1e-6, rtol=1e-6)


FACTORY_SRC = """
def make_offset_kernel(shift, T):
    @ct.kernel
    def offset_rows(x, y):
        b = ct.bid(0)
        # `shift` is a comprehension target here: the closure's `shift` stays what it was
        parts = tuple(ct.load(x, (k, b), (1, T)) * shift for k, shift in
                      ct.static_iter(enumerate((1.0, -2.0))))
        ct.store(y, (0, b), parts[0] + parts[1] + shift)
    return offset_rows
"""


def test_comprehension_target_does_not_hide_a_closure_value(tmp_path):
    import tile2triton
    path = tmp_path / "factory_mod.py"
    path.write_text(HEADER + FACTORY_SRC)
    mod = interp.load_module_with_interpreter(str(path))
    k = mod.make_offset_kernel(0.75, 32)
    t = tile2triton.translate_kernel(k)
    x = torch.randn(2, 45, generator=gen(3))
    y1, y2 = torch.full((1, 45), float("nan")), torch.full((1, 45), float("nan"))
    interp.run_kernel(k, (2,), (x.clone(), y1))
    t(None, (2,), x.clone(), y2)
    ref = x[0:1].double() - 2.0 * x[1:2].double() + 0.75
    torch.testing.assert_close(y1.double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(y2, y1, atol=1e-6, rtol=1e-6)


# ------------------------------------- a `while` with `break` nested in a loop without exits
NESTED_BREAK_SRC = """
@ct.kernel
def first_small_prefix(x, y, n_rows: int, T: ct.Constant[int]):
    # per column block: add rows until one whose block sum is negative (that row included)
    b = ct.bid(0)
    for rep in range(2):
        s = ct.zeros((1, T), dtype=ct.float32)
        row = 0
        while row < n_rows:
            t = ct.load(x, (row, b), (1, T), padding_mode=ct.PaddingMode.ZERO)
            s += t
            if ct.sum(t) < 0:
                break
            row += 1
        ct.store(y, (rep, b), s * (rep + 1))
    for k in ct.static_iter(range(1)):
        row = 0
        while row < n_rows:
            if row >= k + 1:
                break
            row += 1
        ct.store(y, (2, b), ct.full((1, T), row, dtype=ct.float32))
"""


@pytest.mark.parametrize("rows,cols", [(9, 40), (4, 13)])
def test_break_in_a_while_nested_in_loops(tmp_path, rows, cols):
    x = torch.randn(rows, cols, generator=gen(rows + cols))
    y = torch.full((3, cols), float("nan"))
    T = 16
    a1, a2 = run_both(tmp_path, NESTED_BREAK_SRC, "first_small_prefix", (-(-cols // T),),
                      [x, y, rows, T], name=f"nb{rows}")
    xd = x.double()
    ref = torch.zeros(3, cols, dtype=torch.float64)
    for b0 in range(0, cols, T):
        blk = xd[:, b0:b0 + T]
        s = torch.zeros(blk.shape[1], dtype=torch.float64)
        for r in range(rows):
            s += blk[r]
            if blk[r].sum() < 0:
                break
        ref[0, b0:b0 + T], ref[1, b0:b0 + T], ref[2, b0:b0 + T] = s, 2 * s, 1.0
    torch.testing.assert_close(a1[1].double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a2[1], a1[1], atol=1e-6, rtol=1e-6)
