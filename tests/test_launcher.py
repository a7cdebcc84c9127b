"""Launchers: int64 offsets only when some array spans 2**31 elements or more (and the int64
variant computes the same thing; on the GPU the planted-bug suite shows int32 overflow on a real
> 2**31-element tensor), and DLPack arrays as arguments."""
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
                                  out_div=(1, 8), USE_INT64=use_int64)
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
