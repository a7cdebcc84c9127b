"""Module-level tables of constructs and helpers, indexed by compile-time keys (constants,
members of the module's own enums, ct.Constant parameters), and enum members compared and read
(`.value`) inside kernels. Each translation runs under TRITON_INTERPRET=1 on random data whose
length is not a multiple of the tile, against a reference computed with wider integers or float64."""
import re
import sys
from pathlib import Path

import pytest
import torch

import tile2triton
from tile2triton import interp
from tile2triton.diagnostics import TranslationError
from tile2triton.live import extract

HERE = Path(__file__).resolve().parent
N, TILE = 300, 64
GRID = ((N + TILE - 1) // TILE,)


@pytest.fixture(scope="module")
def kt():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_tables
            yield kernels_tables
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_tables", None)


def _ints(seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-1000, 1000, (N,), generator=g, dtype=torch.int32),
            torch.randint(-1000, 1000, (N,), generator=g, dtype=torch.int32))


def test_extracted_module_defines_the_enum_and_the_table(kt):
    text = extract(kt.combine_into).text
    assert "class Combine(enum.Enum):\n    ADD = 1\n    MAX = 2\n    SWAP = 5" in text
    assert "COMBINERS = {Combine.ADD: ct.atomic_add," in text


@pytest.mark.parametrize("which,ref", [(1, lambda a, u: a + u), (2, torch.maximum),
                                       (5, lambda a, u: u)])
def test_table_indexed_by_a_constant_parameter(kt, which, ref):
    t = tile2triton.translate_kernel(kt.combine_into)
    assert re.search(r"if which == 1\s+else", t.source)          # one entry per condition
    acc, upd = _ints(which)
    old = torch.zeros_like(acc)
    want = ref(acc.long(), upd.long())
    before = acc.clone()
    t(None, GRID, acc, upd, old, TILE, which)
    assert torch.equal(acc.long(), want)
    assert torch.equal(old, before)


def test_table_indexed_by_a_member_folds(kt):
    t = tile2triton.translate_kernel(kt.combine_fixed)
    body = t.source.split("def combine_fixed(")[1]
    assert "_atomic_max_1d(" in body and " if " not in body.split("def launch_")[0]
    acc, upd = _ints(7)
    want = torch.maximum(acc, upd)
    t(None, GRID, acc, upd, TILE)
    assert torch.equal(acc, want)


@pytest.mark.parametrize("k,ref", [(0, lambda a, u: a + u), (1, torch.minimum),
                                   (-1, torch.minimum)])
def test_tuple_of_helpers_returning_raw_memory_handles(kt, k, ref):
    t = tile2triton.translate_kernel(kt.raw_combine)
    acc, upd = _ints(11 + k)
    want = ref(acc.long(), upd.long())
    t(None, GRID, acc, upd, TILE, k)
    assert torch.equal(acc.long(), want)


@pytest.mark.parametrize("m", [3, 7])
def test_enum_members_compared_and_read(kt, m):
    t = tile2triton.translate_kernel(kt.by_mode)
    x = torch.randn(N, generator=torch.Generator().manual_seed(m))
    y = torch.empty_like(x)
    t(None, GRID, x, y, TILE, m)
    ref = x.double() * 3 - 0.5 if m == 3 else (x.double() + 7 - 0.5) * 2
    torch.testing.assert_close(y.double(), ref, atol=1e-6, rtol=1e-6)


def test_constant_key_missing_from_the_table_is_located(kt):
    with pytest.raises(TranslationError) as e:
        tile2triton.translate_kernel(kt.missing_key)
    d = e.value.diagnostic
    assert "4 is not a value of `Combine`" in d.message and d.path.endswith("kernels_tables.py")


def test_ordering_plain_enum_members_is_located(kt):
    with pytest.raises(TranslationError) as e:
        tile2triton.translate_kernel(kt.unordered)
    assert "does not order members" in e.value.diagnostic.message


@pytest.mark.parametrize("k,ref", [(0, lambda a, b: a - b), (1, lambda a, b: a * b),
                                   (2, torch.maximum)])
def test_list_of_operator_functions_and_builtins(kt, k, ref):
    t = tile2triton.translate_kernel(kt.arith)
    g = torch.Generator().manual_seed(20 + k)
    x, y = torch.randn(N, generator=g), torch.randn(N, generator=g)
    out = torch.empty_like(x)
    t(None, GRID, x, y, out, TILE, k)
    torch.testing.assert_close(out.double(), ref(x.double(), y.double()) + 0.25,
                               atol=1e-6, rtol=1e-6)


def test_annotated_array_and_list_parameters(kt):
    """`Annotated[ct.Array, ct.ArrayAnnotation(...)]` in the signature and a module alias of an
    annotated list: the annotations are understood (array, list of arrays) and dropped."""
    text = extract(kt.sum_rows).text
    assert "Rows = typing.Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation(" in text
    t = tile2triton.translate_kernel(kt.sum_rows)
    assert "ListAnnotation" not in t.source.split("def launch_sum_rows")[0].split("@triton.jit")[-1]
    g = torch.Generator().manual_seed(5)
    xs = [torch.randn(N, generator=g) for _ in range(3)]
    out = torch.empty(N)
    t(None, GRID, xs, out, TILE)
    torch.testing.assert_close(out.double(), sum(x.double() for x in xs), atol=1e-5, rtol=1e-5)


def test_static_stride_annotation_is_a_constexpr_stride(kt):
    """`static_stride_dims=(0,)`: the row stride is a compile-time value, as in cuTile (Triton
    compiles one kernel per stride); the other dimensions stay runtime values."""
    t = tile2triton.translate_kernel(kt.copy_pitched)
    assert "x_stride0: tl.constexpr" in t.source and "x_stride1: tl.constexpr" not in t.source
    assert "x_stride0 = x_stride0 //" not in t.source
    g = torch.Generator().manual_seed(9)
    for pitch in (53, 61):
        buf = torch.randn(37, pitch, generator=g)
        x = buf[:, :45]                        # rows 37, columns 45, row stride `pitch`
        y = torch.empty(37, 45)
        t(None, ((37 + 15) // 16, (45 + 15) // 16), x, y, 16, 16)
        torch.testing.assert_close(y.double(), 2 * x.double(), atol=1e-6, rtol=1e-6)
