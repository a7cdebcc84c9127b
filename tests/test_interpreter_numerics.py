"""verify.interpreter_numerics: bfloat16 arithmetic and dot products in Triton's interpreter
computed as a GPU computes them (what `tile2triton run --cpu` runs kernels with)."""
import pytest
import torch
import triton
import triton.language as tl

from tile2triton.verify import interpreter_numerics


@pytest.fixture(autouse=True, scope="module")
def _gpu_numerics():
    """On for these tests only: the rest of the suite runs Triton's interpreter as shipped."""
    assert interpreter_numerics.enable()
    yield
    interpreter_numerics.disable()


@triton.jit
def _bf16_ops(x_ptr, y_ptr, prod_ptr, less_ptr, sum_ptr, max_ptr, exp_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(prod_ptr + offs, x * y - x, mask=m)
    tl.store(less_ptr + offs, (x < y).to(tl.int8), mask=m)
    tl.store(exp_ptr + offs, tl.maximum(x, y) / y, mask=m)
    tl.store(sum_ptr, tl.sum(tl.where(m, x, 0.0), axis=0))
    tl.store(max_ptr, tl.max(tl.where(m, x, -float("inf")), axis=0))


def test_bfloat16_arithmetic_is_on_values_not_bits():
    gen = torch.Generator().manual_seed(3)
    n = 45
    x = torch.randn(n, generator=gen, dtype=torch.float64).bfloat16()
    y = torch.randn(n, generator=gen, dtype=torch.float64).bfloat16()
    prod, exp = torch.empty_like(x), torch.empty_like(x)
    less = torch.empty(n, dtype=torch.int8)
    total, big = torch.empty(1, dtype=torch.bfloat16), torch.empty(1, dtype=torch.bfloat16)
    _bf16_ops[(1,)](x, y, prod, less, total, big, exp, n, B=64)
    xd, yd = x.double(), y.double()
    # each bfloat16 operation rounds once: x*y rounded, then the difference rounded
    want = ((xd * yd).bfloat16().double() - xd).bfloat16()
    assert torch.equal(prod, want)
    assert torch.equal(less.bool(), xd < yd)
    assert torch.equal(exp, (torch.maximum(xd, yd) / yd).bfloat16())
    torch.testing.assert_close(total.double(), xd.sum().reshape(1), atol=0.05, rtol=2 ** -7)
    assert big.item() == xd.max().item()


@triton.jit
def _dot_k_loop(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_dot_rounds_once_per_call_and_bfloat16_operands_are_values():
    gen = torch.Generator().manual_seed(4)
    M, N, K = 30, 20, 100
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.randn(M, K, generator=gen, dtype=torch.float64).to(dtype)
        b = torch.randn(K, N, generator=gen, dtype=torch.float64).to(dtype)
        c = torch.empty(M, N, dtype=torch.float32)
        _dot_k_loop[(1,)](a, b, c, M, N, K, BM=32, BN=32, BK=32)
        exact = a.double() @ b.double()
        # 4 roundings to fp32 of sums below 2**6 in size: well within 1e-5
        torch.testing.assert_close(c.double(), exact, atol=1e-5, rtol=0)


def test_disable_gives_back_the_interpreter_as_shipped():
    from triton.runtime import interpreter as I
    patched = I.InterpreterBuilder.create_fmul
    interpreter_numerics.disable()
    try:
        assert I.InterpreterBuilder.create_fmul is not patched
        assert not getattr(I.InterpreterBuilder, "_t2t_bf16", False)
    finally:
        assert interpreter_numerics.enable()
    assert I.InterpreterBuilder.create_fmul is not patched   # a fresh patch, on again
