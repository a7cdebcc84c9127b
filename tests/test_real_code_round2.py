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
