"""The rank of an array read or written only through a tiled view whose tile shape is ()
(`n.tiled_view(())`, one element per tile): the view's load/store index has an entry per axis,
which tells the rank (recognize._UseScanner._note_view_index). cuTile's test_tiled_view.py
does this in 19 launches (test_tiled_view_copy_2d, the 2-D convolutions, 0-d tiles with
traversal steps), which did not translate: T2T104 "cannot infer the rank of array parameter".
Each translation runs under TRITON_INTERPRET=1 against the cuTile reference interpreter and a
float64 reference, on random data whose extents are not multiples of the tiles."""
import importlib.util

import pytest
import torch

from tile2triton import interp, translate_source

SRC = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def copy_and_count(x, y, n, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    tv_x = x.tiled_view((TM, TN))
    tv_y = y.tiled_view((TM, TN))
    tv_y.store((bm, bn), tv_x.load((bm, bn)) * 2.0)
    tv_n = n.tiled_view(())
    if bm == 0 and bn == 0:
        tv_n.store(0, tv_x.num_tiles(0))
        tv_n.store(1, tv_x.num_tiles(1))


@ct.kernel
def window_sums(x, out, KH: ConstInt, KW: ConstInt, OUT_H: ConstInt, OUT_W: ConstInt):
    tv = x.tiled_view((KH, KW), traversal_steps=(1, 1))
    out_tv = out.tiled_view(())
    for i in range(OUT_H):
        for j in range(OUT_W):
            out_tv.store(i * OUT_W + j, ct.sum(tv.load((i, j))))


@ct.kernel
def grid_of_points(x, out, NUM_H: ConstInt, NUM_W: ConstInt):
    tv = x.tiled_view((), traversal_steps=(2, 3))
    out_tv = out.tiled_view(())
    for i in range(NUM_H):
        for j in range(NUM_W):
            out_tv.store((i * NUM_W + j,), tv.load((i, j)))
'''


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tv_rank")
    (tmp / "tv_rank_cutile.py").write_text(SRC)
    orig = interp.load_module_with_interpreter(str(tmp / "tv_rank_cutile.py"))
    res = translate_source(SRC, "tv_rank.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp / "tv_rank_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_tv_rank", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans


def _both(mods, kernel, grid, args):
    orig, trans = mods
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def test_copy_with_a_view_of_single_elements(mods):
    x = torch.randn(45, 70, generator=torch.Generator().manual_seed(1))
    y, n = torch.zeros_like(x), torch.zeros(2, dtype=torch.int32)
    grid = (-(-45 // 16), -(-70 // 32))
    for _, y_out, n_out, _, _ in _both(mods, "copy_and_count", grid, [x, y, n, 16, 32]):
        torch.testing.assert_close(y_out.double(), x.double() * 2, rtol=0, atol=0)
        assert n_out.tolist() == [3, 3]


def test_window_sums_stored_one_element_each(mods):
    x = torch.randn(7, 6, generator=torch.Generator().manual_seed(2))
    out_h, out_w = 7 - 2 + 1, 6 - 4 + 1
    out = torch.zeros(out_h * out_w)
    want = torch.stack([x.double()[i:i + 2, j:j + 4].sum() for i in range(out_h)
                        for j in range(out_w)])
    for _, got, *_ in _both(mods, "window_sums", (1,), [x, out, 2, 4, out_h, out_w]):
        torch.testing.assert_close(got.double(), want, rtol=1e-6, atol=1e-6)


def test_single_elements_with_traversal_steps(mods):
    x = torch.randn(5, 7, generator=torch.Generator().manual_seed(3))
    num_h, num_w = 3, 3          # rows 0, 2, 4; columns 0, 3, 6
    out = torch.zeros(num_h * num_w)
    want = x[::2, ::3].reshape(-1)
    for _, got, *_ in _both(mods, "grid_of_points", (1,), [x, out, num_h, num_w]):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
