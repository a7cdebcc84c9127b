"""Products below tl.dot's minimum sizes (`_dot_any_size`, patterns/mma.py), issue 23.

Decode attention multiplies the few query heads that share a KV head (4 rows) by tiles of
keys and values. The small dimension is spread over tl.dot's minimum of 16 by repeating
elements, and one of the result's equal copies is taken back; an operand whose own dimensions
are large enough reaches tl.dot as it is. Before, every operand went through the spreading,
so the key and value tiles were re-laid-out in registers on every iteration instead of being
read by the product from shared memory.
"""
import re

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]

SRC = '''import cuda.tile as ct


@ct.kernel
def product(a, b, c, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int]):
    x = ct.load(a, index=(0, 0), shape=(M, K), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(0, 0), shape=(K, N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.full((M, N), 0.5, dtype=c.dtype)))


def run(a, b, c, m, n, k):
    ct.launch(None, (1,), product, (a, b, c, m, n, k))
'''


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    r = translate_source(SRC, "small_dots.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path_factory.mktemp("small_dots") / "small_dots_triton.py"
    path.write_text(r.output)
    return load_module(path, "t2t_small_dots")


@pytest.mark.parametrize("m, n, k, dtype, acc", [
    (4, 64, 32, torch.float16, torch.float32),     # few rows (decode's query heads)
    (16, 4, 32, torch.float16, torch.float32),     # few columns
    (32, 32, 8, torch.float16, torch.float32),     # a shallow product
    (2, 8, 4, torch.float32, torch.float32),       # everything small, fp32 in true fp32
    (4, 16, 16, torch.int8, torch.int32),          # int8: depth 32 needed
])
def test_small_products_match_float64(module, m, n, k, dtype, acc):
    g = torch.Generator().manual_seed(m * 100 + n + k)
    # arrays a little larger than the tiles, not multiples of them: the padding is read too
    if dtype.is_floating_point:
        a = torch.randn(m + 3, k - 1, generator=g).to(dtype)
        b = torch.randn(k - 1, n + 5, generator=g).to(dtype)
    else:
        a = torch.randint(-100, 100, (m + 3, k - 1), generator=g, dtype=dtype)
        b = torch.randint(-100, 100, (k - 1, n + 5), generator=g, dtype=dtype)
    c = torch.full((m + 3, n + 5), -7, dtype=acc)
    module.run(a, b, c, m, n, k)
    want = a[:m].double() @ b[:, :n].double() + 0.5 * acc.is_floating_point
    tol = 1e-2 if dtype == torch.float16 else 1e-5
    torch.testing.assert_close(c[:m, :n].double(), want, rtol=tol, atol=tol * k ** 0.5)
    assert (c[m:] == -7).all() and (c[:, n:] == -7).all()    # nothing written outside


def test_decode_attention_reads_keys_and_values_from_shared_memory():
    """sm_90 compile of benchmarks/upstream/decode_attention (4 query rows per KV head): each
    product's key or value operand is read from shared memory (ttg.local_load) as loaded, not
    rebuilt from a 4-D register tensor of copies (tt.expand_dims to ...x1xf16)."""
    from tile2triton.verify.inspection import inspect_case
    [rep] = inspect_case(ROOT / "benchmarks" / "upstream" / "decode_attention", bench_index=1,
                         with_ptxas=False, stages=("ttgir",))
    assert rep.ok, rep.error
    ttgir = rep.stages["ttgir"]
    defs = {m.group(1): m.group(2) for m in re.finditer(r"(%[\w#]+) = ([^\n]*)", ttgir)}
    dots = re.findall(r"= tt\.dot (%[\w#]+), (%[\w#]+),", ttgir)
    assert len(dots) == 2
    for _, b in dots:
        op = defs[b]
        if op.startswith("tt.reshape"):
            op = defs[re.match(r"tt\.reshape (%[\w#]+)", op).group(1)]
        assert op.startswith("ttg.local_load"), op
    # (the 4 query rows are spread; the 64- and 128-wide key and value tiles are not)
    assert not re.search(r"tt\.expand_dims [^\n]*-> tensor<(64|128)x1x(64|128)x1xf16", ttgir)
