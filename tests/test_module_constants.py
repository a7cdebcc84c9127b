"""Module constants stay constants (issue 24 item 4): a kernel reading a number the module binds
once at its top (`FP8_MAX = 448.0`) spells it by name, defined at the kernel's top as a
constexpr of its value (Triton reads a module global only as a `tl.constexpr` object, and the
module keeps its plain number for host code); `-FP8_MAX` keeps the name too. Tuples (whose
numbers keep their names), constants the kernel rebinds and constants bound twice are inlined as
before."""
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct

FP8_MAX = 448.0
TILE = 64
SHAPE = (TILE,)
TWICE = 1
TWICE = 2


@ct.kernel
def clamp_scale(x, y):
    bid = ct.bid(0)
    t = ct.load(x, (bid,), SHAPE, padding_mode=ct.PaddingMode.ZERO)
    t = ct.minimum(ct.maximum(t * FP8_MAX, -FP8_MAX), FP8_MAX) + TWICE
    ct.store(y, (bid,), t)


def run(x, y):
    ct.launch(None, (ct.cdiv(x.shape[0], TILE),), clamp_scale, (x, y))
    return FP8_MAX / 2      # host code still reads the plain number
'''


def _kernel_text(text: str) -> str:
    at = text.index("def clamp_scale(")
    return text[at:text.index("\ndef ", at + 1)]


def test_a_module_number_keeps_its_name_in_the_kernel():
    res = translate_source(SRC, "clamp.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    kernel = _kernel_text(res.output)
    assert "    FP8_MAX: tl.constexpr = 448.0\n" in kernel
    assert "tl.minimum(tl.maximum(t * FP8_MAX, -FP8_MAX), FP8_MAX) + 2" in kernel
    assert "TWICE" not in kernel            # bound twice at the top: inlined
    # a tuple is a translation-time value; the number it holds keeps its name
    assert "SHAPE" not in kernel and "tl.arange(0, TILE)" in kernel
    assert "    TILE: tl.constexpr = 64\n" in kernel
    assert "\nFP8_MAX = 448.0\n" in res.output   # the module's own binding, for host code


def test_a_constant_the_kernel_rebinds_is_inlined():
    src = SRC.replace("    t = ct.minimum(", "    FP8_MAX = 2.0\n    t = ct.minimum(")
    res = translate_source(src, "clamp.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    kernel = _kernel_text(res.output)
    assert "448" not in kernel      # the kernel's own binding, not the module's
    assert "FP8_MAX: tl.constexpr = 2.0" in kernel


def test_the_named_constants_compute_what_cutile_computes(tmp_path):
    path = tmp_path / "clamp_triton.py"
    path.write_text(translate_source(SRC, "clamp.py").output)
    mod = load_module(path, "clamp_triton_constants")
    x = torch.randn(300, generator=torch.Generator().manual_seed(4))   # 300 = 4.7 tiles
    y = torch.full_like(x, float("nan"))
    assert mod.run(x, y) == 224.0
    want = (x.double() * 448.0).clamp(-448.0, 448.0) + 2
    torch.testing.assert_close(y.double(), want, rtol=1e-6, atol=1e-6)


def test_a_constant_read_only_to_fold_another_leaves_no_line():
    src = SRC.replace("TILE = 64\n", "TILE = 64\nHALF = 32\nDOUBLE = HALF * 2\n").replace(
        "t = ct.minimum(", "t = t * DOUBLE\n    t = ct.minimum(")
    res = translate_source(src, "clamp.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    kernel = _kernel_text(res.output)
    assert "    DOUBLE: tl.constexpr = 64\n" in kernel and "t = t * DOUBLE" in kernel
    assert "HALF" not in kernel         # read only to fold DOUBLE's value
