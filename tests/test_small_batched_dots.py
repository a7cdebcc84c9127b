"""Batched (3-D) matrix products smaller than tl.dot's minimum (16 rows, columns and depth):
upstream's FFT sample multiplies (BS, 2, 2) tiles at its default size, which Triton refused to
compile (GPU run 38: CompilationError at the `_matmul`). They are now summed elementwise; the
results are checked against float64 on the interpreter and compiled for sm_90."""
import pytest
import torch

from side_by_side import Both, compile_messages, gen

SMALL_BATCHED = """
@ct.kernel
def k(X, Y, Z, ZM, B: ct.Constant[int], M: ct.Constant[int], K: ct.Constant[int],
      N: ct.Constant[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(B, M, K))
    y = ct.load(Y, index=(0, 0, 0), shape=(B, K, N))
    ct.store(Z, index=(0, 0, 0), tile=x @ y)
    acc = ct.full((B, M, N), 1.0, dtype=ct.float32)
    ct.store(ZM, index=(0, 0, 0), tile=ct.mma(x, y, acc))
"""


@pytest.mark.parametrize("b, m, k, n", [(2, 2, 2, 2), (4, 2, 8, 4), (2, 16, 4, 32)])
def test_small_batched_products_match_float64(tmp_path, b, m, k, n):
    both = Both(tmp_path, SMALL_BATCHED, f"small_batched_{b}_{m}_{k}_{n}")
    g = gen(b * 100 + m * 10 + n)
    x, y = torch.randn(b, m, k, generator=g), torch.randn(b, k, n, generator=g)
    args = [x, y, torch.empty(b, m, n), torch.empty(b, m, n), b, m, k, n]
    ref, got = both.run("k", (1,), args)
    expect = x.double() @ y.double()
    assert torch.allclose(got[2].double(), expect, atol=1e-5)
    assert torch.allclose(got[3].double(), expect + 1, atol=1e-5)
    assert torch.allclose(got[2], ref[2], atol=1e-5) and torch.allclose(got[3], ref[3], atol=1e-5)


def test_small_batched_products_compile_for_sm90(tmp_path):
    both = Both(tmp_path, SMALL_BATCHED, "small_batched_compile")
    launches = ("[((1,), torch.empty(2, 2, 2), torch.empty(2, 2, 2), torch.empty(2, 2, 2), "
                "torch.empty(2, 2, 2), 2, 2, 2, 2), ((1,), torch.empty(2, 16, 32).half(), "
                "torch.empty(2, 32, 16).half(), torch.empty(2, 16, 16).half(), "
                "torch.empty(2, 16, 16), 2, 16, 32, 16)]")
    assert compile_messages(both.path, "k", launches) == ["ok", "ok"]


def test_a_pipeline_too_deep_for_shared_memory_gets_shorter(tmp_path):
    """The launcher of a matrix kernel retries with one stage less while Triton reports that
    the pipeline's buffers exceed shared memory (GPU run 38: upstream's batched matmul sample,
    128x256x128 fp16 tiles, needed 352 KB at the launcher's 4 stages). Here a stand-in for the
    Triton kernel refuses more than 2 stages."""
    import triton

    both = Both(tmp_path, SMALL_BATCHED, "small_batched_stages")
    assert "except triton.OutOfResources:" in both.text
    tried = []

    class Refuses:
        def __getitem__(self, grid):
            def launch(*args, num_stages, **options):
                tried.append(num_stages)
                if num_stages > 2:
                    raise triton.runtime.errors.OutOfResources(96 * 1024 * num_stages,
                                                               232448, "shared memory")
                return None
            return launch

    both.trans.k = Refuses()
    x = torch.randn(2, 16, 16, generator=gen(1))
    both.trans.launch_k(None, (1,), x, x, torch.empty(2, 16, 16), torch.empty(2, 16, 16),
                        2, 16, 16, 16)
    assert tried == list(range(tried[0], 1, -1)) and tried[0] > 2


def test_other_errors_are_not_retried(tmp_path):
    both = Both(tmp_path, SMALL_BATCHED, "small_batched_other")
    tried = []

    class Fails:
        def __getitem__(self, grid):
            def launch(*args, num_stages, **options):
                tried.append(num_stages)
                raise RuntimeError("not a resource problem")
            return launch

    both.trans.k = Fails()
    x = torch.randn(2, 16, 16, generator=gen(2))
    with pytest.raises(RuntimeError, match="not a resource problem"):
        both.trans.launch_k(None, (1,), x, x, torch.empty(2, 16, 16), torch.empty(2, 16, 16),
                            2, 16, 16, 16)
    assert len(tried) == 1
