"""Issue 28 (real cuTile code, round 2): each class of failure seen on a held-out library of
real op kernels, as a small kernel of that style, run side by side with the cuTile reference
interpreter on random data with ragged shapes and checked against a float64 reference."""
import math

import pytest
import torch
from side_by_side import Both, compile_messages, gen, translate

# Attention scores computed in a helper: the helper's tiles and the tile it returns have a
# rank the caller knows, and reductions along axis -1 need it (T2T105 before).
NEGATIVE_AXES = """
@ct.function
def scores(q, k, scale):
    qk = ct.mma(q, k, ct.zeros((q.shape[0], k.shape[1]), dtype=ct.float32))
    return qk * scale


@ct.function
def row_softmax_parts(s):
    m = ct.max(s, axis=-1, keepdims=True)
    p = ct.exp(s - m)
    return m, p, ct.sum(p, axis=-1, keepdims=True)


@ct.kernel
def attn(Q, K, V, O, scale: float, TM: ct.Constant[int], TN: ct.Constant[int],
         D: ct.Constant[int]):
    b = ct.bid(1)
    q = ct.load(Q, index=(b, ct.bid(0), 0), shape=(1, TM, D),
                padding_mode=ct.PaddingMode.ZERO).reshape((TM, D))
    m_i = ct.full((TM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TM, 1), dtype=ct.float32)
    acc = ct.zeros((TM, D), dtype=ct.float32)
    n = K.shape[1]
    for j in range(ct.num_tiles(K, axis=1, shape=(1, TN, D))):
        k = ct.load(K, index=(b, j, 0), shape=(1, TN, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TN, D))
        qk = scores(q, ct.transpose(k), scale)
        cols = j * TN + ct.arange(TN, dtype=ct.int32)
        qk = ct.where(cols[None, :] < n, qk, -math.inf)
        m_new = ct.maximum(m_i, ct.max(qk, axis=-1, keepdims=True))
        p = ct.exp(qk - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, TN, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TN, D))
        acc = ct.mma(p, v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, ct.bid(0), 0), tile=(acc / l_i).reshape((1, TM, D)))


@ct.kernel
def softmax_rows(X, Y, TN: ct.Constant[int]):
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.NEG_INF)
    m, p, s = row_softmax_parts(x)
    ct.store(Y, index=(ct.bid(0), 0), tile=p / s)
"""


def test_negative_axes_on_tiles_of_helpers(tmp_path):
    both = Both(tmp_path, NEGATIVE_AXES, "neg_axes")
    g = gen(11)
    B, M, N, D = 2, 37, 45, 16
    q, k, v = (torch.randn(B, L, D, generator=g) for L in (M, N, N))
    o = torch.full((B, M, D), math.nan)
    scale = 0.3
    ref, got = both.run("attn", (math.ceil(M / 16), B), [q, k, v, o, scale, 16, 16, D])
    p = torch.softmax(q.double() @ k.double().transpose(1, 2) * scale, dim=-1)
    expect = p @ v.double()
    torch.testing.assert_close(got[3].double(), expect, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(ref[3].double(), expect, atol=1e-4, rtol=1e-4)
    x = torch.randn(7, 50, generator=g)
    y = torch.full((7, 64), math.nan)
    ref, got = both.run("softmax_rows", (7,), [x, y, 64])
    torch.testing.assert_close(got[1][:, :50].double(), torch.softmax(x.double(), dim=-1),
                               atol=1e-5, rtol=1e-5)


# Tile sizes computed from constants by tuple unpacking: Triton makes each name of a plain
# `a, b = ...` a tensor, and tl.arange rejects it ("arange's arguments must be of type
# tl.constexpr").
UNPACKED_SIZES = """
@ct.kernel
def halves(x, y, N: ct.Constant[int], G: ct.Constant[int]):
    TM, TN = N // 2, G * 4
    lo = ct.load(x, index=(ct.bid(0), 0), shape=(1, TM), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.arange(TN, dtype=ct.int32)
    ct.store(y, index=(ct.bid(0), 0), tile=ct.sum(lo, axis=1, keepdims=True) + cols[None, :])
"""


def test_tile_sizes_from_tuple_unpacking_stay_constexpr(tmp_path):
    both = Both(tmp_path, UNPACKED_SIZES, "unpacked_sizes")
    assert "TM: tl.constexpr = N // 2" in both.text
    x = torch.randn(5, 29, generator=gen(3))
    y = torch.full((5, 16), math.nan)
    ref, got = both.run("halves", (5,), [x, y, 64, 4])
    expect = x.double().sum(dim=1, keepdim=True) + torch.arange(16, dtype=torch.float64)
    torch.testing.assert_close(got[1].double(), expect, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ref[1], got[1], atol=1e-5, rtol=1e-5)
    # Triton's interpreter takes a tensor size; its compiler does not
    assert compile_messages(both.path, "halves", "[((5,), torch.randn(5, 29), "
                            "torch.empty(5, 16), 64, 4)]") == ["ok"]


# fp8 per-token-group quantization writing integer codes as fp8: Triton converts fp8 only to
# and from floats ("cannot cast int32[...] to fp8e4nv").
INT_TO_FP8 = """
@ct.kernel
def quantize_codes(x, q, codes, TN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    scale = ct.max(ct.abs(t), axis=1, keepdims=True) / 7.0 + 1e-6
    c = ct.astype(t / scale, ct.int32)
    f8 = c.astype(ct.float8_e4m3fn)
    ct.store(q, index=(ct.bid(0), 0), tile=f8)
    ct.store(codes, index=(ct.bid(0), 0), tile=f8.astype(ct.int32))
"""


def test_integers_convert_to_and_from_fp8_through_float(tmp_path):
    both = Both(tmp_path, INT_TO_FP8, "int_to_fp8")
    x = torch.randn(6, 50, generator=gen(5))
    q = torch.zeros(6, 50, dtype=torch.float8_e4m3fn)
    codes = torch.full((6, 50), -99, dtype=torch.int32)
    ref, got = both.run("quantize_codes", (6,), [x, q, codes, 64])
    xd = x.double()
    expect = torch.trunc(xd / (xd.abs().amax(dim=1, keepdim=True) / 7.0 + 1e-6))
    assert torch.equal(got[2].double(), expect)
    assert torch.equal(got[1].double(), expect)
    assert torch.equal(ref[2], got[2])
    assert compile_messages(both.path, "quantize_codes", "[((6,), torch.randn(6, 50), "
                            "torch.zeros(6, 50, dtype=torch.float8_e4m3fn), "
                            "torch.zeros(6, 50, dtype=torch.int32), 64)]") == ["ok"]


# A swish-gated norm whose fast path calls a name cuda-tile 1.7.0 lacks, under a
# ct.Constant[bool]: cuTile compiles the branch only for launches that take it.
NEWER_NAME_BRANCH = """
@ct.kernel
def swish_gate(x, g, y, FAST: ct.Constant[bool], TN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    gate = ct.load(g, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    if FAST:
        s = ct.sigmoid(gate)
    else:
        s = 1.0 / (1.0 + ct.exp(-gate))
    out = t * gate * s
    rms = ct.sqrt(ct.sum(out * out, axis=1, keepdims=True) / x.shape[1] + 1e-6)
    ct.store(y, index=(ct.bid(0), 0), tile=out / rms)
"""


def _swish_reference(x, g):
    xd, gd = x.double(), g.double()
    out = xd * gd * torch.sigmoid(gd)
    return out / torch.sqrt((out * out).mean(dim=1, keepdim=True) + 1e-6)


def _swish_args(seed):
    g = gen(seed)
    return torch.randn(6, 77, generator=g), torch.randn(6, 77, generator=g)


def test_a_name_cutile_lacks_fails_only_the_launches_taking_its_branch(tmp_path):
    import cuda.tile
    assert not hasattr(cuda.tile, "sigmoid")      # cuda-tile 1.7.0
    both = Both(tmp_path, NEWER_NAME_BRANCH, "newer_name_branch")
    x, g = _swish_args(1)
    y = torch.full((6, 77), math.nan)
    ref, got = both.run("swish_gate", (6,), [x, g, y, False, 128])
    torch.testing.assert_close(got[2].double(), _swish_reference(x, g), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ref[2], got[2], atol=1e-6, rtol=1e-5)
    messages = compile_messages(both.path, "swish_gate", "[((6,), torch.randn(6, 77), "
                                "torch.randn(6, 77), torch.empty(6, 77), FAST, 128) "
                                "for FAST in (False, True)]")
    assert messages[0] == "ok"
    assert "ct.sigmoid" in messages[1] and "1.7.0" in messages[1]


# The same branch inside a helper, as the held-out library's layer norms (and the corpus case
# swish_gated_rmsnorm) write it. Triton reports an error inside a called function at the call
# only ("at 73:21: h = xt * silu(gt, FAST)"), its message in the exception's cause: GPU run 46
# saw that as an unrelated error. The launcher raises the helper's own error.
NEWER_NAME_IN_HELPER = """
@ct.function
def silu(g, fast):
    if fast:
        s = ct.sigmoid(g)
    else:
        s = 1.0 / (1.0 + ct.exp(-g))
    return g * s


@ct.kernel
def swish_gate(x, g, y, FAST: ct.Constant[bool], TN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    gate = ct.load(g, index=(ct.bid(0), 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
    out = t * silu(gate, FAST)
    rms = ct.sqrt(ct.sum(out * out, axis=1, keepdims=True) / x.shape[1] + 1e-6)
    ct.store(y, index=(ct.bid(0), 0), tile=out / rms)
"""

_LAUNCH_FOR_SM90 = r"""
import importlib.util, sys, torch, triton
from tile2triton.verify.inspection import compiling_for
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
x = torch.randn(6, 77)
try:
    with compiling_for(90, [], with_ptxas=False, raise_errors=True):
        m.launch_swish_gate(None, (6,), x, x, torch.empty_like(x), True, 128)
    print("compiled")
except triton.CompilationError as e:
    print(type(e).__name__, "|", str(e).replace("\n", " "))
"""


def test_a_name_cutile_lacks_in_a_helper_is_named_by_the_launch_that_takes_it(tmp_path):
    import os
    import subprocess
    import sys
    both = Both(tmp_path, NEWER_NAME_IN_HELPER, "newer_name_in_helper")
    x, g = _swish_args(2)
    y = torch.full((6, 77), math.nan)
    ref, got = both.run("swish_gate", (6,), [x, g, y, False, 128])
    torch.testing.assert_close(got[2].double(), _swish_reference(x, g), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ref[2], got[2], atol=1e-6, rtol=1e-5)
    # the checker's compile probe (front end for sm_90): the helper's message
    messages = compile_messages(both.path, "swish_gate", "[((6,), torch.randn(6, 77), "
                                "torch.randn(6, 77), torch.empty(6, 77), FAST, 128) "
                                "for FAST in (False, True)]")
    assert messages[0] == "ok"
    assert messages[1].startswith("CompileTimeAssertionFailure: at "), messages[1]
    assert "def silu(" in messages[1] and "ct.sigmoid is not in cuda-tile 1.7.0" in messages[1]
    # the launcher itself, compiling for sm_90 as on a GPU: the error it raises names the
    # construct and the branch, and points into the helper
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _LAUNCH_FOR_SM90, str(both.path)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    kind, _, text = r.stdout.strip().splitlines()[-1].partition(" | ")
    assert kind == "CompileTimeAssertionFailure", r.stdout
    assert "ct.sigmoid is not in cuda-tile 1.7.0" in text and "`if fast`" in text, text
    assert "def silu(" in text, text        # located: the excerpt is the helper's


def test_a_name_newer_cutile_adds_is_translated_when_installed(monkeypatch):
    import cuda.tile
    monkeypatch.setattr(cuda.tile, "sigmoid", lambda x: x, raising=False)
    text = translate(NEWER_NAME_BRANCH)
    assert "static_assert" not in text
    assert "tl.sigmoid(" in text


def test_a_name_cutile_lacks_outside_a_constant_branch_is_an_error():
    from side_by_side import HEADER

    from tile2triton import translate_source
    src = HEADER + NEWER_NAME_BRANCH.replace("if FAST:", "if ct.bid(0) > 2:")
    r = translate_source(src, "swish.py")
    assert not r.ok
    text = "\n".join(d.format() for d in r.diagnostics())
    assert "T2T100" in text and "ct.sigmoid" in text and "1.7.0" in text


# A bf16 accumulator widened to fp32 inside its loop: cuTile 1.7.0 rejects it ("Type of `acc`
# depends on path taken"), as it rejects `a = 1` then `a *= 2.0` in a loop (upstream
# test_typeinfer.py). Triton rejected the translation with a loop-carried type error instead.
WIDENED_IN_LOOP = """
@ct.kernel
def row_sums(x, y, TN: ct.Constant[int]):
    acc = ct.zeros((1, TN), dtype=ct.bfloat16)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, TN))):
        t = ct.load(x, index=(ct.bid(0), j), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + t.astype(ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=ct.sum(acc, axis=1))
"""


def test_a_carried_tile_that_changes_dtype_is_rejected_as_cutile_does():
    from side_by_side import HEADER

    from tile2triton import translate_source
    r = translate_source(HEADER + WIDENED_IN_LOOP, "widened.py")
    assert not r.ok
    (d,) = r.diagnostics()
    assert d.code == "T2T113" and "`acc`" in d.message and "depends on path" in d.message
    assert "bfloat16" in d.message and "float32" in d.message
    assert d.source_line.strip() == "acc = acc + t.astype(ct.float32)"   # where it widens
    # the same accumulator kept in one dtype translates
    translate(WIDENED_IN_LOOP.replace("dtype=ct.bfloat16", "dtype=ct.float32"))


def test_the_interpreter_rejects_a_carried_value_that_changes_type(tmp_path):
    from side_by_side import HEADER

    from tile2triton import interp
    path = tmp_path / "widened_cutile.py"
    path.write_text(HEADER + WIDENED_IN_LOOP)
    mod = interp.load_module_with_interpreter(str(path))
    x = torch.randn(3, 70, generator=gen(2)).bfloat16()
    with pytest.raises(interp.TileTypeError, match="Type of `acc` depends on path taken"):
        interp.run_kernel(mod.row_sums, (3,), (x, torch.empty(3), 32))
    # a value that keeps its type, and a constant that stays an int, run (as in cuTile)
    path.write_text(HEADER + WIDENED_IN_LOOP.replace("dtype=ct.bfloat16", "dtype=ct.float32"))
    mod = interp.load_module_with_interpreter(str(path))
    y = torch.empty(3)
    interp.run_kernel(mod.row_sums, (3,), (x, y, 32))
    torch.testing.assert_close(y.double(), x.double().sum(dim=1), atol=1e-4, rtol=1e-4)


# cuTile's samples/BatchMatMul.py with fp8 inputs and an fp32 output drifted (489,211 of
# 2,097,152 elements beyond 2e-4) while its own check against torch._scaled_mm passes. Where
# Triton multiplies fp8 on wgmma, it accumulates narrower than fp32 unless told to promote
# (max_num_imprecise_acc=0, kept); the sample's own product does not take that path (below).
FP8_BMM = """
@ct.kernel
def bmm(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, (ct.bid(0), ct.bid(1), k), (1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, (ct.bid(0), k, ct.bid(2)), (1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.reshape((TM, TK)), b.reshape((TK, TN)), acc)
    ct.store(C, (ct.bid(0), ct.bid(1), ct.bid(2)), acc.astype(C.dtype).reshape((1, TM, TN)))
"""


def test_products_that_may_be_fp8_promote_once_per_product(tmp_path):
    """cuTile's fp8 ct.mma on sm_90 adds each product to the fp32 accumulator once, as
    cuBLAS's fp8 GEMM does (GPU run 51: max_num_imprecise_acc = the depth is bit for bit
    cuTile's, 0 differs in 99 % of BatchMatMul's elements). Exact on the CPU."""
    both = Both(tmp_path, FP8_BMM, "fp8_bmm")
    assert "max_num_imprecise_acc=K" in both.text      # (_dot_any_size: K, the depth)
    a = torch.randn(2, 40, 70, generator=gen(8)).to(torch.float8_e4m3fn)
    b = torch.randn(2, 70, 50, generator=gen(9)).to(torch.float8_e4m3fn)
    c = torch.full((2, 40, 50), math.nan)
    ref, got = both.run("bmm", (2, 3, 4), [a, b, c, 32, 16, 32])
    expect = a.double() @ b.double()
    torch.testing.assert_close(got[2].double(), expect, atol=1e-5, rtol=1e-6)
    # tiles of known sizes: the kernel's own tl.dot says it; operands known not to be fp8
    # keep Triton's default
    sized = FP8_BMM.replace("TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]",
                            "").replace("TM", "64").replace("TN", "64").replace("TK", "32")
    assert "max_num_imprecise_acc=32,\n" in translate(sized)
    text = translate(sized.replace("acc = ct.mma(a.reshape((64, 32)), b.reshape((32, 64)), acc)",
                                   "acc = ct.mma(a.reshape((64, 32)).astype(ct.float16), "
                                   "b.reshape((32, 64)).astype(ct.float16), acc)"))
    assert "tl.dot(" in text and "max_num_imprecise_acc" not in text


def test_use_fast_acc_takes_tritons_own_fp8_accumulation(tmp_path):
    """ct.mma(..., use_fast_acc=True) lets cuTile accumulate an fp8 product at the tensor
    cores' precision on sm_90: the translation leaves Triton its default (no
    max_num_imprecise_acc); False, the default, promotes once per product (its depth). Both
    are exact on the CPU."""
    sized = FP8_BMM.replace("TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]",
                            "").replace("TM", "64").replace("TN", "32").replace("TK", "32")
    fast = sized.replace("acc = ct.mma(a.reshape((64, 32)), b.reshape((32, 32)), acc)",
                         "acc = ct.mma(a.reshape((64, 32)), b.reshape((32, 32)), acc, "
                         "use_fast_acc=True)")
    assert fast != sized
    both = Both(tmp_path, fast, "fp8_bmm_fast")
    assert "max_num_imprecise_acc" not in both.text and "tl.dot(" in both.text
    assert "max_num_imprecise_acc=32" in translate(sized.replace(
        "acc)", "acc, use_fast_acc=False)"))
    a = torch.randn(2, 70, 100, generator=gen(10)).to(torch.float8_e4m3fn)
    b = torch.randn(2, 100, 45, generator=gen(11)).to(torch.float8_e4m3fn)
    c = torch.full((2, 70, 45), math.nan)
    ref, got = both.run("bmm", (2, 2, 2), [a, b, c])
    torch.testing.assert_close(got[2].double(), a.double() @ b.double(), atol=1e-5, rtol=1e-6)
    torch.testing.assert_close(ref[2], got[2], atol=1e-5, rtol=1e-6)


_PTX_FOR_SM90 = r"""
import importlib.util, sys, torch
from tile2triton.verify.inspection import compiling_for
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
a = torch.zeros(2, 100, 96, dtype=torch.float8_e4m3fn)
b = torch.zeros(2, 96, 120, dtype=torch.float8_e4m3fn)       # N-major, as the sample's
sink = []
with compiling_for(90, sink, with_ptxas=False, keep_stages=("ptx",)):
    m.launch_bmm(None, (2, 2, 2), a, b, torch.empty(2, 100, 120), 64, 64, 32)
print(sink[0].stages["ptx"])
"""


def test_the_samples_fp8_product_runs_on_fp8_wgmma_on_sm90(tmp_path):
    """Where the class 8 drift came from (docs/real-code.md): with max_num_imprecise_acc=0
    Triton did not use wgmma for the sample's N-major fp8 B; it converted both operands to
    fp16 and multiplied on mma.sync into fp32, exact to fp32, where cuTile's fp8 wgmma
    accumulates at the tensor cores' precision. Promoting once per product (the depth), the
    dot is an fp8 wgmma as cuTile's is, and gives cuTile's result bit for bit (GPU run 51)."""
    import os
    import subprocess
    import sys
    path = tmp_path / "fp8_bmm.py"
    path.write_text(translate(FP8_BMM))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _PTX_FOR_SM90, str(path)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    ptx = r.stdout
    assert "wgmma" in ptx and ".e4m3.e4m3" in ptx            # fp8 operands on wgmma
    assert "cvt.rn.f16x2.e4m3x2" not in ptx and "mma.sync" not in ptx   # (no fp16 upcast)


# A device helper under a decorator of the user's (a functools.wraps wrapper): kept above
# @triton.jit, the kernel called the Python wrapper, which Triton runs as plain Python
# ("_semantic argument must be provided outside of JIT functions").
DECORATED_HELPER = """
import functools


def traced(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


@traced
def twice_plus(t, c):
    return t * 2 + c


@ct.kernel
def apply_twice(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=twice_plus(t, 1.5))
"""


def test_a_decorated_helper_is_called_as_the_triton_function(tmp_path):
    both = Both(tmp_path, DECORATED_HELPER, "decorated_helper")
    assert "@traced\n@triton.jit" not in both.text
    assert "# tile2triton: `@traced` is left out" in both.text
    x = torch.randn(300, generator=gen(6))
    y = torch.full((300,), math.nan)
    ref, got = both.run("apply_twice", (3,), [x, y, 128])
    torch.testing.assert_close(got[1].double(), x.double() * 2 + 1.5)
    assert compile_messages(both.path, "apply_twice", "[((3,), torch.randn(300), "
                            "torch.empty(300), 128)]") == ["ok"]


# A tile whose rank depends on a ct.Constant (Triton compiles one branch per value): its rank
# is unknown while translating, and a negative axis goes to Triton, which counts it from the end.
RANK_BY_CONSTANT = """
@ct.kernel
def row_max(x, y, TM: ct.Constant[int], TN: ct.Constant[int], FLAT: ct.Constant[bool]):
    if FLAT:
        a = ct.load(x, (ct.bid(0), 0), (1, TN), padding_mode=ct.PaddingMode.NEG_INF).reshape((TN,))
    else:
        a = ct.load(x, (ct.bid(0), 0), (1, TN), padding_mode=ct.PaddingMode.NEG_INF)
    m = ct.max(a, axis=-1, keepdims=True)
    s = ct.sum(ct.exp(a - m), axis=-1, keepdims=True)
    ct.store(y, (ct.bid(0), 0), (m + ct.log(s)).reshape((1, 1)))
"""


@pytest.mark.parametrize("flat", [False, True])
def test_negative_axes_on_a_tile_of_unknown_rank(tmp_path, flat):
    both = Both(tmp_path, RANK_BY_CONSTANT, f"rank_by_constant_{flat}")
    x = torch.randn(6, 50, generator=gen(12))
    y = torch.full((6, 1), math.nan)
    ref, got = both.run("row_max", (6,), [x, y, 1, 64, flat])
    torch.testing.assert_close(got[1].double(), torch.logsumexp(x.double(), dim=1, keepdim=True),
                               atol=1e-5, rtol=1e-5)
