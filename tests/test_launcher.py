"""Launchers: int64 offsets only when some array spans 2**31 elements or more (and the int64
variant computes the same thing; on the GPU the planted-bug suite shows int32 overflow on a real
> 2**31-element tensor), and DLPack arrays as arguments."""
import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class _FakeArray:
    def __init__(self, shape, stride):
        self.shape, self._stride = shape, stride

    def stride(self):
        return self._stride

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def is_contiguous(self):
        expected = 1
        for n, s in reversed(list(zip(self.shape, self._stride))):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True


def _module(tmp_path):
    src = (ROOT / "corpus" / "vector_add_1d" / "kernel.py").read_text()
    out = tmp_path / "va_triton.py"
    out.write_text(translate_source(src, "kernel.py").output)
    return load_module(out, "t2t_int64_va")


def test_launcher_chooses_int64_only_for_large_spans(tmp_path):
    m = _module(tmp_path)
    assert m._needs_int64(torch.empty(1000)) is False
    assert m._needs_int64(_FakeArray((2**31 + 5,), (1,))) is True
    # 2-D: small shape, but a row stride that makes the last element's offset pass 2**31
    assert m._needs_int64(_FakeArray((3, 10), (2**30 + 1, 1))) is True
    assert m._needs_int64(_FakeArray((3, 10), (2**29, 1))) is False
    # a small real view that is not contiguous takes the exact path, and is small
    assert m._needs_int64(torch.empty(100, 30)[:, ::3]) is False


def test_int64_variant_computes_the_same(tmp_path):
    m = _module(tmp_path)
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(1000, generator=g), torch.randn(1000, generator=g)
    for use_int64 in (False, True):
        out = torch.full((1000,), float("nan"))
        m.vector_add_kernel[(8,)](a, *a.shape, *a.stride(), b, *b.shape, *b.stride(),
                                  out, *out.shape, *out.stride(), 128, a_div=(1, 8), b_div=(1, 8),
                                  out_div=(1, 8), USE_INT64=use_int64,
                                  grid_x=8, BLOCKS_PER_PROGRAM=2)   # (coarsen.py)
        torch.testing.assert_close(out, a + b)


def test_launcher_takes_dlpack_arrays(tmp_path):
    """Any DLPack array works as a kernel argument (numpy here); outputs are written in place."""
    import numpy as np

    m = _module(tmp_path)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    out = np.full(1000, np.nan, dtype=np.float32)
    m.launch(None, a, b, out)
    np.testing.assert_allclose(out, a + b, rtol=1e-6, atol=1e-6)


def _grouped(tmp_path):
    src = (ROOT / "corpus" / "grouped_gemm" / "kernel.py").read_text()
    out = tmp_path / "gg_triton.py"
    out.write_text(translate_source(src, "kernel.py").output)
    return load_module(out, "t2t_layout_gg")


def test_list_layout_is_what_every_array_of_the_list_guarantees(tmp_path):
    m = _grouped(tmp_path)
    a = torch.empty(64, 48, dtype=torch.float16)
    b = torch.empty(32, 40, dtype=torch.float16)
    # unit inner stride everywhere; addresses 16-byte aligned; row strides 48 and 40: both
    # multiples of 8 (not of 16); row lengths too
    assert m._list_layout([a, b], 2) == ((False, True), (16, 8, 1, 1, 8))
    # a transposed member: no dimension has unit stride in every array, and its column
    # extent stops counting for the contiguous one
    assert m._list_layout([a, b.T], 2) == ((False, False), (16, 1, 1, 1, 1))
    # a view 2 elements in: its address is 4-byte aligned only, its row length 46
    assert m._list_layout([a, torch.empty(64, 48, dtype=torch.float16)[:, 2:]], 2) == (
        (False, True), (4, 16, 1, 1, 2))


def test_grouped_gemm_with_mixed_layouts_computes_the_same(tmp_path):
    """Lists whose arrays differ in layout get the weakest guarantee, and still the product:
    a transposed B, a B starting mid-row, odd row lengths."""
    m = _grouped(tmp_path)
    g = torch.Generator().manual_seed(3)
    As = [torch.randn(45, 33, generator=g), torch.randn(100, 60, generator=g)[:, 3:53]]
    Bs = [torch.randn(70, 33, generator=g).T, torch.randn(50, 21, generator=g)[:, 1:]]
    Cs = [torch.full((45, 70), float("nan")), torch.full((100, 20), float("nan"))]
    m.launch(None, As, Bs, Cs)
    for a, b, c in zip(As, Bs, Cs):
        torch.testing.assert_close(c.double(), a.double() @ b.double(), atol=1e-4, rtol=1e-4)


def test_every_grid_form_cutile_takes(tmp_path):
    """An int, a 1- to 3-tuple, or the empty tuple (one block: upstream's
    test_launch_grid_padding, where the translation raised IndexError in GPU run 15)."""
    m = _module(tmp_path)
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(100, generator=g), torch.randn(100, generator=g)   # one 128-wide tile
    for grid in (1, (1,), (1, 1), (1, 1, 1), (), [1]):
        out = torch.full((100,), float("nan"))
        m.launch_vector_add_kernel(None, grid, a, b, out, 128)
        torch.testing.assert_close(out, a + b)
    assert m._grid(()) == (1,) and m._grid(5) == (5,) and m._grid([2, 3]) == (2, 3)


def test_each_array_is_checked_for_its_rank_as_it_is_converted(tmp_path):
    """The conversion of each array checks its rank (one launcher line per array): the error
    names the kernel, the parameter, the rank and the shape, for a tensor and a DLPack array."""
    import numpy as np

    m = _module(tmp_path)
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(100, generator=g), torch.randn(100, generator=g)
    out = torch.full((100,), float("nan"))
    with pytest.raises(ValueError, match=r"^vector_add_kernel: `b` must have 1 dimension\(s\), "
                                         r"got shape \(10, 10\)$"):
        m.launch_vector_add_kernel(None, 1, a, b.reshape(10, 10), out, 128)
    wrong = np.random.default_rng(5).standard_normal((4, 25)).astype(np.float32)
    with pytest.raises(ValueError, match=r"`out` must have 1 dimension\(s\), got shape \(4, 25\)"):
        m.launch_vector_add_kernel(None, 1, a, b, wrong, 128)
    assert np.isfinite(wrong).all()     # (nothing was launched)


class _Recorder:
    """Stands in for a Triton kernel: keeps each launch's grid and keywords."""

    def __init__(self):
        self.launches = []

    def __getitem__(self, grid):
        return lambda *args, **options: self.launches.append((grid, options))


def test_launch_options_from_hints_and_tile_sizes(tmp_path, monkeypatch):
    """num_ctas: 1 unless the hints give one (None counts as none); num_warps: the largest
    tile's elements over 256, 1 to 8 (argmax_rows' tiles are TM x TN and TM)."""
    src = (ROOT / "corpus" / "argmax_rows" / "kernel.py").read_text()
    path = tmp_path / "argmax_triton.py"
    path.write_text(translate_source(src, "kernel.py").output)
    m = load_module(path, "t2t_launch_options_argmax")
    kernel = _Recorder()
    monkeypatch.setattr(m, "argmax_rows_kernel", kernel)
    x = torch.randn(20, 70, generator=torch.Generator().manual_seed(1))
    out = torch.empty(20, dtype=torch.int64)
    for hints, ctas in ((None, 1), ({}, 1), ({"num_ctas": None}, 1), ({"num_ctas": 2}, 2),
                        ({"occupancy": 4}, 1)):
        m.launch_argmax_rows_kernel(None, 3, x, out, 8, 32, hints=hints)
        assert kernel.launches[-1][1]["num_ctas"] == ctas, hints
    for tm, tn, warps in ((8, 32, 1), (4, 128, 2), (1024, 1, 4), (16, 256, 8), (64, 512, 8)):
        m.launch_argmax_rows_kernel(None, (3,), x, out, tm, tn)
        grid, options = kernel.launches[-1]
        assert (grid, options["num_warps"], options["num_stages"]) == ((3,), warps, 2)
        assert options["x_div"] == (2, 1, 1, 2) and options["USE_INT64"] is False
