"""The package's own tests, against float64 torch references (random data, shapes that are not
multiples of the tiles)."""
import pytest
import torch

import rowops
from rowops.launching import LAUNCH_COUNTS

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def _data(m, n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(m, n, generator=g, dtype=torch.float64)
    scale = torch.rand(m, generator=g, dtype=torch.float64) * 2 + 0.5
    bias = torch.randn(n, generator=g, dtype=torch.float64)
    return x, scale, bias


@pytest.mark.parametrize("m,n", [(37, 70), (5, 129)])
def test_scale_rows_with_bias(m, n):
    x, scale, bias = _data(m, n, 1)
    got = rowops.scale_rows(x.float().to(DEVICE), scale.float().to(DEVICE),
                            bias.float().to(DEVICE))
    torch.testing.assert_close(got.double().cpu(), x * scale[:, None] + bias[None, :],
                               rtol=1e-5, atol=1e-5)


def test_scale_rows_without_bias_passes_a_placeholder():
    x, scale, _ = _data(21, 45, 2)
    got = rowops.scale_rows(x.float().to(DEVICE), scale.float().to(DEVICE))
    torch.testing.assert_close(got.double().cpu(), x * scale[:, None], rtol=1e-5, atol=1e-5)


def test_the_variant_with_other_hints_computes_the_same():
    x, scale, bias = _data(19, 33, 3)
    args = (x.float().to(DEVICE), scale.float().to(DEVICE), bias.float().to(DEVICE))
    torch.testing.assert_close(rowops.scale_rows_one_cta(*args), rowops.scale_rows(*args))


@pytest.mark.parametrize("persistent", [False, True])
def test_row_sums_kernel_chosen_at_run_time(persistent):
    x, _, _ = _data(53, 100, 4)
    before = sum(LAUNCH_COUNTS.values())
    got = rowops.row_sums(x.float().to(DEVICE), persistent=persistent)
    torch.testing.assert_close(got.double().cpu(), x.float().double().sum(dim=1),
                               rtol=1e-5, atol=1e-4)
    assert sum(LAUNCH_COUNTS.values()) == before + 1      # through the package's wrapper
