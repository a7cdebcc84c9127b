"""Reduction axes given by ct.Constant[int] parameters (`axis=(a1, a2)`, as cuTile's
test_reduction.py::test_reduce_maxminf_two_axes launches it): one translation serves every
value, Triton folding the axis expressions per specialization (issue 21)."""
import zlib

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def make_two_axes(reduce_op):
    @ct.kernel
    def kernel(x, y, TILE: ConstInt, N: ConstInt, M: ConstInt, keepdims: ct.Constant[bool],
               a1: ConstInt, a2: ConstInt):
        px = ct.bid(0)
        rows = ct.load(x, index=(px, 0, 0), shape=(TILE, N, M))
        out = reduce_op(rows, axis=(a1, a2), keepdims=keepdims)
        if keepdims:
            ct.store(y, index=(px, 0, 0), tile=out)
        else:
            ct.store(y, index=(px,), tile=out)
    return kernel


@ct.kernel
def one_axis(x, y, TM: ConstInt, TN: ConstInt, TK: ConstInt, a: ConstInt):
    """A single axis from a parameter, and one beside a literal axis; kept dims follow `a`."""
    t = ct.load(x, index=(0, 0, 0), shape=(TM, TN, TK))
    s = ct.sum(t, axis=a, keepdims=True) + ct.max(t, axis=(a, 0), keepdims=True)
    ct.store(y, index=(0, 0, 0), tile=s)


OPS = {"sum": ct.sum, "max": ct.max}


def two_axes(x, op, keepdims, axes):
    shape = (x.shape[0], 1, 1) if keepdims else (x.shape[0],)
    y = torch.full(shape, float("nan"), dtype=x.dtype)
    kernel = make_two_axes(OPS[op])
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), kernel,
              (x, y, 16, x.shape[1], x.shape[2], keepdims, *axes))
    return y
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    result = translate_source(SRC, "launch_axes.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
    path = tmp_path_factory.mktemp("axes") / "launch_axes_triton.py"
    path.write_text(result.output)
    return load_module(path, "t2t_launch_axes")


@pytest.mark.parametrize("axes", [(1, 2), (2, 1), (-1, -2), (-2, 2)])
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_axes_of_parameters_reduce_as_cutile_does(mod, axes, keepdims, op):
    g = torch.Generator().manual_seed(zlib.crc32(repr((axes, keepdims, op)).encode()))
    x = torch.randn(37, 8, 16, generator=g, dtype=torch.float64)   # 37: not a tile multiple
    got = mod.two_axes(x.float(), op, keepdims, axes)
    ref = x.sum((1, 2), keepdim=keepdims) if op == "sum" else x.amax((1, 2), keepdim=keepdims)
    torch.testing.assert_close(got.double(), ref, atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("a", [1, 2, -1])
def test_one_axis_of_a_parameter_keeps_the_right_dims(mod, a):
    g = torch.Generator().manual_seed(a + 7)
    x = torch.randn(4, 8, 16, generator=g, dtype=torch.float64)
    keep = [1 if d in (a % 3,) else n for d, n in enumerate(x.shape)]
    y = torch.full(keep, float("nan"))
    mod.launch_one_axis(None, (1,), x.float(), y, 4, 8, 16, a)
    ref = x.sum(a, keepdim=True) + x.amax((a % 3, 0), keepdim=True)
    torch.testing.assert_close(y.double(), ref, atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("axes,message", [((1, -2), "repeated reduction axis"),
                                          ((1, 3), "reduction axis out of range")])
def test_axes_cutile_rejects_do_not_compile(mod, axes, message):
    x = torch.randn(37, 8, 16)
    with pytest.raises(Exception, match=message):
        mod.two_axes(x, "max", True, axes)


def test_the_translation_is_one_kernel_per_keepdims_value_not_per_axes():
    out = translate_source(SRC, "launch_axes.py").output
    assert out.count("\ndef kernel_keepdims_") == 2
    assert "_launch_axes_2(rows, 3, a1, a2)" in out
