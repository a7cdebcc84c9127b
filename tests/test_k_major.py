"""K-major copies of tf32 products' B operands (docs/performance.md, "tf32 matrix products").

On sm_90 wgmma reads tf32 operands only K-major; over a row-major B Triton fills the K-major
shared buffer with one 4-byte copy per element (82 against 230-307 TFLOP/s, GPU run 13). The
launcher hands such a kernel a K-major copy of B when B is a float32 array the kernel only reads
and the product is large. Every such float32 B is rounded to tf32 on the way (to nearest even, as
cuTile rounds tfloat32 operands; the tensor cores would truncate), the kernel rounding A itself.
Here, on the CPU: which kernels get the copy, that the copy has B's shape and rounded values,
and that the translated kernel computes the product of the rounded operands (the interpreter,
ragged shapes), with the GPU check stubbed to say "sm_90" and small thresholds.
"""
from pathlib import Path

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

ROOT = Path(__file__).resolve().parents[1]

HEADER = "import cuda.tile as ct\n\nConstInt = ct.Constant[int]\n\n\n"

TF32 = HEADER + '''@ct.kernel
def k(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for i in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), i), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (i, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x.astype(ct.tfloat32), y.astype(ct.tfloat32), acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def launch(stream, a, b, c, tiles):
    tm, tn, tk = tiles
    grid = (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn), 1)
    ct.launch(stream, grid, k, (a, b, c, tm, tn, tk))
'''


def _translate(src, tmp_path, name):
    res = translate_source(src, f"{name}.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    out = tmp_path / f"{name}_triton.py"
    out.write_text(res.output)
    return res.output, out


LINE = "a = _tf32_operand(stream, a)\n    b = _k_major_tf32(stream, b, a.shape[-2])"


def test_tf32_product_of_loaded_tiles_gets_the_copy(tmp_path):
    text, _ = _translate(TF32, tmp_path, "tf32")
    assert LINE in text
    # the suite's kernels: the dtype-select idiom (tf32 for float32 inputs) counts too
    for case in ("matmul", "persistent_matmul"):
        path = ROOT / "benchmarks" / "suite" / case / "kernel.py"
        out = translate_source(path.read_text(), str(path)).output
        assert "A = _tf32_operand(stream, A)\n    B = _k_major_tf32(stream, B, A.shape[-2])" \
            in out, case
        assert "_round_tf32" not in out, case   # (in registers, wgmma would lose its path)


@pytest.mark.parametrize("change", [
    # not a tf32 product: the copy would buy nothing
    ("x.astype(ct.tfloat32), y.astype(ct.tfloat32)", "x, y"),
    # the kernel writes b: a copy would hide the write
    ("    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))",
     "    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))\n"
     "    ct.store(b, (0, 0), acc.astype(b.dtype))"),
    # b reaches a helper, which could write it
    ("    acc = ct.zeros(", "    touch(b)\n    acc = ct.zeros("),
    # a transposed load: the tile's axes are not b's
    ("y = ct.load(b, (i, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)",
     "y = ct.load(b, (ct.bid(1), i), (TK, TN), order='F', padding_mode=ct.PaddingMode.ZERO)"),
], ids=["ieee", "stored", "helper", "order_F"])
def test_no_copy_where_it_is_unsound_or_useless(change, tmp_path):
    src = TF32.replace(*change)
    assert src != TF32
    if "touch(b)" in src:
        src = src.replace("@ct.kernel", "@ct.function\ndef touch(x):\n    return x.shape[0]\n\n\n"
                          "@ct.kernel", 1)
    text, _ = _translate(src, tmp_path, "nocopy")
    assert "_k_major_tf32(" not in text and "_tf32_operand(" not in text
    if "tfloat32" in src:       # a tf32 product all the same: its operands rounded here
        assert "_round_tf32(" in text


def tf32(x):
    """`x` rounded to 11 significant bits (tf32's 10 stored), ties to even: frexp and
    torch.round (half to even), independent of the bit arithmetic under test."""
    m, e = torch.frexp(x.double())
    return (torch.round(m * 2048) / 2048 * torch.pow(2.0, e.double())).float()


def test_k_major_copy_keeps_shape_and_rounds_values(tmp_path):
    _, path = _translate(TF32, tmp_path, "copy")
    m = load_module(path, "t2t_kmajor_copy")
    g = torch.Generator().manual_seed(0)
    b = torch.randn(50, 33, generator=g)
    k = m._k_major_copy(b)
    assert k.shape == b.shape and torch.equal(k, tf32(b)) and not torch.equal(k, b)
    assert k.stride() == (1, 64)            # K contiguous, rows padded to 32 elements
    batched = torch.randn(3, 40, 24, generator=g)
    kb = m._k_major_copy(batched)
    assert torch.equal(kb, tf32(batched)) and kb.stride()[1:] == (1, 64)
    # more than one batch dimension: torch's own copy
    deep = torch.randn(2, 3, 37, 21, generator=g)
    kd = m._k_major_copy(deep)
    assert torch.equal(kd, tf32(deep)) and kd.stride()[2:] == (1, 64)
    # a source that is a strided view (rows of a wider buffer)
    wide = torch.randn(45, 80, generator=g)[:, 5:62]
    assert torch.equal(m._k_major_copy(wide), tf32(wide))
    # ties go to even; inf and NaN stay
    ties = torch.tensor([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, -(1 + 2.0 ** -11), float("inf"),
                         float("-inf"), float("nan")])
    got = m._tf32_operand(None, ties)
    assert got[:5].tolist() == [1.0, 1 + 4 * 2.0 ** -11, -1.0, float("inf"), float("-inf")]
    assert got[5].isnan()


@pytest.fixture
def sm90_module(tmp_path, monkeypatch):
    """The translation with the GPU check saying sm_90, small thresholds, and a record of the
    copies made."""
    _, path = _translate(TF32, tmp_path, "sm90")
    m = load_module(path, "t2t_kmajor_sm90")
    monkeypatch.setattr(m, "_wgmma_device", lambda device: True)
    monkeypatch.setattr(m, "_K_MAJOR_MIN_ELEMENTS", 1)
    monkeypatch.setattr(m, "_K_MAJOR_MIN_ROWS", 1)
    copies = []
    real = m._k_major_copy
    monkeypatch.setattr(m, "_k_major_copy", lambda b: copies.append(b.shape) or real(b))
    m.copies = copies
    return m


@pytest.mark.parametrize("mnk,tiles", [((65, 33, 50), (32, 32, 16)),
                                       ((100, 70, 90), (32, 32, 32)),
                                       ((17, 64, 4088 // 8), (16, 32, 16))])
def test_kernel_over_the_k_major_copy_computes_the_product(sm90_module, mnk, tiles):
    m, n, k = mnk
    g = torch.Generator().manual_seed(m + n + k)
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    a0, b0 = a.clone(), b.clone()
    c = torch.full((m, n), float("nan"))
    sm90_module.launch(None, a, b, c, tiles)
    assert sm90_module.copies == [(k, n)]
    # cuTile's product of tfloat32 operands: both rounded to nearest even (GPU run 50: bit for
    # bit cuTile's), then multiplied; the interpreter accumulates in fp32
    ref = tf32(a).double() @ tf32(b).double()
    torch.testing.assert_close(c.double(), ref, atol=1e-4, rtol=1e-5)
    assert (c.double() - a.double() @ b.double()).abs().max() > 1e-3   # (not the exact one)
    assert torch.equal(a, a0) and torch.equal(b, b0)    # the caller's operands untouched


def test_rounded_copy_where_k_major_does_not_pay(sm90_module):
    """Every float32 B is handed over rounded (the kernel rounds A); K-major only for a
    row-major B: an aliased B is rounded too (the kernel only reads it), fp16 is left as it
    is."""
    g = torch.Generator().manual_seed(1)
    a = torch.randn(40, 30, generator=g)
    # b and c views of one buffer (not overlapping)
    buf = torch.randn(30 * 20 + 40 * 20, generator=g)
    b, c = buf[:600].view(30, 20), buf[600:].view(40, 20)
    sm90_module.launch(None, a, b, c, (16, 16, 16))
    torch.testing.assert_close(c.double(), tf32(a).double() @ tf32(b).double(),
                               atol=1e-4, rtol=1e-5)
    assert sm90_module.copies == [(30, 20)]
    # already K-major: rounded in its own layout
    bt = torch.randn(20, 30, generator=g).T
    c2 = torch.empty(40, 20)
    sm90_module.launch(None, a, bt, c2, (16, 16, 16))
    torch.testing.assert_close(c2.double(), tf32(a).double() @ tf32(bt).double(),
                               atol=1e-4, rtol=1e-5)
    assert sm90_module.copies == [(30, 20)]
    # not float32
    half = torch.randn(30, 20, generator=g).half()
    assert sm90_module._k_major_tf32(None, half, 40) is half
    assert sm90_module._tf32_operand(None, half) is half
    # A in its own layout: row-major, a transposed row-major matrix
    for x in (torch.randn(33, 47, generator=g), torch.randn(47, 33, generator=g).T):
        r = sm90_module._tf32_operand(None, x)
        assert r.stride() == x.stride() and torch.equal(r, tf32(x))


def test_small_products_keep_their_layout(tmp_path):
    """The real thresholds: a 64 x 64 B (far below 2**20 elements) keeps its layout even on
    sm_90, rounded; a large one with many rows of A gets the K-major copy."""
    _, path = _translate(TF32, tmp_path, "small")
    m = load_module(path, "t2t_kmajor_small")
    m._wgmma_device = lambda device: True
    b = torch.randn(64, 64)
    small = m._k_major_tf32(None, b, 4096)
    assert small.stride() == b.stride() and torch.equal(small, tf32(b))
    big = torch.randn(2048, 1024)
    assert m._k_major_tf32(None, big, 4096).stride() == (1, 2048)
    assert m._k_major_tf32(None, big, 128).stride() == big.stride()  # few rows of A

