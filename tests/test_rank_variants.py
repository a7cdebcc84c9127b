"""A kernel whose own indexing leaves an array's rank open (rank 1 in one compile-time branch,
rank 2 in another, as cuTile's samples/BlockScaledMatMul.py does with its scales) is
translated once per rank combination; its launcher runs the translation for the ranks it is
given (issue 21 item 2)."""
import os
import subprocess
import sys

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def scaled_rows(x, scale, shift, out, TM: ConstInt, TN: ConstInt):
    """out = x * scale + shift; scale per row (rank 1) or per element (rank 2), shift per
    column (rank 1) or a (1, N) row (rank 2)."""
    bm = ct.bid(0)
    t = ct.load(x, index=(bm, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    if len(scale.shape) == 1:
        s = ct.reshape(ct.load(scale, index=(bm,), shape=(TM,)), (TM, 1))
    else:
        s = ct.load(scale, index=(bm, 0), shape=(TM, TN))
    if shift.ndim == 2:
        b = ct.load(shift, index=(0, 0), shape=(1, TN))
    else:
        b = ct.reshape(ct.load(shift, index=(0,), shape=(TN,)), (1, TN))
    ct.store(out, index=(bm, 0), tile=t * s + b)


def run(x, scale, shift):
    out = torch.empty_like(x)
    kernel = scaled_rows     # chosen at run time: launched through the module's table
    ct.launch(None, (ct.cdiv(x.shape[0], 8),), kernel, (x, scale, shift, out, 8, 16))
    return out
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    result = translate_source(SRC, "scaled_rows.py")
    assert result.ok, [d.message for d in result.diagnostics()]
    path = tmp_path_factory.mktemp("ranks") / "scaled_rows_triton.py"
    path.write_text(result.output)
    return load_module(path, "t2t_rank_variants")


def _launch(mod, x, scale, shift):
    out = torch.full_like(x, float("nan"))
    mod.launch_scaled_rows(None, ((x.shape[0] + 7) // 8,), x, scale, shift, out, 8, 16)
    return out


@pytest.mark.parametrize("scale_rank,shift_rank", [(1, 1), (1, 2), (2, 1), (2, 2)])
def test_each_rank_combination_runs_its_own_translation(mod, scale_rank, shift_rank):
    g = torch.Generator().manual_seed(scale_rank * 10 + shift_rank)
    x = torch.randn(21, 13, generator=g, dtype=torch.float64)
    scale = torch.randn(21, generator=g, dtype=torch.float64)
    shift = torch.randn(13, generator=g, dtype=torch.float64)
    full_scale = scale[:, None] if scale_rank == 1 else torch.randn(21, 13, generator=g,
                                                                     dtype=torch.float64)
    want = x * full_scale + shift[None, :]
    got = _launch(mod, x.float(), (scale if scale_rank == 1 else full_scale).float(),
                  (shift if shift_rank == 1 else shift[None, :]).float())
    torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)


def test_a_rank_no_branch_reads_is_refused_with_the_ranks_there_are(mod):
    x = torch.randn(21, 13)
    with pytest.raises(ValueError, match=r"`scale`, `shift` must have ranks \(1, 1\), "
                                         r"\(1, 2\), \(2, 1\), \(2, 2\), got shapes"):
        _launch(mod, x, torch.randn(2, 21, 13), torch.randn(13))


def test_the_module_has_one_kernel_per_combination_and_the_kernel_name_launches(mod):
    assert {n for n in vars(mod) if n.startswith("scaled_rows_")} == {
        "scaled_rows_1d_1d", "scaled_rows_1d_2d", "scaled_rows_2d_1d", "scaled_rows_2d_2d"}
    # host code launching the kernel chosen at run time reaches the choice too
    g = torch.Generator().manual_seed(3)
    x, scale, shift = (torch.randn(*s, generator=g, dtype=torch.float64)
                       for s in ((21, 13), (21, 13), (1, 13)))
    got = mod.run(x.float(), scale.float(), shift.float())
    torch.testing.assert_close(got.double(), x * scale + shift, rtol=1e-5, atol=1e-5)


KEEPDIMS_FACTORY = '''
import cuda.tile as ct
import torch


def make_row_reduce(reduce_op):
    @ct.kernel
    def kernel(x, out, B: ct.Constant[int], N: ct.Constant[int], keepdims: ct.Constant[bool]):
        px = ct.bid(0)
        t = reduce_op(ct.load(x, index=(px, 0), shape=(B, N)), axis=1, keepdims=keepdims)
        if keepdims:
            ct.store(out, index=(px, 0), tile=t)
        else:
            ct.store(out, index=(px,), tile=t)
    return kernel


OPS = {"max": ct.max, "sum": ct.sum}


def run(x, keepdims, op):
    y = torch.full((x.shape[0], 1) if keepdims else (x.shape[0],), float("nan"))
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make_row_reduce(OPS[op]),
              (x, y, 16, x.shape[1], keepdims))
    return y
'''


def test_a_bool_constant_that_decides_ranks_gets_one_translation_per_value(tmp_path):
    """cuTile's test_reduction.py style: `keepdims=keepdims` of a ct.Constant[bool] and a
    store whose rank follows it. The kernel translates once per value (and the ranks that
    value leaves); the launcher chooses by the launch's value and the output's rank."""
    res = translate_source(KEEPDIMS_FACTORY, "keepdims.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert "def kernel_keepdims_0_1d(" in out and "def kernel_keepdims_1_2d(" in out
    assert "_KERNEL_BY_VALUE.get((bool(keepdims), len(out.shape)))" in out
    (tmp_path / "keepdims_triton.py").write_text(out)
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import keepdims_triton as mod\ng = torch.Generator().manual_seed(12)\n"
              "x = torch.randn(203, 32, generator=g)\nres = []\n"
              "for kd in (False, True):\n    for op in ('max', 'sum'):\n"
              "        res.append(mod.run(x, kd, op))\n"
              "torch.save((x, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, res = torch.load(tmp_path / "res.pt")
    xd = x.double()
    refs = [xd.amax(1), xd.sum(1), xd.amax(1, keepdim=True), xd.sum(1, keepdim=True)]
    for got, ref in zip(res, refs):
        torch.testing.assert_close(got.double(), ref, atol=1e-5, rtol=1e-5)


DEPENDENT = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def outer_or_dot(a, b, c, TN: ConstInt):
    """The branch the ranks of `a` and `b` select decides the rank of `c` (as cuTile's
    test_mma.py `matmul_nd_kernel` does): ranks (1, 1) store a 1-d `c`, (2, 1) a 2-d one."""
    if a.ndim == 1 and b.ndim == 1:
        x = ct.load(a, index=(0,), shape=(TN,))
        y = ct.load(b, index=(0,), shape=(TN,))
        ct.store(c, index=(0,), tile=x * y + 1.0)
    if a.ndim == 2 and b.ndim == 1:
        x = ct.load(a, index=(0, 0), shape=(TN, TN))
        y = ct.load(b, index=(0,), shape=(TN,))
        ct.store(c, index=(0, 0), tile=x * ct.reshape(y, (1, TN)))
'''


def test_ranks_the_selected_branch_cannot_take_have_no_variant(tmp_path):
    """`a` and `c` have ranks 1 and 2 each (`b` only 1): of the 4 combinations, (1, 2) meets
    `ct.store(c, (0,), ...)` with a 2-d `c` in the branch its ranks select, which cuTile
    refuses to compile, and (2, 1) the 2-d store into a 1-d `c`; the translation has no
    variant for them (before: the whole kernel failed, T2T105), and its launcher refuses
    them."""
    result = translate_source(DEPENDENT, "dependent.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
    out = result.output
    assert "(1, 1): launch_outer_or_dot_1d_1d," in out
    assert "(2, 2): launch_outer_or_dot_2d_2d," in out
    assert "(1, 2):" not in out and "(2, 1):" not in out
    (tmp_path / "dependent_triton.py").write_text(out)
    mod = load_module(tmp_path / "dependent_triton.py", "t2t_dependent")
    g = torch.Generator().manual_seed(4)
    t = 16      # one tile of 16 (of 16 x 16) at the origin of arrays that are larger
    a1, b = torch.randn(21, generator=g), torch.randn(21, generator=g)
    c1 = torch.zeros(21)
    mod.launch_outer_or_dot(None, (1,), a1, b, c1, t)
    want1 = torch.zeros(21, dtype=torch.float64)
    want1[:t] = a1.double()[:t] * b.double()[:t] + 1
    torch.testing.assert_close(c1.double(), want1, rtol=1e-6, atol=1e-6)
    a2 = torch.randn(21, 19, generator=g)
    c2 = torch.zeros(21, 19)
    mod.launch_outer_or_dot(None, (1,), a2, b, c2, t)
    want2 = torch.zeros(21, 19, dtype=torch.float64)
    want2[:t, :t] = a2.double()[:t, :t] * b.double()[None, :t]
    torch.testing.assert_close(c2.double(), want2, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="must have ranks"):
        mod.launch_outer_or_dot(None, (1,), a1, b, c2, t)
