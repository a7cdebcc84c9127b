"""Reductions, scans and matrix products, standalone and inside kernels."""

import math

import pytest
import torch

from tile2triton import interp
from tile2triton.interp import ct, Tile
from tile2triton.interp._dtypes import from_torch


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def tile(t):
    return Tile(t.clone(), from_torch(t.dtype))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_max_min_prod_axes(axis, keepdims):
    x = torch.randn(2, 4, 8, generator=gen(1))
    t = tile(x)
    dims = tuple(range(3)) if axis is None else axis
    for f, ref in [(ct.sum, lambda a: a.sum(dim=dims, keepdim=keepdims)),
                   (ct.max, lambda a: a.amax(dim=dims, keepdim=keepdims)),
                   (ct.min, lambda a: a.amin(dim=dims, keepdim=keepdims)),
                   (ct.prod, lambda a: _prod(a, dims, keepdims))]:
        r = f(t, axis, keepdims=keepdims)
        exp = ref(x.double())
        assert r.dtype is ct.float32
        assert r.shape == tuple(exp.shape)
        torch.testing.assert_close(r.torch().double(), exp, rtol=1e-5, atol=1e-6)


def _prod(a, dims, keepdims):
    dims = (dims,) if isinstance(dims, int) else dims
    for d in sorted((d % a.dim() for d in dims), reverse=True):
        a = a.prod(dim=d, keepdim=keepdims)
    return a


def test_reductions_keep_input_dtype():
    h = ct.astype(tile(torch.randn(4, 8, generator=gen(2))), ct.float16)
    assert ct.sum(h, 1).dtype is ct.float16
    i = ct.arange(8, dtype=ct.int32).reshape((2, 4))
    assert ct.sum(i, None).tolist() == 28 and ct.sum(i, None).dtype is ct.int32
    assert ct.sum(i, 1, keepdims=True).tolist() == [[6], [22]]
    assert ct.max(i, 1, keepdims=True).tolist() == [[3], [7]]
    assert ct.prod(i, 1, keepdims=True).tolist() == [[0], [840]]
    assert ct.sum(ct.arange(8, dtype=ct.int32).reshape((2, 2, 2)), (1, 2)).tolist() == [6, 22]
    assert ct.sum(ct.full((4,), 2**30, ct.int32)).tolist() == 0     # wraps like int32


def test_argmax_argmin_ties_and_keepdims():
    z = ct.zeros((4,), ct.int32)
    assert ct.argmax(ct.cat((z, z + 1), axis=0), 0).tolist() == 4
    assert ct.argmin(ct.cat((z + 1, z), axis=0), 0).tolist() == 4
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0]])
    t = tile(x)
    assert ct.argmax(t, 1).tolist() == [1, 0]
    assert ct.argmin(t, 1).tolist() == [3, 2]
    assert ct.argmax(t, 1).dtype is ct.int32
    assert ct.argmax(t, 1, keepdims=True).shape == (2, 1)
    assert ct.argmax(t).tolist() == 1 and ct.argmax(t, keepdims=True).shape == (1, 1)
    assert ct.argmin(t, None).tolist() == 6
    with pytest.raises(interp.TileTypeError, match="ct.argmax.*tuple"):
        ct.argmax(t, (0, 1))
    n = tile(torch.tensor([1.0, math.nan, 5.0, math.nan]))
    assert ct.argmax(n).tolist() == 2 and ct.argmax(n, propagate_nan=True).tolist() == 1
    assert ct.max(n).tolist() == 5.0 and math.isnan(ct.max(n, propagate_nan=True).tolist())


def test_cumsum_cumprod_and_custom_reduce_scan():
    t = ct.arange(8, dtype=ct.int32).reshape((2, 4))
    assert ct.cumsum(t, 1).tolist() == [[0, 1, 3, 6], [4, 9, 15, 22]]
    assert ct.cumsum(t, 1, reverse=True).tolist() == [[6, 6, 5, 3], [22, 18, 13, 7]]
    assert ct.cumprod(ct.full((2, 4), 2, ct.int32), 1).tolist() == [[2, 4, 8, 16]] * 2
    assert ct.reduce(t, 1, lambda a, b: a + b, 0).tolist() == [6, 22]
    mx, am = ct.reduce((t, ct.broadcast_to(ct.arange(4, dtype=ct.int32), (2, 4))), 1,
                       lambda a, ia, b, ib: (ct.where(b > a, b, a), ct.where(b > a, ib, ia)),
                       (-1000, 0))
    assert mx.tolist() == [3, 7] and am.tolist() == [3, 3]
    assert ct.scan(t, 1, lambda a, b: a + b, 0).tolist() == ct.cumsum(t, 1).tolist()


@pytest.mark.parametrize("dt,acc_dt,tol", [
    (torch.float16, torch.float32, 1e-5), (torch.bfloat16, torch.float32, 1e-5),
    (torch.float32, torch.float32, 1e-5), (torch.float64, torch.float64, 1e-12)])
def test_mma_matches_float64(dt, acc_dt, tol):
    a = torch.randn(16, 32, generator=gen(3)).to(dt)
    b = torch.randn(32, 8, generator=gen(4)).to(dt)
    c = torch.randn(16, 8, generator=gen(5)).to(acc_dt)
    r = ct.mma(tile(a), tile(b), tile(c))
    assert r.dtype is from_torch(acc_dt)
    torch.testing.assert_close(r.torch().double(), a.double() @ b.double() + c.double(),
                               rtol=tol, atol=tol)


def test_mma_tf32_rounds_operands_and_fp32_is_exact():
    a = torch.full((2, 4), 1.0 + 2**-12)
    b = torch.ones(4, 2)
    acc = ct.zeros((2, 2), ct.float32)
    exact = ct.mma(tile(a), tile(b), acc)
    assert exact.tolist() == [[4 * (1.0 + 2**-12)] * 2] * 2
    tf = ct.mma(ct.astype(tile(a), ct.tfloat32), ct.astype(tile(b), ct.tfloat32), acc)
    assert tf.tolist() == [[4.0] * 2] * 2


def test_mma_dtype_rules():
    i8 = ct.ones((4, 4), ct.int8)
    r = ct.mma(i8, i8, ct.zeros((4, 4), ct.int32))
    assert r.dtype is ct.int32 and r.tolist() == [[4] * 4] * 4
    h = ct.ones((4, 4), ct.float16)
    assert ct.mma(h, h, ct.zeros((4, 4), ct.float16)).dtype is ct.float16
    with pytest.raises(interp.TileTypeError, match="ct.mma.*accumulator"):
        ct.mma(h, h, ct.zeros((4, 4), ct.float64))
    with pytest.raises(interp.TileTypeError, match="ct.mma.*same dtype"):
        ct.mma(h, ct.ones((4, 4), ct.float32), ct.zeros((4, 4), ct.float32))


def test_matmul_shapes_and_operator():
    x, y = ct.ones((2, 4), ct.float32), ct.ones((4, 2), ct.float32)
    assert (x @ y).tolist() == [[4.0, 4.0], [4.0, 4.0]]
    assert ct.matmul(ct.ones((4,), ct.float32), ct.ones((4,), ct.float32)).tolist() == 4.0
    b = ct.ones((2, 2, 4), ct.float32) @ y
    assert b.shape == (2, 2, 2)
    h = ct.ones((2, 4), ct.float16) @ ct.ones((4, 2), ct.float16)
    assert h.dtype is ct.float16
    bx = ct.mma(ct.ones((2, 2, 4), ct.float32), y, ct.zeros((2, 2, 2), ct.float32))
    assert bx.tolist() == [[[4.0, 4.0], [4.0, 4.0]]] * 2


@ct.kernel
def _matmul_kernel(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (TM, TK))):
        ta = ct.load(a, (bm, k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, bn), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))


@pytest.mark.parametrize("dt", [torch.float16, torch.float32])
def test_tiled_matmul_kernel_non_multiple(dt):
    a = torch.randn(100, 70, generator=gen(6)).to(dt)
    b = torch.randn(70, 50, generator=gen(7)).to(dt)
    c = torch.full((100, 50), math.nan).to(dt)
    ct.launch(None, (ct.cdiv(100, 32), ct.cdiv(50, 32)), _matmul_kernel, (a, b, c, 32, 32, 16))
    tol = 1e-2 if dt == torch.float16 else 1e-5
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=tol, atol=tol)


@ct.kernel
def _row_softmax(x, out, TN: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, (r, 0), (1, TN), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    ct.store(out, (r, 0), (e / ct.sum(e, axis=1, keepdims=True)).astype(out.dtype))


def test_softmax_kernel_against_float64():
    x = torch.randn(13, 50, generator=gen(8))
    out = torch.empty(13, 50)
    ct.launch(None, (13,), _row_softmax, (x, out, 64))
    torch.testing.assert_close(out.double(), torch.softmax(x.double(), dim=1), rtol=1e-5,
                               atol=1e-6)
