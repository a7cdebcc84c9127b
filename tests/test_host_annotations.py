"""Host annotations that name cuTile types name what the translated module holds there instead
(issue 21: a written module reads no name its input did not leave undefined; ruff, type
checkers and `typing.get_type_hints` resolve annotations, string ones included):
`ct.kernel` / `ct.function` -> `triton.JITFunction`, `ct.DType` -> `tl.dtype`, `ct.Array` ->
`torch.Tensor`, an enum (`ct.PaddingMode`, whose members host code holds as strings) -> `str`,
`ct.Constant[T]` (or a module alias of it) -> `T`, a bare `ct.Constant` -> `object`. A string
stays a string; the imports they need are made. A cuTile type without a counterpart stays
documented as a string."""
import typing

import torch
import triton
import triton.language as tl

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def copy(x, y, TILE: ConstInt):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t)


def run(x: torch.Tensor, kernel: "ct.kernel" = copy, dt: "ct.DType" = ct.float32,
        tile: ConstInt = 64, out: ct.Array = None, n: ct.Constant[int] = 0) -> "ct.Array":
    y = torch.empty_like(x) if out is None else out
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), kernel, (x, y, tile))
    return y
'''

HOST_ONLY = '''import cuda.tile as ct


def describe(kernel: "ct.function", dt: "ct.DType", any_constant: ct.Constant = 0) -> str:
    return f"{kernel} {dt}"
'''


def _signature_line(text: str, name: str) -> str:
    at = text.index(f"def {name}(")
    return text[at:text.index(":\n", at)]


def test_cutile_types_in_annotations_name_their_counterparts(tmp_path):
    res = translate_source(SRC, "ops.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    sig = _signature_line(res.output, "run")
    assert '"ct.' not in sig and "ConstInt" not in sig, sig
    assert 'kernel: "triton.JITFunction" = copy' in sig      # a string stays a string
    assert 'dt: "tl.dtype" = tl.float32' in sig
    assert "tile: int = 64" in sig and "n: int = 0" in sig
    assert "out: torch.Tensor = None" in sig and '-> "torch.Tensor"' in sig
    path = tmp_path / "ops_triton.py"
    path.write_text(res.output)
    mod = load_module(path, "ops_triton_annotations")
    hints = typing.get_type_hints(mod.run)     # every annotation resolves in the module
    assert hints["kernel"] is triton.JITFunction and hints["dt"] is tl.dtype
    assert hints["tile"] is int and hints["out"] is torch.Tensor
    x = torch.randn(200, generator=torch.Generator().manual_seed(2))   # 200 = 3.1 tiles
    torch.testing.assert_close(mod.run(x), x)


def test_a_module_with_only_annotations_imports_what_they_name(tmp_path):
    res = translate_source(HOST_ONLY, "types.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "import triton\n" in res.output and "import triton.language as tl\n" in res.output
    path = tmp_path / "types_triton.py"
    path.write_text(res.output)
    mod = load_module(path, "types_triton_annotations")
    hints = typing.get_type_hints(mod.describe)
    assert hints["kernel"] is triton.JITFunction and hints["dt"] is tl.dtype
    assert hints["any_constant"] is object


def test_a_cutile_type_without_a_counterpart_stays_a_string():
    src = HOST_ONLY.replace('dt: "ct.DType"', "dt: ct.Tile")
    res = translate_source(src, "types.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert 'dt: "ct.Tile"' in _signature_line(res.output, "describe")


def test_cutile_enums_in_annotations_are_the_strings_host_code_holds():
    src = HOST_ONLY.replace("import cuda.tile as ct\n", "import cuda.tile as ct\n"
                            "from typing import Optional\nfrom cuda.tile import PaddingMode\n")
    src = src.replace('dt: "ct.DType"', "dt: Optional[PaddingMode] = None")
    res = translate_source(src, "types.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert "dt: Optional[str] = None" in _signature_line(res.output, "describe")
