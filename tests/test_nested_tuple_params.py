"""Tuple parameters of kernels that host functions define, as cuTile's test_tuple_arguments.py
has them for 19 of its launches: `def test_x(): @ct.kernel def k(out, t1, t2)` launched with
`(out, (a, b), (10, 20))`, and `def make(annotation): @ct.kernel def k(pair: annotation, out)`.
The tuple split (rewrite/tuple_params.py) was undone for such kernels by the dataclass pass,
which rewrote the kernel as the host function wrote it (T2T101 "tiles can only be indexed
with `:`"), a factory parameter read only in an annotation became a launcher keyword the
checker could not give (the kernel has no such closure), and host code naming
`ct.IndexedWithInt64` was T2T109. Each translation runs under TRITON_INTERPRET=1 against the
cuTile reference interpreter and a float64 reference, on random data whose length is not a
multiple of the tile."""
import importlib.util

import pytest
import torch

from tile2triton import interp, translate_source

SRC = '''
import cuda.tile as ct
import torch


def combine(a, b):
    return a - b        # (a module-level `combine`: the host function's is hoisted renamed)


def run_pairs(x, y, scale, bias, tile):
    def combine(a, b):
        return a * 2.0 + b

    @ct.kernel
    def pairs(out, arrays, coef, T: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(arrays[0], index=(i,), shape=(T,))
        b = ct.load(arrays[1], index=(i,), shape=(T,))
        ct.store(out, index=(i,), tile=combine(a, b) * coef[0] + coef[1][0] - coef[1][1])

    out = torch.zeros_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), pairs,
              (out, (x, y), (scale, (bias, 1.0)), tile))
    return out


def make_sum(annotation):
    @ct.kernel
    def pair_sum(pair: annotation, out, T: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(pair[0], index=(i,), shape=(T,))
        b = ct.load(pair[1], index=(i,), shape=(T,))
        ct.store(out, index=(i,), tile=a + b)
    return pair_sum


def run_sum(x, y, tile):
    out = torch.zeros_like(x)
    kernel = make_sum(tuple[ct.IndexedWithInt64, torch.Tensor])
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), kernel, ((x, y), out, tile))
    return out
'''


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nested_tuples")
    (tmp / "nested_tuples_cutile.py").write_text(SRC)
    orig = interp.load_module_with_interpreter(str(tmp / "nested_tuples_cutile.py"))
    res = translate_source(SRC, "nested_tuples.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp / "nested_tuples_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_nested_tuples", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans, res.output


def _xy(seed, n=211):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, generator=g), torch.randn(n, generator=g)


def test_tuple_parameters_of_a_kernel_of_a_test_function(mods):
    orig, trans, out = mods
    x, y = _xy(1)
    want = (x.double() * 2 + y.double()) * 1.5 + 0.25 - 1.0
    for got in (trans.run_pairs(x, y, 1.5, 0.25, 32), orig.run_pairs(x, y, 1.5, 0.25, 32)):
        torch.testing.assert_close(got.double(), want, rtol=1e-6, atol=1e-6)
    # the tuples are their leaves, and the kernel calls the hoisted helper by its new name
    assert "arrays_0_ptr," in out and "coef_1_1" in out
    assert "run_pairs_combine(a, b)" in out


def test_a_factory_parameter_read_only_in_an_annotation_is_no_launcher_keyword(mods):
    orig, trans, out = mods
    x, y = _xy(2)
    for got in (trans.run_sum(x, y, 32), orig.run_sum(x, y, 32)):
        torch.testing.assert_close(got, x + y, rtol=0, atol=0)   # (one float32 rounding)
        torch.testing.assert_close(got.double(), x.double() + y.double(), rtol=1e-6, atol=1e-6)
    assert "annotation: tl.constexpr" not in out
    assert "    pair_sum = launch_pair_sum\n" in out
    # host code holds cuTile's annotated types as the plain types (emit/host_references)
    assert "make_sum(tuple[torch.Tensor, torch.Tensor])" in out
