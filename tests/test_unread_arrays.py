"""Launchers check the rank of an array only where the launched specialization reads it
(issue 21 item 2): an array read only under branches on ct.Constant parameters may be any
array, of any rank, when the launch's constants skip those branches, as cuTile accepts."""
import pytest
import torch

from tile2triton import translate_source
from tile2triton.emit.read_guards import read_guards
from tile2triton.verify.corpus import load_module

SRC = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def shift_rows(x, bias, gain, out, HAS_BIAS: ConstBool, MODE: ConstInt, TM: ConstInt,
               TN: ConstInt):
    bm = ct.bid(0)
    t = ct.load(x, index=(bm, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    if HAS_BIAS:
        b = ct.load(bias, index=(0,), shape=(TN,), padding_mode=ct.PaddingMode.ZERO)
        t = t + ct.reshape(b, (1, TN))
    if MODE == 0:
        t = t * 2.0
    elif MODE == 1 and not HAS_BIAS:
        t = t * ct.load(gain, index=(bm, 0), shape=(TM, 1), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(bm, 0), tile=t)
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    result = translate_source(SRC, "shift_rows.py")
    assert result.ok, [d.message for d in result.diagnostics()]
    path = tmp_path_factory.mktemp("unread") / "shift_rows_triton.py"
    path.write_text(result.output)
    return load_module(path, "t2t_unread_shift_rows")


def _data(rows=21, cols=13):
    g = torch.Generator().manual_seed(7)
    return (torch.randn(rows, cols, generator=g, dtype=torch.float64),
            torch.randn(cols, generator=g, dtype=torch.float64),
            torch.randn(rows, 1, generator=g, dtype=torch.float64))


def _run(mod, x, bias, gain, has_bias, mode):
    out = torch.full_like(x, float("nan"), dtype=torch.float32)
    grid = ((x.shape[0] + 7) // 8, 1, 1)
    mod.launch_shift_rows(None, grid, x.float(), bias, gain, out, has_bias, mode, 8, 16)
    return out.double()


def test_the_conditions_under_which_each_array_is_read():
    import libcst as cst
    fn = next(s for s in cst.parse_module(SRC).body if isinstance(s, cst.FunctionDef))
    guards = read_guards(fn, ["x", "bias", "gain", "out"], ["HAS_BIAS", "MODE", "TM", "TN"])
    assert guards == {"bias": "HAS_BIAS", "gain": "(not (MODE == 0)) and (MODE == 1 and not "
                                                    "HAS_BIAS)"}
    # a branch on something the launcher cannot evaluate counts as taken
    runtime = SRC.replace("if HAS_BIAS:", "if ct.bid(0) > 0:")
    fn = next(s for s in cst.parse_module(runtime).body if isinstance(s, cst.FunctionDef))
    assert "bias" not in read_guards(fn, ["bias"], ["HAS_BIAS", "MODE"])
    # a rebound constant is not the launch's value
    rebound = SRC.replace("    bm = ct.bid(0)\n", "    bm = ct.bid(0)\n    HAS_BIAS = True\n")
    fn = next(s for s in cst.parse_module(rebound).body if isinstance(s, cst.FunctionDef))
    assert "bias" not in read_guards(fn, ["bias"], ["HAS_BIAS", "MODE"])


def test_placeholders_of_another_rank_pass_where_their_branch_is_skipped(mod):
    x, bias, gain = _data()
    placeholder = torch.empty((1, 1), dtype=torch.float32)
    got = _run(mod, x, placeholder, placeholder[0], False, 0)
    torch.testing.assert_close(got, (x * 2).float().double())
    # gain is read (MODE 1 without bias); bias is a placeholder of rank 3
    got = _run(mod, x, torch.empty((1, 1, 1)), gain.float(), False, 1)
    torch.testing.assert_close(got, (x * gain).float().double(), rtol=1e-5, atol=1e-6)
    got = _run(mod, x, bias.float(), torch.empty(2), True, 2)
    torch.testing.assert_close(got, (x + bias).float().double(), rtol=1e-5, atol=1e-6)


def test_an_array_the_launch_reads_is_still_checked(mod):
    x, bias, gain = _data()
    with pytest.raises(ValueError, match=r"`bias` must have 1 dimension\(s\), got shape \(1, 1\)"):
        _run(mod, x, torch.empty((1, 1)), gain.float(), True, 0)
    with pytest.raises(ValueError, match=r"`gain` must have 2 dimension\(s\)"):
        _run(mod, x, bias.float(), torch.empty(3), False, 1)
    with pytest.raises(ValueError, match=r"`x` must have 2 dimension\(s\)"):
        _run(mod, x[0], bias.float(), gain.float(), False, 0)


# Issue 28, class 5: the held-out library's attention kernels pass a placeholder for an output
# that only some specializations write (`lse_out` must have 3 dimension(s), got shape (1,)).
LSE_SRC = '''
import cuda.tile as ct


@ct.kernel
def rows_out(x, out, lse_out, RETURN_LSE: ct.Constant[bool], TN: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0), shape=(1, TN), padding_mode=ct.PaddingMode.NEG_INF)
    m = ct.max(t, axis=1, keepdims=True)
    p = ct.exp(t - m)
    s = ct.sum(p, axis=1, keepdims=True)
    ct.store(out, index=(b, 0), tile=p / s)
    if RETURN_LSE:
        ct.store(lse_out, index=(0, b, 0), tile=ct.reshape(m + ct.log(s), (1, 1, 1)))
'''


def test_a_placeholder_for_an_output_written_only_under_a_constant(tmp_path):
    result = translate_source(LSE_SRC, "rows_out.py")
    assert result.ok, [d.message for d in result.diagnostics()]
    path = tmp_path / "rows_out_triton.py"
    path.write_text(result.output)
    m = load_module(path, "t2t_unread_rows_out")
    x = torch.randn(7, 45, generator=torch.Generator().manual_seed(28), dtype=torch.float64)
    want = torch.softmax(x, dim=1)
    out = torch.full((7, 45), float("nan"))
    m.launch_rows_out(None, (7,), x.float(), out, torch.empty(1), False, 64)
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-6)
    lse = torch.full((1, 7, 1), float("nan"))
    out = torch.full((7, 45), float("nan"))
    m.launch_rows_out(None, (7,), x.float(), out, lse, True, 64)
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(lse.double().reshape(7), torch.logsumexp(x, dim=1),
                               rtol=1e-5, atol=1e-5)
    # a launch that writes it still checks its rank
    with pytest.raises(ValueError, match=r"`lse_out` must have 3 dimension\(s\), got shape \(1,\)"):
        m.launch_rows_out(None, (7,), x.float(), out, torch.empty(1), True, 64)
